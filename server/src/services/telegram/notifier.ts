import { and, asc, eq, gt, inArray, isNotNull, isNull, sql, type Column, type SQL } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import {
  customerNotices,
  customers,
  invoices,
  managers,
  paymentNotices,
  peers,
  servers,
  telegramAlerts,
  telegramBroadcasts,
  telegramLinks,
} from '../../db/schema.ts';
import { can, concurrentMsg, type Permission } from '@vpn/contracts';
import { formatBytes } from '../peers/allowance.ts';
import { NOTICE_GIVE_UP_MS } from '../peers/notices.ts';
import { formatKbit, graceEnd } from '../fleet/peerSpeed.ts';
import { agentOnline } from '../fleet/servers.ts';
import { customerLinkValid, managerLinkValid, type TelegramStore } from './store.ts';
import { t } from './texts.ts';

/** An agent unheard of for this long is reported; its return is reported at once. */
export const OFFLINE_ALERT_MS = 5 * 60_000;
/** An online agent behind its desired revision for this long is reported. */
export const LAG_ALERT_MS = 2 * 60_000;
/** At most one message per alert subject (a server, the database) this often. */
export const ALERT_GAP_MS = 5 * 60_000;
/** Invoices and payment notices older than this are history, not alerts. */
const RECENT = `7 days`;

/** A customer's linked chat (joined after `customers`; `customerLinkValid` says it still holds). */
const customerChat = and(eq(telegramLinks.realm, 'customer'), eq(telegramLinks.subjectId, customers.id))!;

/** The customer notices of events (each has its switch, read when the event is announced). */
export type EventKind = 'payments' | 'allowance' | 'concurrent';

/** One customer notice: the claim that keeps it to one message, its chat and its text. */
interface Notice {
  key: string;
  chatId: number;
  text: string;
}

/** Sends one text to one chat; false when it did not go (already logged). */
export type Send = (chatId: number, text: string) => Promise<boolean>;

/**
 * What the bot tells on its own, run by the lease holder (one instance) every few seconds. Each
 * customer notice is claimed by a key in telegram_sent before it goes (so a fail-over never sends
 * it twice), and only for events after the chat was linked. Manager alerts follow states kept in
 * telegram_alerts: one message per state change, at most one per subject per 5 minutes.
 * `now` is the clock of the rules (windows, durations): tests move it.
 */
export class TelegramNotifier {
  constructor(
    private readonly deps: {
      db: Db;
      store: TelegramStore;
      send: Send;
      companyName: string;
      log: FastifyBaseLogger;
    },
  ) {}

  async tick(now = new Date()): Promise<void> {
    await this.deps.store.pruneEnded();
    await this.reminders(now);
    await this.sendDue('allowance', now);
    await this.sendDue('payments', now);
    await this.sendDue('concurrent', now);
    await this.broadcasts();
    await this.customerNotices();
    await this.agentAlerts(now);
    await this.deliveryAlerts(now);
    await this.paymentNoticeAlerts(now);
  }

  /** Sends under a claim; a send that failed gives the claim back for the next tick. */
  private async once(key: string, chatId: number, text: string): Promise<boolean> {
    return (await this.deliver(key, chatId, text)) === 'sent';
  }

  /** As `once`, telling a send that failed (to be tried again) from one made before. */
  private async deliver(key: string, chatId: number, text: string): Promise<'sent' | 'before' | 'failed'> {
    if (!(await this.deps.store.claim(key))) return 'before';
    if (await this.deps.send(chatId, text)) return 'sent';
    await this.deps.store.release(key);
    return 'failed';
  }

  /** Renewal reminders 72 h and 24 h before expiry (inside 24 h only the 24 h one). */
  async reminders(now: Date): Promise<number> {
    const at = sql`${now.toISOString()}::timestamptz`;
    const rows = await this.deps.db
      .select({ id: peers.id, name: peers.name, expiresAt: peers.expiresAt, chatId: telegramLinks.chatId })
      .from(peers)
      .innerJoin(customers, eq(customers.id, peers.customerId))
      .innerJoin(telegramLinks, customerChat)
      .where(
        and(
          customerLinkValid,
          eq(telegramLinks.notifyReminders, true),
          eq(peers.active, true),
          gt(peers.expiresAt, at),
          sql`${peers.expiresAt} <= ${at} + interval '72 hours'`,
        ),
      );
    let sent = 0;
    for (const row of rows) {
      const hours = row.expiresAt!.getTime() - now.getTime() <= 24 * 3600_000 ? 24 : 72;
      const key = `reminder:${hours}:${row.id}:${row.expiresAt!.getTime()}`;
      if (await this.once(key, row.chatId, t.reminder(row.name, hours, row.expiresAt!))) sent++;
    }
    return sent;
  }

