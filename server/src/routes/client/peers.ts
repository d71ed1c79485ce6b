import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AvailableServerList,
  ErrorBody,
  Peer,
  PeerList,
  PeerConfigQuery,
  PeerPatchBody,
  PeerUsage,
  IdParams,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';
import { listAvailableServers } from '../../services/fleet/servers.ts';
import { peerUsage } from '../../services/peers/usage.ts';
import { safeName } from '../../services/peers/wgconfig.ts';
import { consume } from '../../services/identity/rateLimit.ts';
import { originOf } from '../origin.ts';

const errors = { 400: ErrorBody, 401: ErrorBody, 404: ErrorBody, 409: ErrorBody, 429: ErrorBody };

/** The Peers page: list, config download, actions, servers to move to. */
export const peerRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    /**
     * Re-keying and moving a peer rewrite it on the servers (and each move or re-key may leave
     * traffic to count): at most RATE_LIMIT_PEER_CHANGES (default 10 per hour) per peer. Keyed by the
     * customer too, so nobody can spend another customer's budget with a peer id that is not theirs.
     */
    const limitPeerChanges = (customerId: number, peerId: number) =>
      consume(ctx.db, `peer-change:${customerId}:${peerId}`, ctx.rateLimits.peerChangesPerPeer);
    app.get(
      '/api/client/accounts/peers',
      {
        schema: {
          tags: ['peers'],
          summary: 'Peers del cliente',
          security: [{ bearer: [] }],
          response: { 200: PeerList, 401: ErrorBody },
        },
      },
      async (request) => ctx.peers.list(principalOf(request).id, originOf(request, ctx)),
    );

    app.get(
      '/api/client/accounts/peers/:id',
      {
        schema: {
          tags: ['peers'],
          summary:
            'Descarga la configuración del peer ({nombre}.conf), o el script de MikroTik con ?format=mikrotik; ' +
            'con ?scope=room, la configuración solo para la Sala ({nombre}-sala.conf; 409 si el peer no está en una sala)',
          security: [{ bearer: [] }],
          params: IdParams,
          querystring: PeerConfigQuery,
          response: { 200: z.string(), ...errors },
        },
      },
      async (request, reply) => {
        const { format, scope } = request.query;
        const { name, text } = await ctx.peers.config(
          principalOf(request).id,
          request.params.id,
          format,
          scope,
        );
        // The room-only file gets its own name, so an app that imports both keeps two tunnels.
        const suffix = scope === 'room' ? '-sala' : '';
        const ext = format === 'mikrotik' ? '.rsc' : '.conf';
        reply
          .header('content-type', 'text/plain; charset=utf-8')
          .header(
            'content-disposition',
            `attachment; filename="${safeName(name)}${suffix}${ext}"; filename*=UTF-8''${encodeURIComponent(name + suffix)}${ext}`,
          )
          .header('cache-control', 'no-store');
        return text;
      },
    );

    app.get(
      '/api/client/accounts/peers/:id/usage',
      {
        schema: {
          tags: ['peers'],
          summary: 'Uso del peer: en línea, último handshake, tráfico del periodo y de los últimos 30 días',
          security: [{ bearer: [] }],
          params: IdParams,
          response: { 200: PeerUsage, ...errors },
        },
      },
      async (request, reply) => {
        const row = await ctx.peers.getOwned(principalOf(request).id, request.params.id);
        reply.header('cache-control', 'no-store');
        return peerUsage(ctx.db, row.id);
      },
    );

    app.patch(
      '/api/client/accounts/peers/:id',
      {
        schema: {
          tags: ['peers'],
          summary: 'regenerate_token (nuevo mirror link), regenerate (nuevas claves) o change_server',
          security: [{ bearer: [] }],
          params: IdParams,
          body: PeerPatchBody,
          response: { 200: Peer, ...errors },
        },
      },
      async (request) => {
        const me = principalOf(request).id;
        const body = request.body;
        switch (body.operation) {
          case 'regenerate_token':
            return ctx.peers.regenerateMirror(me, request.params.id, originOf(request, ctx));
          case 'regenerate':
            await limitPeerChanges(me, request.params.id);
            return ctx.peers.regenerate(me, request.params.id, originOf(request, ctx));
          case 'change_server':
            await limitPeerChanges(me, request.params.id);
            return ctx.peers.changeServer(me, request.params.id, body.server, originOf(request, ctx));
        }
      },
    );

    app.get(
      '/api/client/network/:peerId',
      {
        schema: {
          tags: ['peers'],
          summary: 'Servidores a los que puede moverse el peer',
          security: [{ bearer: [] }],
          params: z.object({
            peerId: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1),
          }),
          response: { 200: AvailableServerList, ...errors },
        },
      },
      async (request) => {
        const peer = await ctx.peers.getOwned(principalOf(request).id, request.params.peerId);
        return listAvailableServers(ctx.db, peer.serverId);
      },
    );
  };

export default peerRoutes;
