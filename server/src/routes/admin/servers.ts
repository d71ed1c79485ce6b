import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AdminServer,
  AdminServerDetail,
  AgentInstall,
  ErrorBody,
  ListQuery,
  Reason,
  ServerPatch,
  ServerPeer,
  DrainProgress,
  fleetMsg,
  paged,
  IdParams,
  noControlChars,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';
import { ReauthService } from '../../plugins/reauth.ts';
import { originOf } from '../origin.ts';
import { badRequest } from '../../lib/errors.ts';
import { AdminServerService } from '../../services/fleet/serverConsole.ts';
import { DrainService } from '../../services/fleet/drain.ts';

const text = (max: number) =>
  z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(max));

const NewServerBody = z.object({
  name: z.preprocess((v) => (v === undefined || v === null ? '' : v), noControlChars(z.string().max(60))),
  endpoint: text(300),
  ubication: text(120),
  allow_partys: z.boolean().optional(),
  active: z.boolean().optional(),
  dns: z
    .string()
    .regex(/^[0-9a-fA-F:., ]{2,200}$/, 'DNS no válido')
    .optional(),
  mtu: z.number().int().min(1280).max(1500).optional(),
  interface_name: z
    .string()
    .regex(/^[A-Za-z0-9_=+.-]{1,15}$/, 'Nombre de interfaz no válido')
    .optional(),
});

const admin = { tags: ['admin'], security: [{ bearer: [] }] };

/**
 * The manager API for servers: list, detail with live status and drain progress, peers, create and
 * token rotation (the install command shown once), edit, drain and delete. (Peers, manual ones
 * included, live in peers.ts.)
 *
 * Whatever decides which machine customers' tunnels end on — a new server, a new agent token (its
 * holder receives the node's private key and every peer's preshared key), another host or port
 * (written in every `.conf` and mirror link), a deletion — needs the manager's fresh confirmation
 * (X-Reauth, issue 31), as changing who can sign in does: a stolen session alone must not take a
 * node over. Renaming, the location, the switches and a drain (to servers already confirmed) do not.
 */
export const adminServerRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const service = new AdminServerService({
      db: ctx.db,
      bus: ctx.bus,
      peers: ctx.peers,
      encryptionKey: ctx.keys.encryption,
      release: ctx.agentRelease,
    });
    const drains = new DrainService({ db: ctx.db, bus: ctx.bus, peers: ctx.peers, log: app.log });
    app.addHook('onClose', () => drains.stop());
    // The agent must reach the control plane at its public address: PUBLIC_URL, else the address
    // this console was opened at (the answer goes back to that same manager).
    const baseOf = (request: Parameters<typeof originOf>[0]) => originOf(request, ctx);
    const reauth = new ReauthService(ctx);

    app.get(
      '/api/admin/servers',
      {
        config: { permission: 'servers.read' },
        schema: {
          ...admin,
          summary: 'Servidores VPN (busca por nombre, host y ubicación)',
          querystring: ListQuery,
          response: { 200: paged(AdminServer), 400: ErrorBody },
        },
      },
      async (request) => service.list(request.query),
    );

    app.get(
      '/api/admin/servers/:id',
      {
        config: { permission: 'servers.read' },
        schema: {
          ...admin,
          summary: 'Un servidor: estado del agente, revisión pendiente, peers en línea y drenado',
          params: IdParams,
          response: { 200: AdminServerDetail, 404: ErrorBody },
        },
      },
      async (request) => service.detail(request.params.id),
    );

    app.get(
      '/api/admin/servers/:id/peers',
      {
        config: { permission: 'servers.read' },
        schema: {
          ...admin,
          summary: 'Peers de un servidor (busca por nombre y dirección)',
          params: IdParams,
          querystring: ListQuery,
          response: { 200: paged(ServerPeer), 400: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => service.peersOf(request.params.id, request.query),
    );

    app.post(
      '/api/admin/servers',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary:
            'Crea un servidor (con X-Reauth); el token y el comando de instalación del agente se muestran solo esta vez',
          body: NewServerBody,
          response: { 201: AgentInstall.extend({ server: AdminServer }), 400: ErrorBody, 403: ErrorBody },
        },
      },
      async (request, reply) => {
        await reauth.require(request);
        return reply.status(201).send(await service.create(actorOf(request), request.body, baseOf(request)));
      },
    );

    app.post(
      '/api/admin/servers/:id/token',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary:
            'Rota el token del agente (con X-Reauth; el anterior deja de valer al instante); muestra el comando de instalación',
          params: IdParams,
          response: { 200: AgentInstall, 403: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        await reauth.require(request);
        return service.rotateToken(actorOf(request), request.params.id, baseOf(request));
      },
    );

    app.post(
      '/api/admin/servers/:id/agent-upgrade',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary:
            'Actualizar agente: el agente conectado descarga el archivo actual del panel, comprueba su SHA-256, se reemplaza y se reinicia sin cortar los túneles; el resultado llega en agent_upgrade',
          params: IdParams,
          response: { 202: AdminServerDetail, 404: ErrorBody, 409: ErrorBody, 503: ErrorBody },
        },
      },
      async (request, reply) =>
        reply.status(202).send(await service.requestAgentUpgrade(actorOf(request), request.params.id)),
    );

    app.patch(
      '/api/admin/servers/:id',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary:
            'Edita nombre, host, puerto, ubicación, activo y salas de un servidor (host o puerto, con X-Reauth)',
          params: IdParams,
          body: ServerPatch,
          response: { 200: AdminServer, 400: ErrorBody, 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => {
        if (Object.keys(request.body).length === 0) throw badRequest(fleetMsg.nothingToChange);
        // Named at all, not only when different: the whole request is refused, so nothing changes.
        if (request.body.host !== undefined || request.body.port !== undefined) await reauth.require(request);
        return service.update(actorOf(request), request.params.id, request.body);
      },
    );

    app.post(
      '/api/admin/servers/:id/drain',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary:
            'Desactiva el servidor y mueve todos sus peers a otros servidores activos (mismas direcciones); progreso en GET /servers/{id}',
          params: IdParams,
          body: z.object({ reason: Reason.optional() }).strict().optional(),
          response: { 202: DrainProgress, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) =>
        reply.status(202).send(await drains.start(actorOf(request), request.params.id, request.body?.reason)),
    );

    app.delete(
      '/api/admin/servers/:id',
      {
        config: { permission: 'servers.write' },
        schema: {
          ...admin,
          summary: 'Elimina un servidor sin peers (con X-Reauth; si tiene peers, 409: drénelo antes)',
          params: IdParams,
          response: { 204: z.null(), 403: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        await reauth.require(request);
        await service.remove(actorOf(request), request.params.id);
        return reply.status(204).send(null);
      },
    );
  };

export default adminServerRoutes;
