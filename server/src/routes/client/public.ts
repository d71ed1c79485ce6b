import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createReadStream } from 'node:fs';
import { PlanList, PublicSettings, ServiceStatus, msg } from '@vpn/contracts';
import { z } from 'zod';
import type { AppContext } from '../../context.ts';
import { listActivePlans } from '../../services/billing/plans.ts';
import { ANDROID_APK_PATH, androidApkSize } from '../../services/site/links.ts';
import { getSiteSettings } from '../../services/site/settings.ts';
import { customerPublicSettings } from '../../services/telegram/recovery.ts';

/** Calls every visitor makes: public settings, service status, captcha challenge, plans. */
export const publicRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/client',
      {
        config: { auth: 'public', maintenanceExempt: true },
        schema: { tags: ['public'], summary: 'Ajustes públicos', response: { 200: PublicSettings } },
      },
      async () => customerPublicSettings(ctx),
    );

    app.get(
      '/api/client/status',
      {
        config: { auth: 'public', maintenanceExempt: true },
        schema: { tags: ['public'], summary: 'Estado del servicio', response: { 200: ServiceStatus } },
      },
      async () => ({ maintenance: (await getSiteSettings(ctx.db)).maintenance }),
    );

    app.get(
      '/api/client/captcha',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['public'],
          summary: 'Desafío ALTCHA (prueba de trabajo) para el registro y los inicios de sesión',
          description:
            'Con `username` (y `realm=manager` para gestores), el trabajo crece con los intentos fallidos ' +
            'recientes de ese usuario y de la dirección: un desafío más fácil no sirve para iniciar sesión.',
          querystring: z.object({
            username: z.string().max(1024).optional(),
            realm: z.enum(['customer', 'manager']).optional(),
          }),
          response: {
            200: z.object({
              algorithm: z.string(),
              challenge: z.string(),
              maxnumber: z.number().optional(),
              salt: z.string(),
              signature: z.string(),
            }),
          },
        },
      },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        const { username = '', realm } = request.query;
        const throttle = realm === 'manager' ? ctx.managerLoginThrottle : ctx.loginThrottle;
        return ctx.captcha.challenge(await throttle.captchaFactor(request.ip, username));
      },
    );

    // The APK the operator gives the panel (ANDROID_APK_FILE, issue 32): WireGuard for Android from
    // the panel itself, for customers who cannot reach Google Play. Its size is shown in the help.
    app.get(
      ANDROID_APK_PATH,
      { config: { auth: 'public', maintenanceExempt: true }, schema: { hide: true } },
      async (_request, reply) => {
        const file = ctx.config.androidApkFile;
        const size = await androidApkSize(file);
        if (!file || size === null)
          return reply.status(404).send({ message: msg.notFound, code: 'not_found' });
        return reply
          .header('content-type', 'application/vnd.android.package-archive')
          .header('content-length', size)
          .header('content-disposition', 'attachment; filename="wireguard-android.apk"')
          .header('cache-control', 'no-cache')
          .send(createReadStream(file));
      },
    );

    app.get(
      '/api/client/plans',
      {
        config: { auth: 'public' },
        schema: { tags: ['public'], summary: 'Planes a la venta', response: { 200: PlanList } },
      },
      async () => listActivePlans(ctx.db),
    );
  };

export default publicRoutes;