  /**
   * Switching event notices back on (`kinds`, for one customer whose switches for them are off now):
   * the events that happened while they were off are never announced (issue 26: a notice is decided
   * when its event happens). Claims every notice of those kinds that would be due, without sending
   * it; run before the switches turn on.
   */
  async silence(customerId: number, kinds: readonly EventKind[]): Promise<void> {
    for (const kind of kinds)
      for (const notice of await this.due(kind, new Date(), customerId))
        await this.deps.store.claim(notice.key);
  }

  /**
   * The event notices of `kind` due now (each with its claim key): for chats whose switch is on, or,
   * with `customerId`, for that customer's chat whatever its switch says (to silence them).
   */
  private async due(kind: EventKind, now: Date, customerId?: number): Promise<Notice[]> {
    const who = (flag: Column) => (customerId === undefined ? eq(flag, true) : eq(customers.id, customerId));
    if (kind === 'payments') return this.paymentNotices(who(telegramLinks.notifyPayments), now);
    if (kind === 'allowance') return this.allowanceNotices(who(telegramLinks.notifyAllowance));
    return this.concurrentNotices(who(telegramLinks.notifyConcurrent));
  }

  private async sendDue(kind: EventKind, now: Date): Promise<void> {
    for (const notice of await this.due(kind, now)) await this.once(notice.key, notice.chatId, notice.text);
  }

  /** The allowance's 80 % notice and its 100 % switch-off, as AllowanceService recorded them. */
  private async allowanceNotices(who: SQL): Promise<Notice[]> {
    const rows = await this.deps.db
      .select({
        id: peers.id,
        name: peers.name,
        used: peers.dataUsed,
        allowance: peers.dataAllowance,
        noticeAt: peers.dataNoticeAt,
        exhaustedAt: peers.dataExhaustedAt,
        reducedAt: peers.speedReducedAt,
        reducedReason: peers.speedReducedReason,
        reducedKbit: peers.reducedKbit,
        reduce: peers.reduceOnExhausted,
        expiresAt: peers.expiresAt,
        graceDays: peers.graceDays,
        chatId: telegramLinks.chatId,
        linkedAt: telegramLinks.linkedAt,
      })
      .from(peers)
      .innerJoin(customers, eq(customers.id, peers.customerId))
      .innerJoin(telegramLinks, customerChat)
      .where(
        and(
          customerLinkValid,
          who,
          sql`(${peers.dataAllowance} is not null or ${peers.speedReducedAt} is not null)`,
          sql`(${peers.dataNoticeAt} >= ${telegramLinks.linkedAt} or ${peers.dataExhaustedAt} >= ${telegramLinks.linkedAt} or ${peers.speedReducedAt} >= ${telegramLinks.linkedAt})`,
        ),
      );
    const notices: Notice[] = [];
    for (const row of rows) {
      // Issue 35: the plan's grace after expiry, at its reduced speed (one notice per expiry).
      if (row.reducedReason === 'expired' && row.reducedAt && row.reducedAt >= row.linkedAt) {
        notices.push({
          key: `grace:${row.id}:${row.reducedAt.getTime()}`,
          chatId: row.chatId,
          text: t.graceReduced(row.name, formatKbit(row.reducedKbit), graceEnd(row)!),
        });
        continue;
      }
      if (row.exhaustedAt && row.exhaustedAt >= row.linkedAt) {
        notices.push({
          key: `data100:${row.id}:${row.exhaustedAt.getTime()}`,
          chatId: row.chatId,
          // Out of data on a plan that reduces instead of cutting (issue 35): still online.
          text:
            row.reducedReason === 'data'
              ? t.dataReduced(row.name, formatKbit(row.reducedKbit))
              : t.data100(row.name),
        });
      } else if (row.noticeAt && row.noticeAt >= row.linkedAt && !row.exhaustedAt) {
        notices.push({
          key: `data80:${row.id}:${row.noticeAt.getTime()}`,
          chatId: row.chatId,
          text: row.reduce
            ? t.data80Reduce(
                row.name,
                formatBytes(row.used),
                formatBytes(row.allowance!),
                formatKbit(row.reducedKbit),
              )
            : t.data80(row.name, formatBytes(row.used), formatBytes(row.allowance!)),
        });
      }
    }
    return notices;
  }

