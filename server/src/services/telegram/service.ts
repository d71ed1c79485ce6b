import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { hostname } from 'node:os';
import { Bot, GrammyError, type Api } from 'grammy';
import type { Update } from 'grammy/types';
import type { FastifyBaseLogger } from 'fastify';
import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { managers } from '../../db/schema.ts';
import { HttpError } from '../../lib/errors.ts';
import type { Actor } from '../site/audit.ts';
import type { InvoiceService } from '../billing/invoices.ts';
import type { PeerService } from '../peers/peers.ts';
import { buildBot, describeTelegramError } from './bot.ts';
import { ALERT_GAP_MS, TelegramNotifier, type EventKind } from './notifier.ts';
import { ALERT_ROLES, TelegramStore, type Prefs, type Realm } from './store.ts';
import { COMMANDS, t, telegramMsg } from './texts.ts';
import { TelegramToken, TOKEN_RE } from './token.ts';

/**
 * The Telegram bot (issue 20), built from its dependencies. Every instance runs a cycle every few
 * seconds: it follows the token in force (Ajustes, else TELEGRAM_BOT_TOKEN), and tries to take the
 * poller's lease (a row in telegram_lease, on the database's clock). The holder — exactly one
 * instance — long-polls getUpdates (or, with TELEGRAM_WEBHOOK, registers the webhook that every
 * instance answers) and sends the notices and alerts (notifier.ts). A holder that dies stops
 * renewing; another takes over when the lease runs out (LEASE_SECONDS + one cycle < 30 s). Each
 * update is answered by the instance that records its id first, so two instances never answer one.
 * Commands and texts: bot.ts, texts.ts. Log lines carry Telegram's method and description only: the
 * API's URLs hold the token. A little over 400 lines: the lease, the polling loop, the webhook and
 * the linking calls share one state (the bot in force, leadership), which splitting would expose.
 */

export const CYCLE_MS = 5_000;
export const LEASE_SECONDS = 15;
/** getUpdates' long-poll timeout: shorter than the lease, which is renewed before every call. */
export const POLL_SECONDS = 10;

export const WEBHOOK_PATH = '/api/telegram/webhook';
/** Telegram calls give up after this long (grammY's default is 500 s); getUpdates' long poll fits. */
export const API_TIMEOUT_SECONDS = 30;
const STOP_WAIT_MS = 5_000;

/** The signal type grammY's API methods declare (the abort-controller polyfill's). */
type GrammySignal = NonNullable<Parameters<Api['getUpdates']>[1]>;

/**
 * Node's AbortSignal as grammY's: its types name the abort-controller polyfill's class, whose
 * event typings differ from Node's, but at run time grammY only reads `aborted` and listens for
 * `abort`, which Node's signal has.
 */
function grammySignal(signal: AbortSignal): AbortSignal & GrammySignal {
  if (!isGrammySignal(signal)) throw new TypeError('not an AbortSignal');
  return signal;
}

function isGrammySignal(signal: AbortSignal): signal is AbortSignal & GrammySignal {
  return typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function';
}

export interface TelegramDeps {
  db: Db;
  encryptionKey: Buffer;
  telegram: { token: string | undefined; apiUrl: string; webhook: boolean };
  publicUrl: string | undefined;
  companyName: string;
  /** The support link in force (Ajustes → Enlaces para clientes, else SUPPORT_URL). */
  supportUrl: () => Promise<string | null>;
  peers: PeerService;
  /** InvoiceService.create (built after this service, hence a function). */
  createInvoice: InvoiceService['create'];
  log: FastifyBaseLogger;
  /** Send notices and alerts from the cycle (default true; tests run notifier.tick with a moved clock). */
  notices?: boolean;
  cycleMs?: number;
  leaseSeconds?: number;
  pollSeconds?: number;
}

interface Handle {
  token: string;
  bot: Bot;
  username: string;
}

export interface LinkStatus {
  available: boolean;
  linked: boolean;
  prefs: Prefs | null;
}

