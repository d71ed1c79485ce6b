import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import {
  ErrorBody,
  TelegramBotSettings,
  TelegramLink,
  TelegramStatus,
  TelegramTokenBody,
} from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { actorOf, principalOf } from '../../plugins/auth.ts';
import { ReauthService } from '../../plugins/reauth.ts';

const schema = { tags: ['admin'], security: [{ bearer: [] }] };

/**
 * A manager's own Telegram link (Seguridad; owner and operations, with two-factor on: the service
 * refuses the others) and the bot token in Ajustes (owner: `settings.gateways`).
 */
export default (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    const reauth = new ReauthService(ctx);
    app.get(
      '/api/admin/me/telegram',
      {
        config: { permission: 'self' },
        schema: {
          ...schema,
          summary: 'Mi vínculo con Telegram (alertas)',
          response: { 200: TelegramStatus },
        },
      },
      async (request) => ctx.telegram.linkStatus('manager', principalOf(request).id),
    );

    app.post(
      '/api/admin/me/telegram/link',
      {
        config: { permission: 'self' },
        schema: {
          ...schema,
          summary:
            'Enlace t.me de un solo uso (10 minutos); propietario y operaciones, con verificación en dos pasos y X-Reauth',
          response: { 200: TelegramLink, 403: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) =>
        ctx.telegram.linkUrl('manager', principalOf(request).id, () => reauth.require(request)),
    );

    app.delete(
      '/api/admin/me/telegram',
      {
        config: { permission: 'self' },
        schema: { ...schema, summary: 'Desvincula mi Telegram', response: { 200: TelegramStatus } },
      },
      async (request) => {
        const id = principalOf(request).id;
        await ctx.telegram.unlink('manager', id);
        return ctx.telegram.linkStatus('manager', id);
      },
    );

    app.get(
      '/api/admin/settings/telegram',
      {
        config: { permission: 'settings.gateways' },
        schema: {
          ...schema,
          summary: 'Bot de Telegram: de dónde sale el token y qué bot es (nunca el token)',
          response: { 200: TelegramBotSettings },
        },
      },
      async () => ctx.telegram.tokenStatus(),
    );

    app.put(
      '/api/admin/settings/telegram',
      {
        config: { permission: 'settings.gateways' },
        schema: {
          ...schema,
          summary: 'Guarda (cifrado) el token del bot, comprobado con getMe; null lo olvida (con X-Reauth)',
          body: TelegramTokenBody,
          response: { 200: TelegramBotSettings, 400: ErrorBody, 403: ErrorBody },
        },
      },
      async (request) => {
        // Whoever holds the token speaks to every linked chat as the panel: a fresh confirmation first.
        await reauth.require(request);
        return ctx.telegram.saveToken(actorOf(request), request.body.token);
      },
    );
  };