  /** A paid invoice delivered (credited) after the chat was linked. */
  private async paymentNotices(who: SQL, now: Date): Promise<Notice[]> {
    const rows = await this.deps.db
      .select({
        id: invoices.id,
        plan: invoices.planName,
        amount: invoices.amount,
        newPeer: invoices.newPeerName,
        peer: peers.name,
        chatId: telegramLinks.chatId,
      })
      .from(invoices)
      .innerJoin(customers, eq(customers.id, invoices.customerId))
      .innerJoin(telegramLinks, customerChat)
      .leftJoin(peers, eq(peers.id, invoices.peerId))
      .where(
        and(
          customerLinkValid,
          who,
          eq(invoices.status, 'paid'),
          isNotNull(invoices.creditedAt),
          sql`${invoices.paidAt} > ${now.toISOString()}::timestamptz - ${RECENT}::interval`,
          sql`${invoices.creditedAt} >= ${telegramLinks.linkedAt}`,
        ),
      );
    return rows.map((row) => ({
      key: `paid:${row.id}`,
      chatId: row.chatId,
      text: t.paid(row.plan, row.peer ?? row.newPeer ?? '', row.amount),
    }));
  }

  /** A peer flagged in use on two devices at once (issue 19): once per episode (`concurrent_use_at`). */
  private async concurrentNotices(who: SQL): Promise<Notice[]> {
    const rows = await this.deps.db
      .select({ id: peers.id, name: peers.name, at: peers.concurrentUseAt, chatId: telegramLinks.chatId })
      .from(peers)
      .innerJoin(customers, eq(customers.id, peers.customerId))
      .innerJoin(telegramLinks, customerChat)
      .where(
        and(
          customerLinkValid,
          who,
          isNotNull(peers.concurrentUseAt),
          sql`${peers.concurrentUseAt} >= ${telegramLinks.linkedAt}`,
        ),
      );
    return rows.map((row) => ({
      key: `concurrent:${row.id}:${row.at!.getTime()}`,
      chatId: row.chatId,
      text: concurrentMsg.detected(row.name),
    }));
  }

  /** Announcements ticked "enviar por Telegram": to every chat linked when it was published. */
  private async broadcasts(): Promise<void> {
    const pending = await this.deps.db
      .select()
      .from(telegramBroadcasts)
      .where(isNull(telegramBroadcasts.doneAt))
      .orderBy(asc(telegramBroadcasts.id));
    for (const b of pending) {
      const chats = await this.deps.db
        .select({ id: telegramLinks.id, chatId: telegramLinks.chatId })
        .from(telegramLinks)
        .innerJoin(customers, eq(customers.id, telegramLinks.subjectId))
        .where(
          and(
            eq(telegramLinks.realm, 'customer'),
            customerLinkValid,
            eq(telegramLinks.notifyAnnouncements, true),
            sql`${telegramLinks.linkedAt} <= ${b.createdAt.toISOString()}::timestamptz`,
          ),
        );
      let failed = false;
      for (const chat of chats) {
        const key = `announcement:${b.id}:${chat.id}`;
        const text = t.announcement(this.deps.companyName, b.message);
        if ((await this.deliver(key, chat.chatId, text)) === 'failed') failed = true;
      }
      // A chat it could not reach yet (Telegram's flood control, the network) is tried on the next
      // tick; the others hold their claims. After a day it is given up.
      if (failed && Date.now() - b.createdAt.getTime() < 86_400_000) continue;
      await this.deps.db
        .update(telegramBroadcasts)
        .set({ doneAt: sql`now()` })
        .where(eq(telegramBroadcasts.id, b.id));
    }
  }

