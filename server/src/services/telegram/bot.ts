// Over 400 lines on purpose: buildBot is one grammY bot whose command and button handlers share its
// closure (deps, the texts); split, each part would take all of it as arguments.
import { and, asc, eq, gte, sql } from 'drizzle-orm';
import { Bot, InlineKeyboard, type Context } from 'grammy';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { invoices, peers, peerStats, plans, servers } from '../../db/schema.ts';
import { can } from '@vpn/contracts';
import { HttpError } from '../../lib/errors.ts';
import { hit } from '../identity/rateLimit.ts';
import { formatBytes } from '../peers/allowance.ts';
import type { InvoiceService } from '../billing/invoices.ts';
import type { PeerService } from '../peers/peers.ts';
import { agentOnline } from '../fleet/servers.ts';
import { ONLINE_WINDOW } from '../fleet/serverView.ts';
import { safeName } from '../peers/wgconfig.ts';
import { qrPng } from './qr.ts';
import type { CustomerLink, TelegramStore } from './store.ts';
import { t } from './texts.ts';
import { redactTelegram } from './token.ts';

export interface BotDeps {
  db: Db;
  store: TelegramStore;
  peers: PeerService;
  /** InvoiceService.create: the dashboard's invoice path. */
  createInvoice: InvoiceService['create'];
  companyName: string;
  /** The support link in force (Ajustes → Enlaces para clientes, else SUPPORT_URL). */
  supportUrl: () => Promise<string | null>;
  publicUrl: string | undefined;
  log: FastifyBaseLogger;
}

/** Commands per chat and minute; past it the chat is told once and ignored until the minute ends. */
export const THROTTLE_PER_MINUTE = 20;

/**
 * Per-chat throttle, shared by every instance through rate_limits (issue 33: a new lease holder
 * used to start from zero): one key per chat and clock minute counting its updates. 'ok', 'warn'
 * (the first refusal: say so) or 'drop'. Each hit is counted as an hour of GCRA time, so the count
 * does not drain within its minute (services/identity/rateLimit.ts `hit`).
 */
async function takeCommand(db: Db, chatId: number, now = Date.now()): Promise<'ok' | 'warn' | 'drop'> {
  const key = `telegram:chat:${chatId}:${Math.floor(now / 60_000)}`;
  const n = await hit(db, key, { max: THROTTLE_PER_MINUTE, windowSeconds: THROTTLE_PER_MINUTE * 3600 }, now);
  if (n <= THROTTLE_PER_MINUTE) return 'ok';
  return n === THROTTLE_PER_MINUTE + 1 ? 'warn' : 'drop';
}

/** Why a call to Telegram failed, for a log line: method, code and description, never a URL or token. */
export function describeTelegramError(err: unknown): Record<string, unknown> {
  const e = err as { method?: string; error_code?: number; description?: string; message?: string };
  return {
    method: e.method,
    code: e.error_code,
    reason: redactTelegram(e.description ?? e.message ?? String(err)),
  };
}

/** Seconds up to which a 429's `retry_after` is waited in place (longer: the send fails). */
export const FLOOD_WAIT_MAX_SECONDS = 5;

/** The `retry_after` of a 429 answer when it is short enough to wait in place; null otherwise. */
function floodWait(answer: { ok?: boolean; error_code?: number; parameters?: { retry_after?: number } }) {
  const wait = !answer.ok && answer.error_code === 429 ? answer.parameters?.retry_after : undefined;
  return wait !== undefined && wait >= 0 && wait <= FLOOD_WAIT_MAX_SECONDS ? wait : null;
}

/** Below Telegram's 4096 characters per message. */
const MESSAGE_LIMIT = 3900;
/** Buttons offered in one menu (a longer list is reached by name: /config <peer>, or the panel). */
const MAX_BUTTONS = 40;

/** Paragraphs joined by blank lines into messages of at most `limit` characters. */
export function chunk(paragraphs: string[], limit: number): string[] {
  const out: string[] = [];
  let current = '';
  for (const p of paragraphs) {
    const next = current ? `${current}\n\n${p}` : p;
    if (next.length > limit && current) {
      out.push(current);
      current = p;
    } else current = next;
  }
  if (current) out.push(current);
  return out;
}

