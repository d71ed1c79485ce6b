import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  CustomerLinks,
  CustomerLinksPatch,
  ErrorBody,
  GatewayPatch,
  GatewaySettings,
  ROOM_MEMBER_LIMIT,
  SiteSettings,
  fleetMsg,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { badRequest } from '../../lib/errors.ts';
import { actorOf } from '../../plugins/auth.ts';
import { readSiteSettings, savePublicSwitches } from '../../services/site/settings.ts';
import { ANDROID_APK_PATH, androidApkSize, getSiteLinks, saveSiteLinks } from '../../services/site/links.ts';
import { recoveryChannels } from '../../services/telegram/recovery.ts';
import { resendAllServers } from '../../services/fleet/desiredState.ts';
import { ReauthService } from '../../plugins/reauth.ts';

const roomLimitMessage = `Una sala admite entre ${ROOM_MEMBER_LIMIT.min} y ${ROOM_MEMBER_LIMIT.max} peers.`;

/** The settings `settings.public` may change; gateway switches are not among them. */
const PublicSwitchesPatch = z
  .strictObject(
    {
      maintenance: z.boolean(),
      allow_registration: z.boolean(),
      allow_password_recovery: z.boolean(),
      show_landing: z.boolean(),
      allow_email: z.boolean(),
      allow_partys: z.boolean(),
      allow_discovery: z.boolean(),
      room_member_limit: z
        .number({ error: roomLimitMessage })
        .int(roomLimitMessage)
        .min(ROOM_MEMBER_LIMIT.min, roomLimitMessage)
        .max(ROOM_MEMBER_LIMIT.max, roomLimitMessage),
    },
    {
      error: (issue) =>
        issue.code === 'unrecognized_keys'
          ? 'Ajuste desconocido. Las pasarelas de pago se cambian en PATCH /api/admin/settings/gateways.'
          : undefined,
    },
  )
  .partial();

/**
 * Site switches (maintenance, registration, landing, rooms, e-mail) for `settings.public`; payment
 * gateways (switches and credentials) apart, for `settings.gateways` (owner only).
 */
export const adminSettingsRoutes =
  (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/admin/settings',
      {
        config: { permission: 'settings.read' },
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
        config: { permission: 'settings.public' },
        schema: {
          tags: ['admin'],
          summary: 'Cambia interruptores públicos del sitio (solo los enviados; no las pasarelas)',
          security: [{ bearer: [] }],
          body: PublicSwitchesPatch,
          response: { 200: SiteSettings, 400: ErrorBody },
        },
      },
      async (request) => {
        const before = await readSiteSettings(ctx.db);
        const saved = await savePublicSwitches(ctx.db, ctx.bus, actorOf(request), request.body);
        // Discovery is enforced by the nodes: every agent gets its relay rules again.
        if (saved.allow_discovery !== before.allow_discovery) await resendAllServers(ctx.db, ctx.bus);
        return saved;
      },
    );

    /** The customer links and what they depend on, as the console shows them. */
    const links = async (): Promise<CustomerLinks> => {
      const [saved, size, recovery] = await Promise.all([
        getSiteLinks(ctx.db),
        androidApkSize(ctx.config.androidApkFile),
        recoveryChannels(ctx),
      ]);
      return {
        support_url: saved.support_url,
        support_url_env: ctx.config.supportUrl ?? null,
        android_app_url: saved.android_app_url,
        android_apk: size === null ? null : { url: ANDROID_APK_PATH, size },
        recovery,
      };
    };

    app.get(
      '/api/admin/settings/links',
      {
        config: { permission: 'settings.read' },
        schema: {
          tags: ['admin'],
          summary: 'Enlaces para clientes (soporte, app de Android) y por dónde se recupera una contraseña',
          security: [{ bearer: [] }],
          response: { 200: CustomerLinks },
        },
      },
      links,
    );

    app.patch(
      '/api/admin/settings/links',
      {
        config: { permission: 'settings.public' },
        schema: {
          tags: ['admin'],
          summary:
            'Cambia el enlace de soporte (gana a SUPPORT_URL) o el de la app de Android (X-Reauth: es lo que instalan los clientes); null los quita',
          security: [{ bearer: [] }],
          body: CustomerLinksPatch,
          response: { 200: CustomerLinks, 400: ErrorBody, 403: ErrorBody },
        },
      },
      async (request) => {
        if (Object.keys(request.body).length === 0) throw badRequest(fleetMsg.nothingToChange);
        // The Android app's link is what customers download and install: pointing it somewhere wants
        // a fresh confirmation, like publishing a client-app version (a stolen session alone must
        // not hand every customer its own build). Clearing it and the support link do not.
        await saveSiteLinks(ctx.db, actorOf(request), request.body, async (clean) => {
          if (clean.android_app_url) await new ReauthService(ctx).require(request);
        });
        return links();
      },
    );

    app.get(
      '/api/admin/settings/gateways',
      {
        config: { permission: 'settings.gateways' },
        schema: {
          tags: ['admin'],
          summary: 'Pasarelas de pago: interruptores y si hay credenciales (nunca las credenciales)',
          security: [{ bearer: [] }],
          response: { 200: GatewaySettings },
        },
      },
      async () => ctx.gatewayCredentials.status(),
    );

    app.patch(
      '/api/admin/settings/gateways',
      {
        config: { permission: 'settings.gateways' },
        schema: {
          tags: ['admin'],
          summary:
            'Cambia interruptores y credenciales de las pasarelas (cifradas; null las olvida y vuelven las del entorno)',
          security: [{ bearer: [] }],
          body: GatewayPatch,
          response: { 200: GatewaySettings, 400: ErrorBody },
        },
      },
      async (request) => {
        if (Object.keys(request.body).length === 0) throw badRequest(fleetMsg.nothingToChange);
        // Credentials decide where customers' money goes: only with a fresh confirmation.
        if (request.body.qvapay !== undefined || request.body.remesita !== undefined)
          await new ReauthService(ctx).require(request);
        return ctx.gatewayCredentials.update(actorOf(request), request.body);
      },
    );
  };

export default adminSettingsRoutes;
