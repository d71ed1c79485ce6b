import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, MetricsRange, MetricsSeries, can } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { managerRoleOf } from '../../plugins/auth.ts';
import { metricsSeries, resolveRange } from '../../services/fleet/metrics.ts';

/** The Resumen charts' daily series (revenue only for roles that may see revenue). */
export const adminMetricsRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/metrics/series',
      {
        config: { permission: 'overview.read' },
        schema: {
          tags: ['admin'],
          summary:
            'Series diarias (UTC) para los gráficos: ingresos, clientes nuevos, peers activos y, por servidor, peers, en línea y tráfico',
          security: [{ bearer: [] }],
          querystring: MetricsRange,
          response: { 200: MetricsSeries, 400: ErrorBody },
        },
      },
      async (request) =>
        metricsSeries(
          ctx.db,
          resolveRange(request.query.from, request.query.to),
          can(managerRoleOf(request), 'revenue.read'),
        ),
    );
  };

export default adminMetricsRoutes;