/** A payment link a chat can open: absolute (a sandbox link without PUBLIC_URL is relative). */
function absolute(url: string, publicUrl: string | undefined): string {
  return /^https?:\/\//.test(url) || !publicUrl ? url : `${publicUrl}${url}`;
}

/**
 * The bot's behaviour: linking (/start <code>), the customers' commands (/peers, /config,
 * /renovar, /ayuda), the managers' /estado, /desvincular. Private chats only; everything private
 * answers only a linked chat, and every peer is looked up among the linked customer's own.
 */
export function buildBot(token: string, apiRoot: string, deps: BotDeps, botInfo?: Bot['botInfo']): Bot {
  const bot = new Bot(token, { client: { apiRoot, timeoutSeconds: 30 }, ...(botInfo ? { botInfo } : {}) });

  // Telegram's flood control answers 429 with `parameters.retry_after`, the seconds to wait before
  // the same request may be repeated: a short wait is waited and the request sent once more (an
  // answer to a command is not lost); a longer one is the caller's (TelegramService.send pauses).
  bot.api.config.use(async (prev, method, payload, signal) => {
    const res = await prev(method, payload, signal);
    const wait = floodWait(res);
    if (wait === null || method === 'getUpdates') return res;
    await new Promise((r) => setTimeout(r, wait * 1000));
    return prev(method, payload, signal);
  });

  // Telegram marks commands with bot_command entities, which grammY's command() reads; a message
  // that starts with one but carries none (a client or relay that drops them) is marked here.
  bot.use(async (ctx, next) => {
    const msg = ctx.message;
    const head = msg?.text ? /^\/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]+)?/.exec(msg.text) : null;
    if (msg && head && !msg.entities?.some((e) => e.type === 'bot_command' && e.offset === 0))
      (msg as { entities?: unknown[] }).entities = [
        { type: 'bot_command', offset: 0, length: head[0].length },
        ...(msg.entities ?? []),
      ];
    await next();
  });

  bot.use(async (ctx, next) => {
    if (!ctx.chat) return;
    // Groups are throttled too: their one answer ("private chats only") must not become a flood.
    const verdict = await takeCommand(deps.db, ctx.chat.id);
    if (verdict === 'drop') return;
    if (ctx.chat.type !== 'private') {
      if (verdict === 'ok' && ctx.message?.text?.startsWith('/')) await ctx.reply(t.privateOnly);
      return;
    }
    if (verdict === 'warn') {
      if (ctx.callbackQuery) await ctx.answerCallbackQuery({ text: t.throttled });
      else await ctx.reply(t.throttled);
      return;
    }
    await next();
  });

  const customerOf = async (ctx: Context): Promise<CustomerLink | null> => {
    const link = await deps.store.customerOfChat(ctx.chat!.id);
    if (!link) await ctx.reply(t.notLinked);
    return link;
  };

  bot.command('start', async (ctx) => {
    const code = ctx.match.trim();
    if (!code) return void (await ctx.reply(t.welcome(deps.companyName)));
    const linked = await deps.store.redeem(code, ctx.chat.id);
    if (!linked) return void (await ctx.reply(t.codeInvalid));
    if (linked.realm === 'customer') {
      const link = await deps.store.customerOfChat(ctx.chat.id);
      return void (await ctx.reply(link ? t.linkedCustomer(link.username) : t.notLinked));
    }
    const manager = await deps.store.managerOfChat(ctx.chat.id);
    if (!manager) {
      await deps.store.unlink('manager', linked.subjectId);
      return void (await ctx.reply(t.managerNotAllowed));
    }
    await ctx.reply(t.linkedManager(manager.username));
  });

  bot.command(['ayuda', 'help'], async (ctx) => {
    const help = t.help(deps.companyName, (await deps.supportUrl()) ?? undefined, deps.publicUrl);
    const manager = await deps.store.managerOfChat(ctx.chat.id);
    await ctx.reply(manager ? `${help}\n\nGestores:\n${t.helpManager}` : help);
  });

  bot.command('desvincular', async (ctx) => {
    const n = await deps.store.unlinkChat(ctx.chat.id);
    await ctx.reply(n > 0 ? t.unlinked : t.notLinked);
  });

  bot.command('peers', async (ctx) => {
    const link = await customerOf(ctx);
    if (link) await sendPeers(ctx, link);
  });
  bot.callbackQuery('peers', async (ctx) => {
    await ctx.answerCallbackQuery();
    const link = await customerOf(ctx);
    if (link) await sendPeers(ctx, link);
  });

  async function sendPeers(ctx: Context, link: CustomerLink): Promise<void> {
    const rows = await deps.db
      .select({
        id: peers.id,
        name: peers.name,
        active: peers.active,
        managerDisabledAt: peers.managerDisabledAt,
        expiresAt: peers.expiresAt,
        dataUsed: peers.dataUsed,
        dataAllowance: peers.dataAllowance,
        online: sql<boolean>`exists (select 1 from ${peerStats} s where s.peer_id = ${peers.id} and s.latest_handshake > now() - ${ONLINE_WINDOW})`,
      })
      .from(peers)
      .where(eq(peers.customerId, link.customerId))
      .orderBy(asc(peers.id));
    if (rows.length === 0) return void (await ctx.reply(t.noPeers));
    const now = Date.now();
    const stateOf = (p: (typeof rows)[number]): string => {
      if (p.managerDisabledAt) return t.stateManagerOff;
      if (p.expiresAt !== null && p.expiresAt.getTime() <= now) return t.stateExpired;
      if (p.dataAllowance !== null && p.dataUsed >= p.dataAllowance) return t.stateNoData;
      return p.active ? t.stateActive : t.stateOff;
    };
    const lines = rows.map((p) => {
      return t.peerLine({
        name: p.name,
        state: stateOf(p),
        online: p.online,
        expires: p.expiresAt,
        usage: t.usage(
          formatBytes(p.dataUsed),
          p.dataAllowance === null ? null : formatBytes(p.dataAllowance),
        ),
      });
    });
    const keyboard = new InlineKeyboard().text('Configuración', 'cfg').text('Renovar', 'ren');
    // Telegram takes up to 4096 characters per message: a long list goes in several.
    const parts = chunk([t.peersTitle, ...lines], MESSAGE_LIMIT);
    for (const [i, part] of parts.entries())
      await ctx.reply(part, i === parts.length - 1 ? { reply_markup: keyboard } : {});
  }

  bot.command('config', async (ctx) => {
    const link = await customerOf(ctx);
    if (!link) return;
    const name = ctx.match.trim();
    if (!name) return void (await offerConfigs(ctx, link));
    const [peer] = await deps.db
      .select({ id: peers.id })
      .from(peers)
      .where(and(eq(peers.customerId, link.customerId), sql`lower(${peers.name}) = lower(${name})`));
    if (!peer) return void (await ctx.reply(t.configNoSuch(name)));
    await sendConfig(ctx, link, peer.id);
  });
  bot.callbackQuery('cfg', async (ctx) => {
    await ctx.answerCallbackQuery();
    const link = await customerOf(ctx);
    if (link) await offerConfigs(ctx, link);
  });
  bot.callbackQuery(/^cfg:(\d{1,9})$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const link = await customerOf(ctx);
    if (link) await sendConfig(ctx, link, Number(ctx.match[1]));
  });

  async function offerConfigs(ctx: Context, link: CustomerLink): Promise<void> {
    const rows = await deps.db
      .select({ id: peers.id, name: peers.name })
      .from(peers)
      .where(
        and(
          eq(peers.customerId, link.customerId),
          eq(peers.active, true),
          sql`(${peers.expiresAt} is null or ${peers.expiresAt} > now())`,
          sql`(${peers.dataAllowance} is null or ${peers.dataUsed} < ${peers.dataAllowance})`,
        ),
      )
      .orderBy(asc(peers.id));
    if (rows.length === 0) return void (await ctx.reply(t.configNone));
    const keyboard = new InlineKeyboard();
    for (const p of rows.slice(0, MAX_BUTTONS)) keyboard.text(p.name, `cfg:${p.id}`).row();
    await ctx.reply(t.configWhich, { reply_markup: keyboard });
  }

  /** The `.conf` (document) and its QR (photo): PeerService.config checks ownership and state. */
  async function sendConfig(ctx: Context, link: CustomerLink, peerId: number): Promise<void> {
    let config: { name: string; text: string };
    try {
      config = await deps.peers.config(link.customerId, peerId);
    } catch (err) {
      if (err instanceof HttpError && err.status < 500) return void (await ctx.reply(err.message));
      throw err;
    }
    const chat = ctx.chat!.id;
    const file = safeName(config.name);
    await sendFile(
      token,
      apiRoot,
      'sendDocument',
      chat,
      'document',
      `${file}.conf`,
      Buffer.from(config.text),
      t.configCaption(config.name),
    );
    await sendFile(
      token,
      apiRoot,
      'sendPhoto',
      chat,
      'photo',
      `${file}.png`,
      qrPng(config.text),
      t.qrCaption(config.name),
    );
  }

  const offerPlans = async (ctx: Context) => {
    const link = await customerOf(ctx);
    if (!link) return;
    const rows = await deps.db
      .select({ id: plans.id, name: plans.name, price: plans.price })
      .from(plans)
      .where(eq(plans.active, true))
      .orderBy(asc(plans.sortOrder), asc(plans.id));
    if (rows.length === 0) return void (await ctx.reply(t.renewNoPlans));
    const keyboard = new InlineKeyboard();
    for (const p of rows) keyboard.text(t.renewPlanButton(p.name, p.price), `ren:${p.id}`).row();
    await ctx.reply(t.renewPlan, { reply_markup: keyboard });
  };
  bot.command('renovar', offerPlans);
  bot.callbackQuery('ren', async (ctx) => {
    await ctx.answerCallbackQuery();
    await offerPlans(ctx);
  });
  bot.callbackQuery(/^ren:(\d{1,9})$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const link = await customerOf(ctx);
    if (!link) return;
    const [plan] = await deps.db
      .select({ id: plans.id, name: plans.name })
      .from(plans)
      .where(and(eq(plans.id, Number(ctx.match[1])), eq(plans.active, true)));
    if (!plan) return void (await ctx.reply(t.renewNoPlans));
    const rows = await deps.db
      .select({ id: peers.id, name: peers.name })
      .from(peers)
      .where(and(eq(peers.customerId, link.customerId), eq(peers.manualPayment, false)))
      .orderBy(asc(peers.id));
    if (rows.length === 0) return void (await ctx.reply(t.renewNoPeers));
    const keyboard = new InlineKeyboard();
    for (const p of rows.slice(0, MAX_BUTTONS)) keyboard.text(p.name, `ren:${plan.id}:${p.id}`).row();
    await ctx.reply(t.renewPeer(plan.name), { reply_markup: keyboard });
  });
  bot.callbackQuery(/^ren:(\d{1,9}):(\d{1,9})$/, async (ctx) => {
    await ctx.answerCallbackQuery();
    const link = await customerOf(ctx);
    if (!link) return;
    // The dashboard's path: the same checks (plan on sale, the peer is this customer's), the same gateway.
    try {
      const planId = Number(ctx.match[1]);
      const peerId = Number(ctx.match[2]);
      const created = await deps.createInvoice(link.customerId, {
        operation: 'add_plan',
        plan: planId,
        peer: peerId,
      });
      const [row] = await deps.db
        .select({ plan: invoices.planName, peer: peers.name })
        .from(invoices)
        .innerJoin(peers, eq(peers.id, invoices.peerId))
        .where(eq(invoices.id, created.id));
      const url = absolute(created.payment_url, deps.publicUrl);
      const keyboard = /^https?:\/\//.test(url) ? new InlineKeyboard().url(t.payButton, url) : undefined;
      await ctx.reply(t.renewLink(row!.plan, row!.peer, url), keyboard ? { reply_markup: keyboard } : {});
    } catch (err) {
      if (err instanceof HttpError) return void (await ctx.reply(err.message));
      throw err;
    }
  });

  bot.command('estado', async (ctx) => {
    const manager = await deps.store.managerOfChat(ctx.chat.id);
    if (!manager) return void (await ctx.reply(t.notLinkedManager));
    // What the console would show this role (docs/permissions.md): today's payments are revenue.
    await ctx.reply(t.status(await serviceStatus(deps.db, can(manager.role, 'revenue.read'))));
  });

  bot.on('message', async (ctx) => {
    await ctx.reply(t.unknown);
  });
  bot.on('callback_query', async (ctx) => {
    await ctx.answerCallbackQuery();
  });

  bot.catch(async (err) => {
    deps.log.warn(describeTelegramError(err.error), 'telegram: la orden falló');
    await err.ctx.reply(t.failed).catch(() => {});
  });
  return bot;
}