export class TelegramService {
  readonly store: TelegramStore;
  readonly tokens: TelegramToken;
  readonly notifier: TelegramNotifier;
  /** This instance in the lease row: host and pid (for operators, and tests that kill the holder). */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private handle: Handle | null = null;
  private leader = false;
  private abort: AbortController | null = null;
  private polling: Promise<void> | null = null;
  private timer: NodeJS.Timeout | undefined;
  private cycling: Promise<void> | null = null;
  private stopped = false;
  private badToken: { token: string; at: number } | null = null;
  private webhookSet: string | null = null;
  private managerChats: number[] = [];
  private databaseDownAt = 0;
  /** Until when Telegram's flood control holds our sends (a 429's retry_after). */
  private floodUntil = 0;
  private databaseDownTold = false;

  constructor(private readonly deps: TelegramDeps) {
    this.store = new TelegramStore(deps.db);
    this.tokens = new TelegramToken(deps.db, deps.encryptionKey, deps.telegram.token);
    this.notifier = new TelegramNotifier({
      db: deps.db,
      store: this.store,
      send: (chatId, text) => this.send(chatId, text),
      companyName: deps.companyName,
      log: deps.log,
    });
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => void this.cycle(), this.deps.cycleMs ?? CYCLE_MS);
    this.timer.unref();
    void this.cycle();
  }

  /** Stops polling and gives the lease up, so another instance takes over at its next cycle. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    // A cycle stuck on an unreachable Telegram does not hold the shutdown up for long.
    const settle = (p: Promise<unknown> | null) =>
      Promise.race([p, new Promise((r) => setTimeout(r, STOP_WAIT_MS).unref())]);
    await settle(this.cycling);
    const wasLeader = this.leader;
    this.leader = false;
    this.abort?.abort();
    await settle(this.polling);
    if (wasLeader) await this.store.releaseLease(this.holder).catch(() => {});
  }

  /** Whether this instance holds the lease (polls and sends notices). */
  get isLeader(): boolean {
    return this.leader;
  }

  /** The bot's @username once its token was accepted by getMe. */
  get username(): string | null {
    return this.handle?.username ?? null;
  }

  /** One cycle (also run by tests): token, lease, polling, notices. */
  cycle(): Promise<void> {
    if (this.cycling) return this.cycling;
    this.cycling = this.runCycle().finally(() => (this.cycling = null));
    return this.cycling;
  }

  private async runCycle(): Promise<void> {
    if (this.stopped) return;
    try {
      const handle = await this.ensureBot();
      if (!handle) {
        await this.stopPolling();
        if (this.leader) await this.store.releaseLease(this.holder);
        this.leader = false;
        return;
      }
      // The database answers: remember who gets alerts for when it does not (every alert role may
      // know the service is down: Resumen's operational figures).
      this.managerChats = await this.notifier.managerChats('overview.read');
      if (this.databaseDownTold) {
        this.databaseDownTold = false;
        for (const chat of this.managerChats) await this.send(chat, t.databaseBack);
      }
      if (this.stopped) return;
      const held = await this.store.lease(this.holder, this.deps.leaseSeconds ?? LEASE_SECONDS);
      if (!held) {
        this.leader = false;
        await this.stopPolling();
        return;
      }
      if (!this.leader) await this.lead(handle);
      await this.receive(handle);
      if (this.deps.notices !== false) {
        await this.notifier.tick();
        await this.store.prune();
      }
    } catch (err) {
      this.deps.log.warn(describeTelegramError(err), 'telegram: ciclo fallido');
    }
  }

  /** The bot for the token in force: rebuilt (getMe) when the token changes; null when there is none. */
  private async ensureBot(): Promise<Handle | null> {
    const token = await this.tokens.current();
    if (!token) {
      this.handle = null;
      return null;
    }
    if (this.handle?.token === token) return this.handle;
    // A token Telegram refused is tried again once a minute, not every cycle.
    if (this.badToken?.token === token && Date.now() - this.badToken.at < 60_000) return null;
    await this.stopPolling();
    this.handle = null;
    this.leader = false;
    this.webhookSet = null;
    const bot = buildBot(token, this.deps.telegram.apiUrl, {
      db: this.deps.db,
      store: this.store,
      peers: this.deps.peers,
      createInvoice: this.deps.createInvoice,
      companyName: this.deps.companyName,
      supportUrl: this.deps.supportUrl,
      publicUrl: this.deps.publicUrl,
      log: this.deps.log,
    });
    try {
      await bot.init();
    } catch (err) {
      this.badToken = { token, at: Date.now() };
      this.deps.log.warn(describeTelegramError(err), 'telegram: getMe falló; el bot queda apagado');
      return null;
    }
    this.handle = { token, bot, username: bot.botInfo.username };
    this.deps.log.info({ bot: bot.botInfo.username }, 'telegram: bot activo');
    return this.handle;
  }

  /** Taking the lease: the command menu, and the webhook registered (or removed, to poll). */
  private async lead(handle: Handle): Promise<void> {
    this.leader = true;
    await handle.bot.api
      .setMyCommands(COMMANDS)
      .catch((err: unknown) =>
        this.deps.log.warn(describeTelegramError(err), 'telegram: setMyCommands falló'),
      );
  }

  /** The holder's way in: the webhook registered (retried each cycle until it is), or the poller. */
  private async receive(handle: Handle): Promise<void> {
    if (this.deps.telegram.webhook) {
      if (this.webhookSet === handle.token) return;
      await handle.bot.api.setWebhook(`${this.deps.publicUrl}${WEBHOOK_PATH}`, {
        secret_token: this.webhookSecret(handle.token),
        allowed_updates: ['message', 'callback_query'],
      });
      this.webhookSet = handle.token;
      return;
    }
    if (this.polling) return;
    if (this.webhookSet !== `none:${handle.token}`) {
      // getUpdates does not work while a webhook is set; a failure here is logged, polling tells.
      await handle.bot.api
        .deleteWebhook()
        .catch((err: unknown) =>
          this.deps.log.warn(describeTelegramError(err), 'telegram: deleteWebhook falló'),
        );
      this.webhookSet = `none:${handle.token}`;
    }
    this.startPolling(handle);
  }

  private startPolling(handle: Handle): void {
    const abort = new AbortController();
    this.abort = abort;
    const loop = async () => {
      let offset: number | undefined;
      while (!abort.signal.aborted && this.handle === handle && this.leader) {
        try {
          // Fenced: polls only while the lease is still this instance's.
          if (!(await this.store.lease(this.holder, this.deps.leaseSeconds ?? LEASE_SECONDS))) {
            this.leader = false;
            break;
          }
          const asked = Date.now();
          const updates = await handle.bot.api.getUpdates(
            {
              timeout: this.deps.pollSeconds ?? POLL_SECONDS,
              allowed_updates: ['message', 'callback_query'],
              ...(offset !== undefined ? { offset } : {}),
            },
            grammySignal(abort.signal),
          );
          for (const update of updates) {
            offset = update.update_id + 1;
            await this.answer(handle, update);
          }
          // An API that answers an empty poll at once (no long polling) is asked once a second.
          if (updates.length === 0 && Date.now() - asked < 1000)
            await new Promise((r) => setTimeout(r, 1000));
        } catch (err) {
          if (abort.signal.aborted) break;
          this.deps.log.warn(describeTelegramError(err), 'telegram: getUpdates falló');
          await new Promise((r) => setTimeout(r, 2000));
        }
      }
    };
    const running: Promise<void> = loop().finally(() => {
      if (this.polling === running) this.polling = null;
    });
    this.polling = running;
  }

  private async stopPolling(): Promise<void> {
    this.abort?.abort();
    this.abort = null;
    await this.polling;
    this.polling = null;
  }

  /** Answers an update unless another instance (or an earlier poll) already did. */
  private async answer(handle: Handle, update: Update): Promise<void> {
    if (!(await this.store.claimUpdate(update.update_id))) return;
    try {
      await handle.bot.handleUpdate(update);
    } catch (err) {
      this.deps.log.warn(describeTelegramError(err), 'telegram: actualización no atendida');
    }
  }

  /** The webhook's secret (X-Telegram-Bot-Api-Secret-Token): derived from the token and our key. */
  private webhookSecret(token: string): string {
    return createHmac('sha256', this.deps.encryptionKey)
      .update(`telegram-webhook:${token}`)
      .digest('base64url');
  }

  /** POST /api/telegram/webhook: false when webhooks are off or the secret is wrong. */
  async webhook(secret: string | undefined, update: Update): Promise<boolean> {
    if (!this.deps.telegram.webhook) return false;
    // The bot this instance's cycle made: a request never waits on a call to Telegram.
    const handle = this.handle;
    if (!handle || !secret) return false;
    const expected = Buffer.from(this.webhookSecret(handle.token));
    const given = Buffer.from(secret);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return false;
    if (typeof update?.update_id !== 'number') return true;
    await this.answer(handle, update);
    return true;
  }

  /**
   * Sends a text; false when it should be tried again (network, Telegram's 5xx or 429). A chat that
   * blocked the bot, or no longer exists, counts as sent (the next notice is not held up by it).
   * After a 429 whose retry_after was too long to wait in place, nothing is sent until it has
   * passed: asking again meanwhile only prolongs Telegram's flood control.
   */
  async send(chatId: number, text: string): Promise<boolean> {
    const handle = this.handle;
    if (!handle || Date.now() < this.floodUntil) return false;
    try {
      // Telegram refuses texts over 4096 characters (a long announcement): cut, not lost.
      await handle.bot.api.sendMessage(chatId, text.length > 4096 ? `${text.slice(0, 4095)}…` : text);
      return true;
    } catch (err) {
      this.deps.log.warn({ ...describeTelegramError(err), chat: chatId }, 'telegram: mensaje no enviado');
      if (!(err instanceof GrammyError)) return false;
      if (err.error_code === 429) {
        this.floodUntil = Date.now() + (err.parameters.retry_after ?? 1) * 1000;
        return false;
      }
      return err.error_code >= 400 && err.error_code < 500;
    }
  }

  /**
   * The database answered 503: the managers linked at the last good cycle are told, at most once
   * per 5 minutes by this instance (nothing can be recorded in a database that does not answer),
   * and told again when a cycle reads the database.
   */
  databaseUnavailable(now = Date.now()): void {
    if (!this.handle || now - this.databaseDownAt < ALERT_GAP_MS) return;
    this.databaseDownAt = now;
    this.databaseDownTold = true;
    for (const chat of this.managerChats) void this.send(chat, t.databaseDown);
  }

  // ---- linking (routes) ----

  async linkStatus(realm: Realm, subjectId: number): Promise<LinkStatus> {
    const link = await this.store.linkOf(realm, subjectId);
    const token = await this.tokens.current();
    // Whether this instance's cycle has the bot Telegram accepted (a page never waits on getMe).
    const available = token !== null && this.handle?.token === token;
    return {
      available,
      linked: link !== null,
      prefs: link
        ? {
            reminders: link.reminders,
            allowance: link.allowance,
            payments: link.payments,
            announcements: link.announcements,
            concurrent: link.concurrent,
          }
        : null,
    };
  }

  /** A one-time link `t.me/<bot>?start=<code>` (10 minutes, single use). */
  /**
   * A one-use t.me link. A manager's needs an alert role and two-factor, then `confirm` (the route's
   * fresh re-confirmation: the linked chat gets the alerts, so a stolen session alone must not link
   * the thief's chat).
   */
  async linkUrl(
    realm: Realm,
    subjectId: number,
    confirm?: () => Promise<unknown>,
  ): Promise<{ url: string; expires_at: string }> {
    if (realm === 'manager') {
      const [m] = await this.deps.db.select().from(managers).where(eq(managers.id, subjectId));
      if (!m || !ALERT_ROLES.includes(m.role))
        throw new HttpError(409, telegramMsg.managerRole, 'telegram_role');
      if (!m.totpEnabledAt) throw new HttpError(409, telegramMsg.managerTotp, 'totp_not_enrolled');
      await confirm?.();
    }
    const handle = this.handle;
    if (!handle) throw new HttpError(409, telegramMsg.unavailable, 'telegram_unavailable');
    const { code, expiresAt } = await this.store.newCode(realm, subjectId);
    return { url: `https://t.me/${handle.username}?start=${code}`, expires_at: expiresAt.toISOString() };
  }

  // ---- password recovery (identity's RecoveryMessenger, issue 32) ----

  /** Whether this instance runs a bot Telegram accepted (what a reset link by Telegram needs). */
  get running(): boolean {
    return this.handle !== null;
  }

  /** The chat linked to this customer, when the bot is on here (a reset link can be sent). */
  async recoveryChat(customerId: number): Promise<number | null> {
    if (!this.handle) return null;
    return (await this.store.linkOf('customer', customerId))?.chatId ?? null;
  }

  /** Sends a reset link to the customer's chat, without its preview (best effort, never throws). */
  async sendRecovery(chatId: number, username: string, url: string): Promise<void> {
    const handle = this.handle;
    if (!handle) return;
    try {
      await handle.bot.api.sendMessage(chatId, t.recovery(this.deps.companyName, username, url), {
        link_preview_options: { is_disabled: true },
      });
    } catch (err) {
      this.deps.log.warn(
        { ...describeTelegramError(err), chat: chatId },
        'telegram: recuperación no enviada',
      );
    }
  }

  /** "Desvincular" from the web: the chat is told (best effort). */
  async unlink(realm: Realm, subjectId: number): Promise<void> {
    const chat = await this.store.unlink(realm, subjectId);
    if (chat !== null && this.handle) await this.send(chat, t.unlinked);
  }

  /**
   * The customer's notice switches. A notice is decided when its event happens (issue 26): turning a
   * switch back on never announces what happened while it was off, so those notices are claimed
   * (as if sent) before the switch turns on.
   */
  async setPrefs(customerId: number, prefs: Partial<Prefs>): Promise<LinkStatus> {
    const EVENT_KINDS: readonly EventKind[] = ['payments', 'allowance', 'concurrent'];
    const link = await this.store.linkOf('customer', customerId);
    if (!link) throw new HttpError(409, telegramMsg.notLinked, 'telegram_not_linked');
    const turningOn = EVENT_KINDS.filter((kind) => prefs[kind] === true && !link[kind]);
    if (turningOn.length) await this.notifier.silence(customerId, turningOn);
    if (!(await this.store.setPrefs(customerId, prefs)))
      throw new HttpError(409, telegramMsg.notLinked, 'telegram_not_linked');
    return this.linkStatus('customer', customerId);
  }

  // ---- token (Ajustes, owner) ----

  async tokenStatus(): Promise<{ source: 'console' | 'env' | 'none'; bot: string | null; webhook: boolean }> {
    const source = await this.tokens.source();
    if (source !== 'none') await this.ensureBot().catch(() => null);
    return { source, bot: this.handle?.username ?? null, webhook: this.deps.telegram.webhook };
  }

  /** Saves a token Telegram accepts (getMe), or forgets the saved one; the cycle follows at once. */
  async saveToken(actor: Actor, token: string | null) {
    if (token !== null) {
      if (!TOKEN_RE.test(token)) throw new HttpError(400, telegramMsg.tokenFormat, 'validation');
      try {
        await new Bot(token, {
          client: { apiRoot: this.deps.telegram.apiUrl, timeoutSeconds: API_TIMEOUT_SECONDS },
        }).api.getMe();
      } catch (err) {
        this.deps.log.warn(describeTelegramError(err), 'telegram: token rechazado');
        throw new HttpError(400, telegramMsg.tokenRefused, 'validation');
      }
    }
    await this.tokens.save(actor, token);
    this.badToken = null;
    await this.cycle();
    return this.tokenStatus();
  }
}

export { queueBroadcast } from './store.ts';
