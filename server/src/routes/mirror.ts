import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { AppContext } from '../context.ts';
import { consume } from '../services/identity/rateLimit.ts';
import { periodUsage } from '../services/peers/usage.ts';
import { HttpError } from '../lib/errors.ts';

/** Hours between refreshes that subscription-aware clients are asked for (profile-update-interval). */
export const PROFILE_UPDATE_HOURS = 24;

/** `profile-title`: plain when printable ASCII, else `base64:` and the UTF-8 bytes in base64. */
export function profileTitle(name: string): string {
  return /^[\x20-\x7e]*$/.test(name) ? name : `base64:${Buffer.from(name, 'utf8').toString('base64')}`;
}

/**
 * The mirror link: a long random token in the URL (the one secret allowed in a URL) serving the
 * peer's current `.conf` to the client app. Unknown or replaced tokens get a bare 404. Headers
 * that subscription-aware clients read: `subscription-userinfo` (the current period's upload and
 * download, `total` the allowance in bytes or 0 when unlimited, `expire` in Unix seconds, 0 = never),
 * `profile-title` (the company name) and `profile-update-interval` (hours).
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
        const usage = await periodUsage(ctx.db, found.id);
        const expire = found.expiresAt ? Math.floor(found.expiresAt.getTime() / 1000) : 0;
        reply.header(
          'subscription-userinfo',
          `upload=${usage.upload}; download=${usage.download}; total=${usage.total}; expire=${expire}`,
        );
        reply.header('profile-title', profileTitle(ctx.config.companyName));
        reply.header('profile-update-interval', String(PROFILE_UPDATE_HOURS));
        if (request.headers['if-none-match'] === etag) return reply.status(304).send();
        return reply.type('text/plain; charset=utf-8').send(found.text);
      },
    );
  };