/**
 * A file upload the plain way the Bot API documents ("Sending files": multipart/form-data, the file
 * in the method's own field, `document` or `photo`), not through grammY's `attach://` parts.
 * Errors carry Telegram's description, never the URL (it holds the token).
 */
export async function sendFile(
  token: string,
  apiRoot: string,
  method: 'sendDocument' | 'sendPhoto',
  chatId: number,
  field: 'document' | 'photo',
  filename: string,
  bytes: Buffer,
  caption: string,
): Promise<void> {
  const form = new FormData();
  form.set('chat_id', String(chatId));
  form.set('caption', caption);
  form.set(field, new Blob([new Uint8Array(bytes)]), filename);
  let answer: {
    ok?: boolean;
    error_code?: number;
    description?: string;
    parameters?: { retry_after?: number };
  };
  const post = async () => {
    try {
      const res = await fetch(`${apiRoot}/bot${token}/${method}`, {
        method: 'POST',
        body: form,
        signal: AbortSignal.timeout(30_000),
      });
      return (await res.json()) as typeof answer;
    } catch (err) {
      throw Object.assign(new Error(`Telegram: ${method} sin respuesta (${(err as Error).name})`), {
        method,
      });
    }
  };
  answer = await post();
  // Flood control, as for the other calls (buildBot): a short retry_after is waited, then once more.
  const wait = floodWait(answer);
  if (wait !== null) {
    await new Promise((r) => setTimeout(r, wait * 1000));
    answer = await post();
  }
  if (!answer.ok)
    throw Object.assign(new Error(answer.description ?? method), {
      method,
      error_code: answer.error_code,
      description: answer.description,
    });
}

