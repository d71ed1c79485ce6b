import type { FastifyPluginAsync } from 'fastify';
import type { Update } from 'grammy/types';
import type { AppContext } from '../context.ts';
import { notFound } from '../lib/errors.ts';
import { WEBHOOK_PATH } from '../services/telegram/service.ts';

/**
 * Telegram's webhook (TELEGRAM_WEBHOOK=true): every instance answers it; Telegram proves itself with
 * the secret_token given to setWebhook, sent back in X-Telegram-Bot-Api-Secret-Token.
 */
export const telegramRoutes =
  (ctx: AppContext): FastifyPluginAsync =>
  async (app) => {
    app.post(WEBHOOK_PATH, { schema: { hide: true } }, async (request) => {
      const secret = request.headers['x-telegram-bot-api-secret-token'];
      const ok = await ctx.telegram.webhook(
        typeof secret === 'string' ? secret : undefined,
        request.body as Update,
      );
      if (!ok) throw notFound();
      return {};
    });
  };
