import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { consume } from '../services/rateLimit.ts';
import { HttpError } from '../lib/errors.ts';

/**
 * The mirror link: a long random token in the URL (the one secret allowed in a URL) serving the
 * peer's current `.conf` to the client app. Unknown or replaced tokens get a bare 404.
 */
export const mirrorRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/mirror/:token',
      {
        schema: {
          tags: ['peers'],
          summary: 'Configuración actual del peer por su mirror link (sin sesión)',
          params: z.object({ token: z.string().max(128) }),
        },
      },
      async (request, reply) => {
        try {
          await consume(ctx.db, `mirror:ip:${request.ip}`, ctx.rateLimits.mirrorPerIp);
        } catch (e) {
          if (e instanceof HttpError)
            return reply
              .status(429)
              .headers(e.headers ?? {})
              .type('text/plain')
              .send('');
          throw e;
        }
        const found = await ctx.peers.configByMirrorToken(request.params.token);
        reply.header('cache-control', 'no-store');
        if (!found) return reply.status(404).type('text/plain').send('');
        const etag = `"${createHash('sha256').update(found.text).digest('base64url').slice(0, 27)}"`;
        reply.header('etag', etag);
        reply.header('x-peer-expires', found.expiresAt ? found.expiresAt.toISOString() : 'never');
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        return reply.type('text/plain; charset=utf-8').send(found.text);
      },
    );
  };
