import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, MessageBody, RefreshBody, TokenPair, msg } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { consume } from '../../services/identity/rateLimit.ts';
import { unauthorized } from '../../lib/errors.ts';

/** Token refresh and logout, shared by both realms (the refresh token knows its realm). */
export const sessionRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.post(
      '/api/refresh-token',
      {
        schema: {
          tags: ['auth'],
          summary: 'Renueva la sesión: devuelve un access y un refresh nuevos (el anterior queda gastado)',
          body: RefreshBody,
          response: { 200: TokenPair, 401: ErrorBody, 429: ErrorBody },
        },
      },
      async (request) => {
        await consume(ctx.db, `refresh:ip:${request.ip}`, ctx.rateLimits.refreshPerIp);
        if (!request.body.refresh) throw unauthorized(msg.invalidRefresh);
        const { access, refresh } = await ctx.sessions.rotate(request.body.refresh, {
          ip: request.ip,
          userAgent: request.headers['user-agent'],
        });
        return { access, refresh };
      },
    );

    app.post(
      '/api/logout',
      {
        schema: {
          tags: ['auth'],
          summary: 'Cierra la sesión (revoca el refresh token)',
          body: RefreshBody,
          response: { 200: MessageBody },
        },
      },
      async (request) => {
        if (request.body.refresh) await ctx.sessions.revoke(request.body.refresh);
        return { message: msg.loggedOut };
      },
    );
  };
