import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, SiteSettings } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { getSiteSettings, readSiteSettings, updateSiteSettings } from '../../services/settings.ts';

/** Site switches (maintenance, registration, landing, rooms, e-mail, payment gateways). */
export const adminSettingsRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/settings',
      {
        schema: {
          tags: ['admin'],
          summary: 'Ajustes del sitio',
          security: [{ bearer: [] }],
          response: { 200: SiteSettings },
        },
      },
      async () => readSiteSettings(ctx.db),
    );

    app.patch(
      '/api/admin/settings',
      {
        schema: {
          tags: ['admin'],
          summary: 'Cambia ajustes del sitio (solo los enviados)',
          security: [{ bearer: [] }],
          body: SiteSettings.partial().strict(),
          response: { 200: SiteSettings, 400: ErrorBody },
        },
      },
      async (request) => {
        await updateSiteSettings(ctx.db, request.body);
        return getSiteSettings(ctx.db);
      },
    );
  };
