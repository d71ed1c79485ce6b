import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../context.ts';
import { unauthorized } from '../lib/errors.ts';
import { bearerToken } from '../plugins/auth.ts';
import { checkBackupToken, dumpPglite } from '../services/site/backup.ts';

/**
 * `POST /internal/backup`: the embedded database's backup, for `npm run backup` while the service
 * runs (PGlite allows one process: the CLI cannot open the files itself). The bearer token is
 * derived from the secret key, which the CLI reads from the same DATA_DIR. PGlite only.
 */
export const backupRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    const pglite = ctx.database.pglite;
    if (ctx.database.kind !== 'pglite' || !pglite) return;
    app.post('/internal/backup', { schema: { hide: true } }, async (request, reply) => {
      if (!checkBackupToken(ctx.config.secretKey, bearerToken(request))) throw unauthorized();
      const file = await dumpPglite(pglite, ctx.db, ctx.config.secretKey);
      return reply
        .header('cache-control', 'no-store')
        .header('content-disposition', 'attachment; filename="backup.vpnbak"')
        .type('application/octet-stream')
        .send(file);
    });
  };