/** Midnight of today in Cuba, as an instant (the day "today's payments" counts). */
export function startOfHavanaDay(now = new Date()): Date {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: 'America/Havana',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    timeZoneName: 'longOffset',
  }).formatToParts(now);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const offset = get('timeZoneName').replace('GMT', '') || '+00:00';
  return new Date(`${get('year')}-${get('month')}-${get('day')}T00:00:00${offset}`);
}

/**
 * /estado: servers online of total (switched-on ones), peers active and, for a role that reads
 * revenue, payments since midnight in Cuba.
 */
export async function serviceStatus(db: Db, revenue: boolean, now = new Date()) {
  const rows = await db.select({ active: servers.active, lastSeenAt: servers.lastSeenAt }).from(servers);
  const on = rows.filter((s) => s.active);
  const [peerCount] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(peers)
    .where(
      and(
        eq(peers.active, true),
        sql`(${peers.expiresAt} is null or ${peers.expiresAt} > ${now.toISOString()}::timestamptz)`,
      ),
    );
  const status = {
    online: on.filter((s) => agentOnline(s, now.getTime())).length,
    total: on.length,
    peers: peerCount!.n,
  };
  if (!revenue) return status;
  const [paid] = await db
    .select({
      n: sql<number>`count(*)::int`,
      amount: sql<string>`coalesce(sum(${invoices.amount}), 0)::text`,
    })
    .from(invoices)
    .where(and(gte(invoices.paidAt, startOfHavanaDay(now)), sql`${invoices.status} = 'paid'`));
  return { ...status, paid: { count: paid!.n, amount: Number(paid!.amount).toFixed(2) } };
}
