import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { BulkPeersAnswer, BulkPeersBody, ErrorBody } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { ReauthService } from '../../plugins/reauth.ts';
import { BulkPeers } from '../../services/peers/bulk.ts';
import { adminDoc } from '../openapi.ts';

/**
 * Bulk actions on peers by filter (issue 34): `preview: true` counts what would change; otherwise
 * it changes, as one audit entry. More than BULK_REAUTH_OVER peers, or any move, needs X-Reauth.
 */
export const adminBulkRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const bulk = new BulkPeers({ db: ctx.db, bus: ctx.bus, peers: ctx.peers });
    const reauth = new ReauthService(ctx);

    app.post(
      '/api/admin/peers/bulk',
      {
        config: { permission: 'peers.write' },
        schema: {
          ...adminDoc(
            'Acción masiva sobre los peers de un filtro (servidor, plan, estado): ampliar N días, desactivar, activar o mover; preview cuenta sin cambiar (X-Reauth por encima de 100 o al mover)',
          ),
          body: BulkPeersBody,
          response: { 200: BulkPeersAnswer, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        if (request.body.preview) return bulk.preview(request.body);
        if (await bulk.needsReauth(request.body)) await reauth.require(request);
        return bulk.apply(actorOf(request), request.body);
      },
    );
  };
export default adminBulkRoutes;
