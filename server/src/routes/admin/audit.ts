import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AuditEntry, AuditQuery, ErrorBody, paged } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { listAudit } from '../../services/site/audit.ts';

/** The audit log: who did what to which record, with every changed field's before and after. */
export const adminAuditRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/audit',
      {
        config: { permission: 'audit.read' },
        schema: {
          tags: ['admin'],
          summary: 'Registro de auditoría, más reciente primero (filtros por gestor y por objetivo)',
          security: [{ bearer: [] }],
          querystring: AuditQuery,
          response: { 200: paged(AuditEntry), 400: ErrorBody },
        },
      },
      async (request) => listAudit(ctx.db, request.query),
    );
  };

export default adminAuditRoutes;
