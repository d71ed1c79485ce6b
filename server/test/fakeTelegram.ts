/**
 * A stand-in for Telegram's Bot API, built from its public documentation
 * (https://core.telegram.org/bots/api; sources of every method and field in docs/decisions.md,
 * "Telegram bot"). It serves `https://api.telegram.org/bot<token>/<method>` requests at
 * `<base>/bot<token>/<method>`, with parameters in the query string, url-encoded or JSON bodies,
 * or multipart/form-data (files), and answers `{ ok, result }` or `{ ok: false, error_code,
 * description }`. Methods: getMe, getUpdates (long polling, offset confirmation), setWebhook (then
 * updates are POSTed to the URL with X-Telegram-Bot-Api-Secret-Token), deleteWebhook,
 * sendMessage, sendDocument, sendPhoto, answerCallbackQuery, setMyCommands. Tests play users:
 * `message()` and `press()` queue updates as Telegram would deliver them; `sent` is what the bot said.
 * And Telegram's refusals (docs/decisions.md, "Telegram bot"): flood control (`flood(seconds)`:
 * sends answer 429 "Too Many Requests: retry after N" with `parameters.retry_after`, the seconds
 * left), a user who blocked the bot (`block(chat)`: 403 "Forbidden: bot was blocked by the user"),
 * and a second getUpdates while one is waiting: the waiting one ends with 409 "Conflict: terminated
 * by other getUpdates request; make sure that only one bot instance is running".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Sent {
  method: 'sendMessage' | 'sendDocument' | 'sendPhoto';
  chatId: number;
  text?: string;
  caption?: string;
  replyMarkup?: { inline_keyboard?: { text: string; callback_data?: string; url?: string }[][] };
  file?: { name: string; data: Buffer };
  messageId: number;
}

type Params = Record<string, unknown>;
type Update = Record<string, unknown> & { update_id: number };

const BOT_ID = 7_000_000_001;

export class FakeTelegram {
  readonly sent: Sent[] = [];
  readonly calls: { method: string; params: Params }[] = [];
  readonly answeredCallbacks: { id: string; text?: string }[] = [];
  /** Each getUpdates answer: which updates it handed out (to see that two pollers never both got one). */
  readonly deliveries: number[][] = [];
  /** Requests Telegram refused (429, 403, 409), as the bot was told. */
  readonly refused: { method: string; code: number; chatId?: number; at: number }[] = [];
  commands: unknown = null;
  webhook: { url: string; secret?: string } | null = null;
  private floodUntil = 0;
  private held: Promise<void> | null = null;
  private readonly blocked = new Set<number>();
  /** The getUpdates request now waiting, ended by the next one. */
  private waitingPoll: (() => void) | null = null;
  private queue: Update[] = [];
  private nextUpdate = 1;
  private nextMessage = 1;
  private nextCallback = 1;
  private waiters: (() => void)[] = [];
  private server: Server | undefined;
  base = '';

  constructor(
    readonly token: string,
    readonly username = 'panel_test_bot',
  ) {}

  /** Listens on loopback, on `port` when given (a URL handed to a server started before the stand-in). */
  async start(port = 0): Promise<string> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((r) => this.server!.listen(port, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.base;
  }

  async close(): Promise<void> {
    this.waiters.splice(0).forEach((w) => w());
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }

  // ---- Telegram's refusals ----

  /** Flood control for the next `seconds`: every send answers 429 with the seconds left. */
  flood(seconds: number): void {
    this.floodUntil = Date.now() + seconds * 1000;
  }

  /**
   * The next getUpdates that hands out updates keeps its answer until the returned function is
   * called: the updates left Telegram (unconfirmed until the next offset) but the poller has not
   * handled them, as when it froze right after. Not a Telegram behaviour: a test's stopwatch.
   */
  holdNextAnswer(): () => void {
    let release!: () => void;
    this.held = new Promise<void>((r) => (release = r));
    return release;
  }

  /** The user of this private chat blocked the bot: sends to it answer 403. */
  block(chatId: number): void {
    this.blocked.add(chatId);
  }

  // ---- users ----

  private user(chatId: number) {
    return { id: chatId, is_bot: false, first_name: `Usuario ${chatId}` };
  }

  /** A user writes `text` in their private chat with the bot (a private chat's id is the user's id). */
  message(chatId: number, text: string, withEntities = true): number {
    // Telegram marks commands with bot_command entities (MessageEntity); `withEntities: false` plays
    // a client that sent none.
    const entities = [...(withEntities ? text.matchAll(/\/[A-Za-z0-9_]{1,32}(@[A-Za-z0-9_]+)?/g) : [])]
      .filter((m) => m.index === 0 || /\s/.test(text[m.index - 1]!))
      .map((m) => ({ type: 'bot_command', offset: m.index, length: m[0].length }));
    return this.push({
      message: {
        message_id: this.nextMessage++,
        from: this.user(chatId),
        chat: { id: chatId, type: 'private', first_name: `Usuario ${chatId}` },
        date: Math.floor(Date.now() / 1000),
        text,
        ...(entities.length ? { entities } : {}),
      },
    });
  }

  /** A message in a group chat (chat ids of groups are negative). */
  groupMessage(groupId: number, fromId: number, text: string): number {
    return this.push({
      message: {
        message_id: this.nextMessage++,
        from: this.user(fromId),
        chat: { id: groupId, type: 'group', title: 'Grupo' },
        date: Math.floor(Date.now() / 1000),
        text,
        entities: [{ type: 'bot_command', offset: 0, length: text.split(' ')[0]!.length }],
      },
    });
  }

  /** A user presses an inline button whose callback_data is `data` (on a message the bot sent). */
  press(chatId: number, data: string): number {
    return this.push({
      callback_query: {
        id: String(this.nextCallback++),
        from: this.user(chatId),
        message: {
          message_id: this.nextMessage++,
          from: { id: BOT_ID, is_bot: true, first_name: 'Panel', username: this.username },
          chat: { id: chatId, type: 'private', first_name: `Usuario ${chatId}` },
          date: Math.floor(Date.now() / 1000),
          text: '…',
        },
        chat_instance: `ci${chatId}`,
        data,
      },
    });
  }

  private push(body: Record<string, unknown>): number {
    const update = { update_id: this.nextUpdate++, ...body };
    this.queue.push(update);
    if (this.webhook) void this.deliverWebhook(update);
    this.wake();
    return update.update_id;
  }

  private async deliverWebhook(update: Update): Promise<void> {
    const hook = this.webhook!;
    await fetch(hook.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(hook.secret ? { 'x-telegram-bot-api-secret-token': hook.secret } : {}),
      },
      body: JSON.stringify(update),
    }).catch(() => {});
  }

  private wake(): void {
    this.waiters.splice(0).forEach((w) => w());
  }

  /** Resolves once `count` messages (of any kind) went to `chatId`, counting from `from`. */
  async waitFor(chatId: number, count = 1, from = 0, limitMs = 20_000): Promise<Sent[]> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const got = this.sent.slice(from).filter((s) => s.chatId === chatId);
      if (got.length >= count) return got;
      if (Date.now() > deadline)
        throw new Error(
          `chat ${chatId}: ${got.length} of ${count} messages: ${JSON.stringify(got.map((g) => g.text ?? g.caption))}`,
        );
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  /** Messages to a chat so far. */
  to(chatId: number): Sent[] {
    return this.sent.filter((s) => s.chatId === chatId);
  }

  // ---- the API ----

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(url.pathname);
    const reply = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const fail = (code: number, description: string) =>
      reply(code, { ok: false, error_code: code, description });
    if (!m) return fail(404, 'Not Found');
    if (m[1] !== this.token) return fail(401, 'Unauthorized');
    let params: Params;
    try {
      params = { ...Object.fromEntries(url.searchParams), ...(await readParams(req)) };
    } catch {
      return fail(400, 'Bad Request: invalid request body');
    }
    const method = m[2]!;
    this.calls.push({ method, params });
    const ok = (result: unknown) => reply(200, { ok: true, result });
    const refuse = (code: number, description: string, extra: Params = {}) => {
      const chatId = params.chat_id !== undefined ? Number(params.chat_id) : undefined;
      this.refused.push({ method, code, at: Date.now(), ...(chatId !== undefined ? { chatId } : {}) });
      reply(code, { ok: false, error_code: code, description, ...extra });
    };
    if (method === 'sendMessage' || method === 'sendDocument' || method === 'sendPhoto') {
      const left = Math.ceil((this.floodUntil - Date.now()) / 1000);
      if (left > 0)
        return refuse(429, `Too Many Requests: retry after ${left}`, { parameters: { retry_after: left } });
      if (this.blocked.has(Number(params.chat_id)))
        return refuse(403, 'Forbidden: bot was blocked by the user');
    }
    switch (method) {
      case 'getMe':
        return ok({
          id: BOT_ID,
          is_bot: true,
          first_name: 'Panel',
          username: this.username,
          can_join_groups: true,
          can_read_all_group_messages: false,
          supports_inline_queries: false,
        });
      case 'getUpdates':
        return this.getUpdates(req, params, ok, refuse);
      case 'setWebhook': {
        if (typeof params.url !== 'string') return fail(400, 'Bad Request: bad webhook: URL must be set');
        this.webhook = params.url
          ? {
              url: params.url,
              ...(typeof params.secret_token === 'string' ? { secret: params.secret_token } : {}),
            }
          : null;
        return ok(true);
      }
      case 'deleteWebhook':
        this.webhook = null;
        return ok(true);
      case 'setMyCommands':
        this.commands = parseJson(params.commands);
        return ok(true);
      case 'answerCallbackQuery':
        if (typeof params.callback_query_id !== 'string' && typeof params.callback_query_id !== 'number')
          return fail(
            400,
            'Bad Request: query is too old and response timeout expired or query ID is invalid',
          );
        this.answeredCallbacks.push({
          id: String(params.callback_query_id),
          ...(typeof params.text === 'string' ? { text: params.text } : {}),
        });
        return ok(true);
      case 'sendMessage':
      case 'sendDocument':
      case 'sendPhoto': {
        const chatId = Number(params.chat_id);
        if (!Number.isSafeInteger(chatId)) return fail(400, 'Bad Request: chat not found');
        if (method === 'sendMessage' && (typeof params.text !== 'string' || !params.text))
          return fail(400, 'Bad Request: message text is empty');
        // sendMessage: "Text of the message to be sent, 1-4096 characters".
        if (method === 'sendMessage' && (params.text as string).length > 4096)
          return fail(400, 'Bad Request: message is too long');
        const field = method === 'sendDocument' ? 'document' : 'photo';
        let file: Sent['file'];
        if (method !== 'sendMessage') {
          file = fileOf(params, field);
          if (!file) return fail(400, `Bad Request: there is no ${field} in the request`);
        }
        const entry: Sent = {
          method,
          chatId,
          messageId: this.nextMessage++,
          ...(typeof params.text === 'string' ? { text: params.text } : {}),
          ...(typeof params.caption === 'string' ? { caption: params.caption } : {}),
          ...(params.reply_markup
            ? { replyMarkup: parseJson(params.reply_markup) as Sent['replyMarkup'] }
            : {}),
          ...(file ? { file } : {}),
        };
        this.sent.push(entry);
        const chat = { id: chatId, type: 'private', first_name: `Usuario ${chatId}` };
        const base = { message_id: entry.messageId, date: Math.floor(Date.now() / 1000), chat };
        if (method === 'sendMessage') return ok({ ...base, text: params.text });
        if (method === 'sendDocument')
          return ok({
            ...base,
            document: {
              file_id: `doc${entry.messageId}`,
              file_unique_id: `d${entry.messageId}`,
              file_name: file!.name,
              file_size: file!.data.length,
            },
            ...(entry.caption ? { caption: entry.caption } : {}),
          });
        return ok({
          ...base,
          photo: [
            {
              file_id: `ph${entry.messageId}`,
              file_unique_id: `p${entry.messageId}`,
              width: 320,
              height: 320,
              file_size: file!.data.length,
            },
          ],
          ...(entry.caption ? { caption: entry.caption } : {}),
        });
      }
      default:
        return fail(404, 'Not Found');
    }
  }

  /**
   * getUpdates: updates with update_id >= offset (those below are confirmed and forgotten), waiting
   * up to `timeout` seconds for one. Refused while a webhook is set. A second request while one
   * waits ends the waiting one with 409 (only one poller at a time); a request whose connection
   * closed (its instance died) no longer waits.
   */
  private async getUpdates(
    req: IncomingMessage,
    params: Params,
    ok: (r: unknown) => void,
    refuse: (code: number, d: string) => void,
  ): Promise<void> {
    if (this.webhook)
      return refuse(
        409,
        "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      );
    this.waitingPoll?.();
    let ended = false;
    const end = () => {
      ended = true;
      this.wake();
    };
    this.waitingPoll = end;
    req.socket.once('close', end);
    const offset = params.offset !== undefined ? Number(params.offset) : undefined;
    if (offset !== undefined) this.queue = this.queue.filter((u) => u.update_id >= offset);
    const limit = Math.min(100, Math.max(1, Number(params.limit ?? 100)));
    const timeout = Math.max(0, Number(params.timeout ?? 0));
    const deadline = Date.now() + timeout * 1000;
    while (this.queue.length === 0 && Date.now() < deadline && !ended) {
      await new Promise<void>((r) => {
        const timer = setTimeout(r, Math.max(0, deadline - Date.now()));
        this.waiters.push(() => {
          clearTimeout(timer);
          r();
        });
      });
      if (!this.server?.listening) break;
    }
    req.socket.off('close', end);
    if (this.waitingPoll === end) this.waitingPoll = null;
    if (ended) {
      if (req.socket.destroyed) return;
      return refuse(
        409,
        'Conflict: terminated by other getUpdates request; make sure that only one bot instance is running',
      );
    }
    const batch = this.queue.slice(0, limit);
    this.deliveries.push(batch.map((u) => u.update_id));
    const held = batch.length ? this.held : null;
    if (held) {
      this.held = null;
      await held;
    }
    ok(batch);
  }
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

/** A file sent as a multipart part named after the field, or as `attach://<part>`. */
function fileOf(params: Params, field: string): Sent['file'] | undefined {
  const value = params[field];
  const named = typeof value === 'string' && value.startsWith('attach://') ? params[value.slice(9)] : value;
  if (named && typeof named === 'object' && 'data' in named) return named as Sent['file'];
  return undefined;
}

async function readParams(req: IncomingMessage): Promise<Params> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = Buffer.concat(chunks);
  const type = req.headers['content-type'] ?? '';
  if (body.length === 0) return {};
  if (type.startsWith('application/json')) return JSON.parse(body.toString('utf8')) as Params;
  if (type.startsWith('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
  const boundary = /boundary=(?:"([^"]+)"|([^;]+))/.exec(type);
  if (type.startsWith('multipart/form-data') && boundary)
    return parseMultipart(body, boundary[1] ?? boundary[2]!);
  throw new Error('unsupported body');
}

/** multipart/form-data (RFC 7578): text fields as strings, file parts as { name, data }. */
function parseMultipart(body: Buffer, boundary: string): Params {
  const out: Params = {};
  const delimiter = Buffer.from(`--${boundary}`);
  let pos = body.indexOf(delimiter);
  while (pos !== -1) {
    let start = pos + delimiter.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    if (body.subarray(start, start + 2).toString() === '\r\n') start += 2;
    const next = body.indexOf(delimiter, start);
    if (next === -1) break;
    let part = body.subarray(start, next);
    if (part.subarray(-2).toString() === '\r\n') part = part.subarray(0, -2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headerEnd).toString('utf8');
    const data = part.subarray(headerEnd + 4);
    const name = /name="([^"]*)"/i.exec(head)?.[1];
    const filename = /filename="?([^";\r\n]*)"?/i.exec(head)?.[1];
    if (name !== undefined)
      out[name] =
        filename !== undefined ? { name: filename, data: Buffer.from(data) } : data.toString('utf8');
    pos = next;
  }
  return out;
}
