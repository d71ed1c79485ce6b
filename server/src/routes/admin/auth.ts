import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { CurrentManager, ErrorBody, ManagerLoginBody, TokenPair, msg } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import {
  authenticateManager,
  getCurrentManager,
  throttledManagerLogin,
} from '../../services/identity/managers.ts';
import { twoFactorOf } from '../../services/identity/twoFactor.ts';
import { badRequest } from '../../lib/errors.ts';

/** Manager login: a separate realm from customers. */
export const adminAuthRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const twoFactor = twoFactorOf(ctx);
    app.post(
      '/api/admin/login',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['admin'],
          summary:
            'Inicio de sesión de gestor; con verificación en dos pasos activada pide `totp` (código o código de recuperación): 401 `totp_required` si falta',
          body: ManagerLoginBody,
          response: { 200: TokenPair, 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => {
        const { username, password, remember, totp, captcha_token } = request.body;
        if (!username.trim() || !password) throw badRequest(msg.credentialsRequired);
        const id = await throttledManagerLogin(
          ctx.managerLoginThrottle,
          request.ip,
          username,
          captcha_token,
          async () => {
            const manager = await authenticateManager(ctx.db, username, password);
            await twoFactor.checkAtLogin(manager, totp);
            return manager;
          },
        );
        return ctx.sessions.issue({ realm: 'manager', id }, remember ?? false, {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
      },
    );

    app.get(
      '/api/admin/verify-token',
      {
        config: { permission: 'self' },
        schema: {
          tags: ['admin'],
          summary: 'Datos del gestor actual',
          security: [{ bearer: [] }],
          response: { 200: CurrentManager, 401: ErrorBody },
        },
      },
      async (request) => getCurrentManager(ctx.db, principalOf(request).id),
    );
  };

export default adminAuthRoutes;
