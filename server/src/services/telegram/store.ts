import { and, eq, gt, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  customers,
  managers,
  telegramBroadcasts,
  telegramLease,
  telegramLinkCodes,
  telegramLinks,
  telegramSent,
  telegramUpdates,
} from '../../db/schema.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

export type Realm = 'customer' | 'manager';

/** How long a "Vincular Telegram" code is valid. */
export const CODE_TTL_MS = 10 * 60_000;
/** Roles whose managers may link a chat and receive alerts. */
export const ALERT_ROLES = ['owner', 'operations'];

/**
 * A customer's link is valid while the account is active and its sessions were not revoked after
 * the link was made (password change, disabled by a manager): those end the link.
 */
export const customerLinkValid: SQL = sql`${customers.active} and (${customers.sessionsValidAfter} is null or ${customers.sessionsValidAfter} < ${telegramLinks.linkedAt})`;
/** A manager's link also needs an alert role and two-factor sign-in still enrolled. */
export const managerLinkValid: SQL = sql`${managers.active} and ${managers.role} in ('owner', 'operations') and ${managers.totpEnabledAt} is not null and (${managers.sessionsValidAfter} is null or ${managers.sessionsValidAfter} < ${telegramLinks.linkedAt})`;

export interface CustomerLink {
  id: number;
  chatId: number;
  customerId: number;
  username: string;
}

export interface Prefs {
  reminders: boolean;
  allowance: boolean;
  payments: boolean;
  announcements: boolean;
  concurrent: boolean;
}

/** Links, one-time codes, sent-notice claims, handled updates and the poller's lease. */
export class TelegramStore {
  constructor(private readonly db: Db) {}

  /** A new one-time code for an account (10 minutes, single use); only its hash is stored. */
  async newCode(
    realm: Realm,
    subjectId: number,
    now = new Date(),
  ): Promise<{ code: string; expiresAt: Date }> {
    const code = randomToken(24); // 32 characters of [A-Za-z0-9_-]: a valid /start parameter
    const expiresAt = new Date(now.getTime() + CODE_TTL_MS);
    // One live code per account: a new one replaces the last (asking again cannot pile rows up).
    await this.db
      .delete(telegramLinkCodes)
      .where(and(eq(telegramLinkCodes.realm, realm), eq(telegramLinkCodes.subjectId, subjectId)));
    await this.db.insert(telegramLinkCodes).values({ codeHash: sha256(code), realm, subjectId, expiresAt });
    // Old codes are of no use to anyone.
    await this.db
      .delete(telegramLinkCodes)
      .where(lt(telegramLinkCodes.expiresAt, sql`now() - interval '1 day'`));
    return { code, expiresAt };
  }

  /**
   * Spends a code (one conditional update: a second use, or a second instance, finds it used) and
   * links the chat to its account in place of any earlier chat, and the chat to no other account
   * of that realm. Null when the code is unknown, used or expired.
   */
  async redeem(
    code: string,
    chatId: number,
    now = new Date(),
  ): Promise<{ realm: Realm; subjectId: number } | null> {
    if (!/^[A-Za-z0-9_-]{16,64}$/.test(code)) return null;
    return this.db.transaction(async (tx) => {
      const [spent] = await tx
        .update(telegramLinkCodes)
        .set({ usedAt: now })
        .where(
          and(
            eq(telegramLinkCodes.codeHash, sha256(code)),
            isNull(telegramLinkCodes.usedAt),
            gt(telegramLinkCodes.expiresAt, now),
          ),
        )
        .returning();
      if (!spent) return null;
      const realm = spent.realm as Realm;
      await tx
        .delete(telegramLinks)
        .where(
          and(
            eq(telegramLinks.realm, realm),
            or(eq(telegramLinks.subjectId, spent.subjectId), eq(telegramLinks.chatId, chatId)),
          ),
        );
      await tx.insert(telegramLinks).values({ realm, subjectId: spent.subjectId, chatId, linkedAt: now });
      return { realm, subjectId: spent.subjectId };
    });
  }

  /** The customer this chat is validly linked to, if any. */
  async customerOfChat(chatId: number): Promise<CustomerLink | null> {
    const [row] = await this.db
      .select({
        id: telegramLinks.id,
        chatId: telegramLinks.chatId,
        customerId: customers.id,
        username: customers.username,
      })
      .from(telegramLinks)
      .innerJoin(customers, eq(customers.id, telegramLinks.subjectId))
      .where(and(eq(telegramLinks.realm, 'customer'), eq(telegramLinks.chatId, chatId), customerLinkValid));
    return row ?? null;
  }

  /** The manager this chat is validly linked to, if any. */
  async managerOfChat(chatId: number): Promise<{ id: number; username: string; role: string } | null> {
    const [row] = await this.db
      .select({ id: managers.id, username: managers.username, role: managers.role })
      .from(telegramLinks)
      .innerJoin(managers, eq(managers.id, telegramLinks.subjectId))
      .where(and(eq(telegramLinks.realm, 'manager'), eq(telegramLinks.chatId, chatId), managerLinkValid));
    return row ?? null;
  }

