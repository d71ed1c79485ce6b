import type { FastifyInstance } from 'fastify';
import type { Db } from '../db/client.ts';
import { auditLog } from '../db/schema.ts';

/**
 * Every successful change a manager makes (any non-GET under /api/admin, login aside) is written to
 * the audit log: who, what route, which ids, from where. Bodies are not stored (they may hold
 * passwords or tokens); the route and its parameters say what was done.
 */
export function registerAudit(app: FastifyInstance, db: Db): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!route?.startsWith('/api/admin/') || request.method === 'GET' || route === '/api/admin/login') return;
    if (reply.statusCode >= 400 || request.principal?.realm !== 'manager') return;
    const params = (request.params ?? {}) as Record<string, unknown>;
    const body = (request.body ?? {}) as Record<string, unknown>;
    // Names of what changed, never values (values may be secrets).
    const fields = typeof body === 'object' && body !== null ? Object.keys(body).sort() : [];
    await db
      .insert(auditLog)
      .values({
        actorRealm: 'manager',
        actorId: request.principal.id,
        action: `${request.method} ${route}`,
        target: Object.values(params).map(String).join(',') || null,
        data: { fields, status: reply.statusCode },
        ip: request.ip,
      })
      .catch((err: unknown) => request.log.error({ err }, 'audit write failed'));
  });
}
