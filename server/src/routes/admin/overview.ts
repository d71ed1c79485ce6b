import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { AdminMetrics, can } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { managerRoleOf } from '../../plugins/auth.ts';
import { headlineMetrics } from '../../services/fleet/metrics.ts';

/** The manager area's headline numbers. */
export const adminOverviewRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/metrics',
      {
        config: { permission: 'overview.read' },
        schema: {
          tags: ['admin'],
          summary: 'Cifras del servicio',
          security: [{ bearer: [] }],
          response: { 200: AdminMetrics },
        },
      },
      // Revenue figures only for roles that may see revenue (the matrix's revenue.read).
      async (request) => headlineMetrics(ctx.db, can(managerRoleOf(request), 'revenue.read')),
    );
  };

export default adminOverviewRoutes;