  /** An account's valid link and switches (null: not linked, or the link ended). */
  async linkOf(
    realm: Realm,
    subjectId: number,
  ): Promise<(Prefs & { linkedAt: Date; chatId: number }) | null> {
    const base = {
      linkedAt: telegramLinks.linkedAt,
      chatId: telegramLinks.chatId,
      reminders: telegramLinks.notifyReminders,
      allowance: telegramLinks.notifyAllowance,
      payments: telegramLinks.notifyPayments,
      announcements: telegramLinks.notifyAnnouncements,
      concurrent: telegramLinks.notifyConcurrent,
    };
    const where = and(eq(telegramLinks.realm, realm), eq(telegramLinks.subjectId, subjectId));
    const [row] =
      realm === 'customer'
        ? await this.db
            .select(base)
            .from(telegramLinks)
            .innerJoin(customers, eq(customers.id, telegramLinks.subjectId))
            .where(and(where, customerLinkValid))
        : await this.db
            .select(base)
            .from(telegramLinks)
            .innerJoin(managers, eq(managers.id, telegramLinks.subjectId))
            .where(and(where, managerLinkValid));
    return row ?? null;
  }

  async setPrefs(customerId: number, prefs: Partial<Prefs>): Promise<boolean> {
    const set: Partial<typeof telegramLinks.$inferInsert> = {};
    if (prefs.reminders !== undefined) set.notifyReminders = prefs.reminders;
    if (prefs.allowance !== undefined) set.notifyAllowance = prefs.allowance;
    if (prefs.payments !== undefined) set.notifyPayments = prefs.payments;
    if (prefs.announcements !== undefined) set.notifyAnnouncements = prefs.announcements;
    if (prefs.concurrent !== undefined) set.notifyConcurrent = prefs.concurrent;
    if (Object.keys(set).length === 0) return (await this.linkOf('customer', customerId)) !== null;
    const rows = await this.db
      .update(telegramLinks)
      .set(set)
      .where(and(eq(telegramLinks.realm, 'customer'), eq(telegramLinks.subjectId, customerId)))
      .returning({ id: telegramLinks.id });
    return rows.length > 0;
  }

  /** Ends an account's link; returns the chat it was linked to (to say goodbye), if any. */
  async unlink(realm: Realm, subjectId: number): Promise<number | null> {
    const [row] = await this.db
      .delete(telegramLinks)
      .where(and(eq(telegramLinks.realm, realm), eq(telegramLinks.subjectId, subjectId)))
      .returning({ chatId: telegramLinks.chatId });
    return row?.chatId ?? null;
  }

  /** Ends every link of a chat (/desvincular); returns how many there were. */
  async unlinkChat(chatId: number): Promise<number> {
    const rows = await this.db
      .delete(telegramLinks)
      .where(eq(telegramLinks.chatId, chatId))
      .returning({ id: telegramLinks.id });
    return rows.length;
  }

  /** Deletes links that ended (revoked, disabled, deleted accounts; managers who lost the role or 2FA). */
  async pruneEnded(): Promise<void> {
    await this.db.execute(sql`
      delete from ${telegramLinks} l
      where (l.realm = 'customer' and not exists (
               select 1 from ${customers} where ${customers.id} = l.subject_id and ${customers.active}
                 and (${customers.sessionsValidAfter} is null or ${customers.sessionsValidAfter} < l.linked_at)))
         or (l.realm = 'manager' and not exists (
               select 1 from ${managers} where ${managers.id} = l.subject_id and ${managers.active}
                 and ${managers.role} in ('owner', 'operations') and ${managers.totpEnabledAt} is not null
                 and (${managers.sessionsValidAfter} is null or ${managers.sessionsValidAfter} < l.linked_at)))`);
  }

  /** Claims a notice by its key: true for the one caller (of any instance) that gets to send it. */
  async claim(key: string): Promise<boolean> {
    const rows = await this.db
      .insert(telegramSent)
      .values({ key })
      .onConflictDoNothing()
      .returning({ key: telegramSent.key });
    return rows.length > 0;
  }

  /** Gives a claim back (the send failed for a reason worth retrying). */
  async release(key: string): Promise<void> {
    await this.db.delete(telegramSent).where(eq(telegramSent.key, key));
  }

  /** Claims an update: true for the one instance that answers it. */
  async claimUpdate(updateId: number): Promise<boolean> {
    const rows = await this.db
      .insert(telegramUpdates)
      .values({ updateId })
      .onConflictDoNothing()
      .returning({ id: telegramUpdates.updateId });
    return rows.length > 0;
  }

  /** Old claims and handled updates (Telegram keeps unconfirmed updates for 24 hours). */
  async prune(): Promise<void> {
    await this.db
      .delete(telegramUpdates)
      .where(lt(telegramUpdates.createdAt, sql`now() - interval '2 days'`));
    await this.db.delete(telegramSent).where(lt(telegramSent.createdAt, sql`now() - interval '60 days'`));
  }

  /**
   * Takes or renews the poller's lease for `seconds` (the database's clock, shared by every
   * instance): held by `holder` when free, expired or already its own.
   */
  async lease(holder: string, seconds: number): Promise<boolean> {
    const rows = await this.db
      .insert(telegramLease)
      .values({ name: 'poller', holder, expiresAt: sql`now() + ${`${seconds} seconds`}::interval` })
      .onConflictDoUpdate({
        target: telegramLease.name,
        set: { holder, expiresAt: sql`now() + ${`${seconds} seconds`}::interval` },
        setWhere: or(eq(telegramLease.holder, holder), lt(telegramLease.expiresAt, sql`now()`)),
      })
      .returning({ holder: telegramLease.holder });
    return rows.length > 0;
  }

  /** Gives the lease up (a clean stop): another instance takes over at its next try. */
  async releaseLease(holder: string): Promise<void> {
    await this.db
      .delete(telegramLease)
      .where(and(eq(telegramLease.name, 'poller'), eq(telegramLease.holder, holder)));
  }
}

/** Queues an announcement for every linked chat (in the announcement's own transaction). */
export async function queueBroadcast(db: Db, name: string, message: string): Promise<void> {
  await db.insert(telegramBroadcasts).values({ message: `${name}\n\n${message}` });
}
