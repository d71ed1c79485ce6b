import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ErrorBody, TelegramLink, TelegramPrefsPatch, TelegramStatus } from '@vpn/contracts';
import type { AppContext } from '../../context.ts';
import { principalOf } from '../../plugins/auth.ts';

const schema = { tags: ['telegram'], security: [{ bearer: [] }] };

/** Settings' "Vincular Telegram" / "Desvincular" and the notification switches (services/telegram). */
export default (ctx: AppContext): FastifyPluginAsyncZod =>
  async (app) => {
    app.get(
      '/api/client/telegram',
      {
        schema: {
          ...schema,
          summary: 'Estado de Telegram: disponible, vinculado, avisos',
          response: { 200: TelegramStatus },
        },
      },
      async (request) => ctx.telegram.linkStatus('customer', principalOf(request).id),
    );

    app.post(
      '/api/client/telegram/link',
      {
        schema: {
          ...schema,
          summary: 'Enlace t.me de un solo uso (10 minutos) para vincular un chat',
          response: { 200: TelegramLink, 409: ErrorBody },
        },
      },
      async (request) => ctx.telegram.linkUrl('customer', principalOf(request).id),
    );

    app.patch(
      '/api/client/telegram',
      {
        schema: {
          ...schema,
          summary: 'Cambia los avisos por Telegram',
          body: TelegramPrefsPatch,
          response: { 200: TelegramStatus, 400: ErrorBody, 409: ErrorBody },
        },
      },
      async (request) => ctx.telegram.setPrefs(principalOf(request).id, request.body),
    );

    app.delete(
      '/api/client/telegram',
      { schema: { ...schema, summary: 'Desvincula Telegram', response: { 200: TelegramStatus } } },
      async (request) => {
        const id = principalOf(request).id;
        await ctx.telegram.unlink('customer', id);
        return ctx.telegram.linkStatus('customer', id);
      },
    );
  };
