import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminPeerDetail,
  AdminPeerList,
  AdminPeerPatch,
  AdminPeerQuery,
  ErrorBody,
  Peer,
  IdParams,
  can,
  noControlChars,
} from '@vpn/contracts';
import { adminDoc } from '../openapi.ts';
import type { AppContext } from '../../context.ts';
import { actorOf, principalOf } from '../../plugins/auth.ts';
import { ReauthService } from '../../plugins/reauth.ts';
import { createManualPeer, getPeer, listPeers, patchPeer } from '../../services/peers/peerConsole.ts';
import { originOf } from '../origin.ts';

const text = (max: number) =>
  z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(max));

/** Peers of every customer: search, detail, switch on/off, expiry, grant a plan, move, manual peers. */
export const adminPeerRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const reauth = new ReauthService(ctx);
    app.get(
      '/api/admin/peers',
      {
        config: { permission: 'peers.read' },
        schema: {
          ...adminDoc(
            'Peers: q busca nombre, usuario del dueño, clave pública y dirección; state=expiring = activos que vencen en 7 días',
          ),
          querystring: AdminPeerQuery,
          response: { 200: AdminPeerList, 400: ErrorBody },
        },
      },
      async (request) => listPeers(ctx.db, request.query),
    );

    app.get(
      '/api/admin/peers/:id',
      {
        config: { permission: 'peers.read' },
        schema: {
          ...adminDoc('Un peer con su historial de planes y su consumo'),
          params: IdParams,
          response: { 200: AdminPeerDetail, 404: ErrorBody },
        },
      },
      async (request) =>
        getPeer(ctx.db, request.params.id, can(principalOf(request).role ?? '', 'peers.write')),
    );

    app.post(
      '/api/admin/peers',
      {
        config: { permission: 'peers.write' },
        schema: {
          ...adminDoc('Crea un peer para un cliente con un plan (pago manual)'),
          body: z.object({
            username: text(64),
            plan: IdParams.shape.id,
            name: z.preprocess(
              (v) => (v === undefined || v === null ? '' : v),
              noControlChars(z.string().max(100)),
            ),
            server: IdParams.shape.id.optional(),
          }),
          response: { 201: Peer, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        const peer = await createManualPeer(ctx.db, ctx.peers, actorOf(request), {
          ...request.body,
          origin: originOf(request, ctx),
        });
        return reply.status(201).send(peer);
      },
    );

    app.patch(
      '/api/admin/peers/:id',
      {
        config: { permission: 'peers.write' },
        schema: {
          ...adminDoc(
            'Activa/desactiva un peer o cambia su expiración (null = indeterminada); o operation grant {plan, reason} / change_server {server} (con X-Reauth)',
          ),
          params: IdParams,
          body: AdminPeerPatch,
          response: { 200: AdminPeerDetail, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        // Moving a customer's tunnel to another machine needs a fresh confirmation (issue 31), like
        // adding a server or changing its host: a stolen session alone must not point customers at
        // another endpoint.
        if (request.body.operation === 'change_server') await reauth.require(request);
        return patchPeer(ctx.db, ctx.peers, actorOf(request), request.params.id, request.body);
      },
    );
  };

export default adminPeerRoutes;