  /**
   * Notices owed after a bulk action (issue 34, services/peers/notices.ts): one per customer, to
   * each chat they linked; a notice of a customer with no chat is done. A send that failed waits for
   * the next tick (for a day); each goes once (its claim in telegram_sent).
   */
  private async customerNotices(): Promise<void> {
    const rows = await this.deps.db
      .select({
        id: customerNotices.id,
        message: customerNotices.message,
        createdAt: customerNotices.createdAt,
        chatId: telegramLinks.chatId,
      })
      .from(customerNotices)
      .innerJoin(customers, eq(customers.id, customerNotices.customerId))
      .leftJoin(telegramLinks, and(customerChat, customerLinkValid))
      .where(isNull(customerNotices.telegramAt))
      .orderBy(asc(customerNotices.id))
      .limit(100);
    const waiting = new Set<number>();
    for (const r of rows) {
      if (r.chatId === null) continue;
      const outcome = await this.deliver(
        `notice:${r.id}:${r.chatId}`,
        r.chatId,
        t.announcement(this.deps.companyName, r.message),
      );
      if (outcome === 'failed' && Date.now() - r.createdAt.getTime() < NOTICE_GIVE_UP_MS) waiting.add(r.id);
    }
    const done = [...new Set(rows.map((r) => r.id))].filter((id) => !waiting.has(id));
    if (done.length)
      await this.deps.db
        .update(customerNotices)
        .set({ telegramAt: sql`now()` })
        .where(inArray(customerNotices.id, done));
  }

  /**
   * Chats of the managers who get alerts (owner, operations; two-factor on; link not ended) and
   * whose role may see what the alert tells (docs/permissions.md): the console's rule, in the chat.
   */
  async managerChats(permission: Permission): Promise<number[]> {
    const rows = await this.deps.db
      .select({ chatId: telegramLinks.chatId, role: managers.role })
      .from(telegramLinks)
      .innerJoin(managers, eq(managers.id, telegramLinks.subjectId))
      .where(and(eq(telegramLinks.realm, 'manager'), managerLinkValid));
    return rows.filter((r) => can(r.role, permission)).map((r) => r.chatId);
  }

  private async toManagers(permission: Permission, text: string): Promise<void> {
    for (const chat of await this.managerChats(permission)) await this.deps.send(chat, text);
  }

  /**
   * One alert subject's state machine. `observed` is what is true now; a bad state counts once it
   * has lasted `after` ms, a good one at once. A change from what was last told is told, unless
   * the subject was told something less than ALERT_GAP_MS ago (then at a later tick). A subject
   * seen for the first time counts as told good since now (a server already down when the bot
   * starts is reported once it has been seen down for the whole delay). Told to the managers whose
   * role has `permission` (servers' states: `servers.read`).
   */
  async track(
    key: string,
    observed: string,
    good: string,
    after: number,
    now: Date,
    message: (state: string) => string,
    known?: Map<string, typeof telegramAlerts.$inferSelect>,
    permission: Permission = 'servers.read',
  ): Promise<void> {
    const [row] = known
      ? [known.get(key)].filter((r) => r !== undefined)
      : await this.deps.db.select().from(telegramAlerts).where(eq(telegramAlerts.key, key));
    if (!row) {
      await this.deps.db
        .insert(telegramAlerts)
        .values({ key, observed, observedSince: now, notified: good, notifiedAt: null })
        .onConflictDoNothing();
      return;
    }
    let since = row.observedSince;
    if (row.observed !== observed) {
      since = now;
      await this.deps.db
        .update(telegramAlerts)
        .set({ observed, observedSince: now })
        .where(eq(telegramAlerts.key, key));
    }
    // `lagging@<acked>`: the part after @ restarts the delay when it changes, the state is before it.
    const kind = observed.split('@')[0]!;
    const settled = kind === good || now.getTime() - since.getTime() >= after;
    const state = settled ? kind : row.notified;
    if (state === row.notified || state === null) return;
    // A last message "in the future" (another instance's clock, after a fail-over) does not hold this one.
    const elapsed = row.notifiedAt ? now.getTime() - row.notifiedAt.getTime() : Infinity;
    if (elapsed >= 0 && elapsed < ALERT_GAP_MS) return;
    // Claimed by its (state, time) so two holders in a fail-over cannot both send it.
    const [won] = await this.deps.db
      .update(telegramAlerts)
      .set({ notified: state, notifiedAt: now })
      .where(
        and(
          eq(telegramAlerts.key, key),
          row.notified === null ? isNull(telegramAlerts.notified) : eq(telegramAlerts.notified, row.notified),
        ),
      )
      .returning({ key: telegramAlerts.key });
    if (won) await this.toManagers(permission, message(state));
  }

