import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ConcurrentUsePolicy, ConcurrentUsePolicyPatch, ErrorBody } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf } from '../../plugins/auth.ts';

/**
 * Ajustes → Uso simultáneo (issue 19): notify only (default), or notify and regenerate the keys of
 * a peer reported N times within 24 h. Read with `settings.read`, changed with `settings.public`.
 */
export const adminConcurrentUseRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/settings/concurrent-use',
      {
        config: { permission: 'settings.read' },
        schema: {
          tags: ['admin'],
          summary: 'Política ante un peer en uso en más de un dispositivo',
          security: [{ bearer: [] }],
          response: { 200: ConcurrentUsePolicy },
        },
      },
      async () => ctx.concurrentUse.policy(),
    );

    app.patch(
      '/api/admin/settings/concurrent-use',
      {
        config: { permission: 'settings.public' },
        schema: {
          tags: ['admin'],
          summary:
            'Cambia la política de uso simultáneo (solo avisar, o avisar y regenerar tras N detecciones en 24 h)',
          security: [{ bearer: [] }],
          body: ConcurrentUsePolicyPatch,
          response: { 200: ConcurrentUsePolicy, 400: ErrorBody },
        },
      },
      async (request) => ctx.concurrentUse.savePolicy(actorOf(request), request.body),
    );
  };

export default adminConcurrentUseRoutes;
