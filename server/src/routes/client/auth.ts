import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  CurrentUser,
  ErrorBody,
  LoginBody,
  RegisterAnswer,
  RegisterBody,
  TokenPair,
  msg,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { authenticateCustomer, getCurrentUser, registerCustomer } from '../../services/identity/accounts.ts';
import { consume } from '../../services/identity/rateLimit.ts';
import { badRequest, HttpError } from '../../lib/errors.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 403: ErrorBody, 409: ErrorBody, 429: ErrorBody };

/** Customer registration, login and the current-user call. */
export const customerAuthRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.put(
      '/api/client/register',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['auth'],
          summary: 'Registro de cliente (captcha verificado en el servidor)',
          body: RegisterBody,
          response: { 201: RegisterAnswer, ...errors },
        },
      },
      async (request, reply) => {
        const body = request.body;
        // The captcha is the first gate: a bot without one spends nothing of the address's budget
        // (which customers behind the same carrier-grade NAT share).
        if (!body.captcha_token) throw badRequest(msg.captchaRequired);
        if (!body.username.trim() || !body.password) throw badRequest(msg.credentialsRequired);
        await ctx.captcha.verify(body.captcha_token, request.ip);
        await consume(ctx.db, `register:ip:${request.ip}`, ctx.rateLimits.registerPerIp);
        const created = await registerCustomer(ctx.db, body);
        if (created.email) await ctx.account.sendVerification(created.id, created.email);
        // A session at once: the customer goes on into the dashboard without typing it all again.
        const tokens = await ctx.sessions.issue({ realm: 'customer', id: created.id }, false, {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
        return reply.status(201).send({ message: msg.registered, ...tokens });
      },
    );

    app.post(
      '/api/client/login',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['auth'],
          summary: 'Inicio de sesión de cliente',
          body: LoginBody,
          description:
            'Tras varios intentos fallidos con un usuario, la respuesta 429 lleva `code: captcha_required` ' +
            'y el siguiente intento debe incluir `captcha_token`.',
          response: { 200: TokenPair, ...errors },
        },
      },
      async (request) => {
        const { username, password, remember, captcha_token } = request.body;
        if (!username.trim() || !password) throw badRequest(msg.credentialsRequired);
        const id = await ctx.loginThrottle.attempt(
          request.ip,
          username,
          captcha_token,
          () => authenticateCustomer(ctx.db, username, password),
          (e) => e instanceof HttpError && e.status === 401,
        );
        return ctx.sessions.issue({ realm: 'customer', id }, remember ?? false, {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
      },
    );

    app.get(
      '/api/client/verify-token',
      {
        schema: {
          tags: ['auth'],
          summary: 'Datos del cliente actual',
          security: [{ bearer: [] }],
          response: { 200: CurrentUser, 401: ErrorBody },
        },
      },
      async (request) => getCurrentUser(ctx.db, principalOf(request).id),
    );
  };

export default customerAuthRoutes;
