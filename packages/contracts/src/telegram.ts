import { z } from './zod.ts';

/** A customer's Telegram notification switches (Settings). */
export const TelegramPrefs = z.object({
  /** Renewal reminders 72 h and 24 h before expiry. */
  reminders: z.boolean(),
  /** Allowance at 80 % and 100 %. */
  allowance: z.boolean(),
  /** A payment credited. */
  payments: z.boolean(),
  /** Announcements the operator sends by Telegram. */
  announcements: z.boolean(),
  /** Concurrent use of a peer (once the product detects it). */
  concurrent: z.boolean(),
});
export type TelegramPrefs = z.infer<typeof TelegramPrefs>;

/** GET /api/client/telegram, GET /api/admin/me/telegram */
export const TelegramStatus = z.object({
  /** The bot is configured and Telegram accepted its token. */
  available: z.boolean(),
  linked: z.boolean(),
  /** Customers only, when linked. */
  prefs: TelegramPrefs.nullable(),
});
export type TelegramStatus = z.infer<typeof TelegramStatus>;

/** POST …/telegram/link: open `url` (t.me/<bot>?start=<one-time code>) within 10 minutes. */
export const TelegramLink = z.object({ url: z.string(), expires_at: z.string() });
export type TelegramLink = z.infer<typeof TelegramLink>;

/** PATCH /api/client/telegram */
export const TelegramPrefsPatch = TelegramPrefs.partial().strict();
export type TelegramPrefsPatch = z.infer<typeof TelegramPrefsPatch>;

/** GET/PUT /api/admin/settings/telegram (owner): where the token comes from, never the token. */
export const TelegramBotSettings = z.object({
  source: z.enum(['console', 'env', 'none']),
  /** The bot's @username once Telegram accepted the token. */
  bot: z.string().nullable(),
  webhook: z.boolean(),
});
export type TelegramBotSettings = z.infer<typeof TelegramBotSettings>;

/** PUT /api/admin/settings/telegram: a BotFather token, or null to forget the saved one. */
export const TelegramTokenBody = z
  .object({
    token: z
      .string()
      .trim()
      .regex(/^\d{1,20}:[A-Za-z0-9_-]{20,100}$/, {
        message: 'El token no tiene el formato de BotFather (123456789:ABC…).',
      })
      .nullable(),
  })
  .strict();
export type TelegramTokenBody = z.infer<typeof TelegramTokenBody>;