  /** Agents offline for more than 5 minutes (and back), and online agents lagging for more than 2. */
  private async agentAlerts(now: Date): Promise<void> {
    const rows = await this.deps.db.select().from(servers).where(eq(servers.active, true));
    // Every subject's state in one read (two per server otherwise, every cycle).
    const known = new Map((await this.deps.db.select().from(telegramAlerts)).map((r) => [r.key, r]));
    // Servers switched off or deleted are not watched: their states go, so a return starts afresh.
    const watched = new Set(rows.flatMap((r) => [`agent:${r.id}`, `lag:${r.id}`]));
    const gone = [...known.keys()].filter((k) => !watched.has(k));
    if (gone.length) await this.deps.db.delete(telegramAlerts).where(inArray(telegramAlerts.key, gone));
    for (const s of rows) {
      // Online as the console counts it (the agents' stamps are the instances' real clocks).
      const online = agentOnline(s);
      await this.track(
        `agent:${s.id}`,
        online ? 'online' : 'offline',
        'online',
        OFFLINE_ALERT_MS,
        now,
        (state) => (state === 'offline' ? t.agentOffline(s.name) : t.agentBack(s.name)),
        known,
      );
      const lagging = online && s.revision > s.ackedRevision;
      await this.track(
        `lag:${s.id}`,
        // Behind and not moving: any ack restarts the 2 minutes (a busy server that keeps up is fine).
        lagging ? `lagging@${s.ackedRevision}` : 'ok',
        'ok',
        LAG_ALERT_MS,
        now,
        (state) =>
          state === 'lagging'
            ? t.agentLagging(s.name, s.revision - s.ackedRevision)
            : t.agentCaughtUp(s.name),
        known,
      );
    }
  }

  /** A paid invoice whose delivery failed (the scheduler keeps retrying it): told once. */
  private async deliveryAlerts(now: Date): Promise<void> {
    const rows = await this.deps.db
      .select({
        id: invoices.id,
        plan: invoices.planName,
        attempts: invoices.deliveryAttempts,
        customer: customers.username,
      })
      .from(invoices)
      .innerJoin(customers, eq(customers.id, invoices.customerId))
      .where(
        and(
          eq(invoices.status, 'paid'),
          isNull(invoices.creditedAt),
          gt(invoices.deliveryAttempts, 0),
          sql`${invoices.paidAt} > ${now.toISOString()}::timestamptz - ${RECENT}::interval`,
        ),
      );
    for (const row of rows)
      if (await this.deps.store.claim(`delivery:${row.id}`))
        // The invoice, its plan and customer: what Facturas shows, to roles that read invoices.
        await this.toManagers(
          'invoices.read',
          t.deliveryFailed(row.id, row.plan, row.customer, row.attempts),
        );
  }

  /** Money a gateway said arrived that credited nothing (payment_notices.outcome = 'unmatched'). */
  private async paymentNoticeAlerts(now: Date): Promise<void> {
    const rows = await this.deps.db
      .select()
      .from(paymentNotices)
      .where(
        and(
          eq(paymentNotices.outcome, 'unmatched'),
          isNull(paymentNotices.resolvedAt),
          sql`${paymentNotices.createdAt} > ${now.toISOString()}::timestamptz - ${RECENT}::interval`,
        ),
      );
    for (const row of rows)
      if (await this.deps.store.claim(`notice:${row.id}`))
        // Payments without an open invoice are revenue in the console (docs/permissions.md).
        await this.toManagers(
          'revenue.read',
          t.unmatchedPayment(
            row.gateway,
            row.reference,
            row.amount ? `${row.amount} ${row.currency ?? 'USD'}` : 'importe desconocido',
            row.reason,
          ),
        );
  }
}
