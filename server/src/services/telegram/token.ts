import { eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { settings } from '../../db/schema.ts';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { auditedTransaction, type Actor } from '../site/audit.ts';

/**
 * The bot token saved in Ajustes (owner only): one settings row holding it as AES-256-GCM
 * ciphertext, like the gateway credentials (services/billing/gatewayCredentials.ts), never sent back.
 * A saved token wins over TELEGRAM_BOT_TOKEN; forgetting it falls back to the environment's.
 */
const ROW = 'telegram.bot';

export const TOKEN_RE = /^\d{1,20}:[A-Za-z0-9_-]{20,100}$/;

/** Telegram API URLs carry the token (`/bot<token>/method`): what a log line may show of them. */
export function redactTelegram(text: string): string {
  return text
    .replace(/bot\d{1,20}:[A-Za-z0-9_-]+/g, 'bot[redactado]')
    .replace(/\d{1,20}:[A-Za-z0-9_-]{20,}/g, '[redactado]');
}

export class TelegramToken {
  constructor(
    private readonly db: Db,
    private readonly encryptionKey: Buffer,
    private readonly envToken: string | undefined,
  ) {}

  private async saved(): Promise<string | null> {
    const [row] = await this.db.select().from(settings).where(eq(settings.key, ROW));
    const value = row?.value as { enc?: unknown } | undefined;
    if (typeof value?.enc !== 'string') return null;
    try {
      const token = decrypt(this.encryptionKey, value.enc);
      return TOKEN_RE.test(token) ? token : null;
    } catch {
      return null;
    }
  }

  /** The token in force: Ajustes, else the environment, else null (the bot is off). */
  async current(): Promise<string | null> {
    return (await this.saved()) ?? this.envToken ?? null;
  }

  async source(): Promise<'console' | 'env' | 'none'> {
    if (await this.saved()) return 'console';
    return this.envToken ? 'env' : 'none';
  }

  /** Saves (or with null forgets) the token, audited without it. */
  async save(actor: Actor, token: string | null): Promise<void> {
    const before = await this.saved();
    await auditedTransaction(this.db, actor, async (db, audit) => {
      if (token === null) {
        await db.delete(settings).where(eq(settings.key, ROW));
      } else {
        const enc = encrypt(this.encryptionKey, token);
        await db
          .insert(settings)
          .values({ key: ROW, value: { enc } })
          .onConflictDoUpdate({ target: settings.key, set: { value: { enc }, updatedAt: sql`now()` } });
      }
      if (token !== null || before)
        await audit({
          action: 'settings.telegram',
          targetType: 'settings',
          targetId: 'telegram',
          changes: {
            bot_token: {
              before: before ? 'configurado' : 'no configurado',
              after: token === null ? 'no configurado' : before ? 'configurado (token nuevo)' : 'configurado',
            },
          },
        });
    });
  }
}
