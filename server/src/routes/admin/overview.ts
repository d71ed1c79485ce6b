import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { desc, lt, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { auditLog, customers, invoices, managers, peers, servers } from '../../db/schema.ts';
import { AGENT_OFFLINE_AFTER_MS } from '../../services/servers.ts';

const AuditEntry = z.object({
  id: z.number().int(),
  manager: z.string().nullable(),
  action: z.string(),
  target: z.string().nullable(),
  fields: z.array(z.string()),
  ip: z.string().nullable(),
  created: z.string(),
});

/** The manager area's audit trail and headline numbers. */
export const adminOverviewRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/audit',
      {
        schema: {
          tags: ['admin'],
          summary: 'Registro de auditoría (más reciente primero, paginado por id)',
          security: [{ bearer: [] }],
          querystring: z.object({
            before: z.coerce.number().int().positive().optional(),
            limit: z.coerce.number().int().min(1).max(200).default(50),
          }),
          response: { 200: z.array(AuditEntry) },
        },
      },
      async (request) => {
        const { before, limit } = request.query;
        const rows = await ctx.db
          .select({ entry: auditLog, manager: managers.username })
          .from(auditLog)
          .leftJoin(
            managers,
            sql`${managers.id} = ${auditLog.actorId} and ${auditLog.actorRealm} = 'manager'`,
          )
          .where(before ? lt(auditLog.id, before) : undefined)
          .orderBy(desc(auditLog.id))
          .limit(limit);
        return rows.map(({ entry, manager }) => ({
          id: entry.id,
          manager,
          action: entry.action,
          target: entry.target,
          fields: ((entry.data as { fields?: string[] } | null)?.fields ?? []).map(String),
          ip: entry.ip,
          created: entry.createdAt.toISOString(),
        }));
      },
    );

    app.get(
      '/api/admin/metrics',
      {
        schema: {
          tags: ['admin'],
          summary: 'Cifras del servicio',
          security: [{ bearer: [] }],
          response: {
            200: z.object({
              customers: z.number().int(),
              peers: z.number().int(),
              active_peers: z.number().int(),
              servers: z.number().int(),
              servers_online: z.number().int(),
              invoices_paid_30d: z.number().int(),
              revenue_usd_30d: z.number(),
            }),
          },
        },
      },
      async () => {
        const [row] = await ctx.db
          .select({
            customers: sql<number>`(select count(*)::int from ${customers})`,
            peers: sql<number>`(select count(*)::int from ${peers})`,
            active: sql<number>`(select count(*)::int from ${peers} where active and (expires_at is null or expires_at > now()))`,
            servers: sql<number>`(select count(*)::int from ${servers})`,
            online: sql<number>`(select count(*)::int from ${servers} where last_seen_at > now() - (${AGENT_OFFLINE_AFTER_MS} * interval '1 millisecond'))`,
            paid: sql<number>`(select count(*)::int from ${invoices} where status = 'paid' and paid_at > now() - interval '30 days')`,
            revenue: sql<string>`(select coalesce(sum(amount), 0)::text from ${invoices} where status = 'paid' and paid_at > now() - interval '30 days')`,
          })
          .from(sql`(select 1) as one`);
        return {
          customers: row!.customers,
          peers: row!.peers,
          active_peers: row!.active,
          servers: row!.servers,
          servers_online: row!.online,
          invoices_paid_30d: row!.paid,
          revenue_usd_30d: Number(row!.revenue),
        };
      },
    );
  };
