import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { asc, eq, sql } from 'drizzle-orm';
import { z } from 'zod';
import { ErrorBody, Peer, msg } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { originOf } from '../origin.ts';
import { customers, servers } from '../../db/schema.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import {
  agentOnline,
  createServer,
  endpointOf,
  pickServerForNewPeer,
  rotateAgentToken,
  type ServerRow,
} from '../../services/servers.ts';

const text = (max: number) =>
  z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(max));

export const AdminServer = z.object({
  id: z.number().int(),
  name: z.string(),
  endpoint: z.string(),
  ubication: z.string(),
  active: z.boolean(),
  allow_partys: z.boolean(),
  dns: z.string(),
  mtu: z.number().int(),
  interface_name: z.string(),
  public_key: z.string(),
  agent_online: z.boolean(),
  agent_version: z.string().nullable(),
  last_seen_at: z.string().nullable(),
  revision: z.number().int(),
  acked_revision: z.number().int(),
  peers: z.number().int(),
});

const presentAdminServer = (s: ServerRow, peers = 0): z.infer<typeof AdminServer> => ({
  id: s.id,
  name: s.name,
  endpoint: endpointOf(s),
  ubication: s.ubication,
  active: s.active,
  allow_partys: s.allowPartys,
  dns: s.dns,
  mtu: s.mtu,
  interface_name: s.interfaceName,
  public_key: s.publicKey,
  agent_online: agentOnline(s),
  agent_version: s.agentVersion,
  last_seen_at: s.lastSeenAt?.toISOString() ?? null,
  revision: s.revision,
  acked_revision: s.ackedRevision,
  peers,
});

const NewServerBody = z.object({
  name: text(60),
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

/** The manager API for servers and manual peers (the manager area's pages come later, on these routes). */
export const adminServerRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/servers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Servidores VPN',
          security: [{ bearer: [] }],
          response: { 200: z.array(AdminServer) },
        },
      },
      async () => {
        const rows = await ctx.db
          .select({
            server: servers,
            peers: sql<number>`(select count(*)::int from peers p where p.server_id = ${servers.id})`,
          })
          .from(servers)
          .orderBy(asc(servers.id));
        return rows.map((r) => presentAdminServer(r.server, r.peers));
      },
    );

    app.post(
      '/api/admin/servers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Crea un servidor; el token del agente se muestra solo esta vez',
          security: [{ bearer: [] }],
          body: NewServerBody,
          response: { 201: z.object({ server: AdminServer, agent_token: z.string() }), 400: ErrorBody },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const { server, agentToken } = await createServer(ctx.db, ctx.keys.encryption, b);
        return reply.status(201).send({ server: presentAdminServer(server), agent_token: agentToken });
      },
    );

    app.post(
      '/api/admin/servers/:id/token',
      {
        schema: {
          tags: ['admin'],
          summary: 'Rota el token del agente (el anterior deja de valer al instante)',
          security: [{ bearer: [] }],
          params: z.object({
            id: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1),
          }),
          response: { 200: z.object({ agent_token: z.string() }), 404: ErrorBody },
        },
      },
      async (request) => {
        const agentToken = await rotateAgentToken(ctx.db, request.params.id);
        ctx.agents.disconnect(request.params.id);
        return { agent_token: agentToken };
      },
    );

    app.post(
      '/api/admin/peers',
      {
        schema: {
          tags: ['admin'],
          summary: 'Crea un peer para un cliente con un plan (pago manual)',
          security: [{ bearer: [] }],
          body: z.object({
            username: text(64),
            plan: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1),
            name: text(100),
            server: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1)
              .optional(),
          }),
          response: { 201: Peer, 400: ErrorBody, 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (request, reply) => {
        const b = request.body;
        const [customer] = await ctx.db
          .select({ id: customers.id })
          .from(customers)
          .where(sql`lower(${customers.username}) = lower(${b.username.trim()})`);
        if (!customer) throw notFound(msg.customerNotFound);
        let server: ServerRow;
        if (b.server !== undefined) {
          const [row] = await ctx.db.select().from(servers).where(eq(servers.id, b.server));
          if (!row) throw notFound(msg.serverNotFound);
          if (!row.active) throw badRequest(msg.serverUnavailable);
          server = row;
        } else {
          server = await pickServerForNewPeer(ctx.db);
        }
        const peer = await ctx.peers.provision({
          customerId: customer.id,
          planId: b.plan,
          name: b.name,
          server,
          manualPayment: true,
          origin: originOf(request, ctx),
        });
        return reply.status(201).send(peer);
      },
    );

    app.patch(
      '/api/admin/peers/:id',
      {
        schema: {
          tags: ['admin'],
          summary: 'Activa o desactiva un peer, o cambia su fecha de expiración (null = indeterminada)',
          security: [{ bearer: [] }],
          params: z.object({
            id: z.coerce
              .number()
              .int()
              .positive()
              .max(2 ** 31 - 1),
          }),
          body: z
            .object({
              active: z.boolean().optional(),
              expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
            })
            .strict(),
          response: { 200: Peer, 400: ErrorBody, 404: ErrorBody },
        },
      },
      async (request) => {
        const b = request.body;
        return ctx.peers.adminUpdate(
          request.params.id,
          {
            active: b.active,
            expiresAt:
              b.expires_at === undefined ? undefined : b.expires_at === null ? null : new Date(b.expires_at),
          },
          originOf(request, ctx),
        );
      },
    );
  };
