/**
 * The Telegram bot's other alerts and notices against the Bot API stand-in: an agent lagging its
 * desired revision, a paid invoice whose delivery failed, the allowance at 80 % and 100 %, the
 * database answering 503 (through a cut TCP proxy, on PostgreSQL), and the webhook mode.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoices, managers, peers, servers } from '../src/db/schema.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { FakeTelegram } from './fakeTelegram.ts';
import {
  bearer,
  createCustomer,
  createManager,
  createPlan,
  createServer,
  createTestApp,
  createTestDatabase,
  grantPeer,
  listen,
  login,
  managerToken,
  reauthHeader,
  type TestApp,
} from './helpers.ts';
import { ProtocolAgent } from './protocolAgent.ts';
import { freePort } from './serverProcess.ts';
import { Proxy } from './tcpProxy.ts';

const TOKEN = '222333444:AAH-alerts-test-token-for-standin_q';
const MANAGER_CHAT = 9101;
/** An owner's chat: the alerts about invoices and payments are for roles that read them. */
const OWNER_CHAT = 9102;
const CUSTOMER_CHAT = 9201;

/** Links `chat` through the API's one-time link and the stand-in's /start. */
async function link(
  t: TestApp,
  fake: FakeTelegram,
  access: string,
  path: string,
  chat: number,
  headers: Record<string, string> = {},
) {
  const res = await t.app.inject({ method: 'POST', url: path, headers: { ...bearer(access), ...headers } });
  if (res.statusCode !== 200) throw new Error(res.body);
  const code = new URL(res.json().url).searchParams.get('start')!;
  const before = fake.sent.length;
  fake.message(chat, `/start ${code}`);
  const [answer] = await fake.waitFor(chat, 1, before);
  if (!/vinculado/.test(answer!.text ?? '')) throw new Error(answer!.text);
}

/** A manager of `role` with two-factor on, whose chat is linked (with the password confirmed again). */
async function linkedManager(
  t: TestApp,
  fake: FakeTelegram,
  chat: number,
  role: 'owner' | 'operations' = 'operations',
) {
  const m = await createManager(t, `${role}${chat}`, 'clave-de-gestor', role);
  const access = (
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { username: m.username, password: m.password },
    })
  ).json().access as string;
  const confirmed = await reauthHeader(t, access, m.password);
  await t.ctx.db.update(managers).set({ totpEnabledAt: new Date() }).where(eq(managers.id, m.id));
  await link(t, fake, access, '/api/admin/me/telegram/link', chat, confirmed);
}

describe('Telegram alerts and notices', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  let base: string;
  let owner: string;
  let server: { id: number; token: string };

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({
      scheduler: false,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: apiUrl },
    });
    base = await listen(t);
    await t.ctx.telegram.cycle();
    owner = await managerToken(t);
    server = await createServer(t, owner);
    await linkedManager(t, fake, MANAGER_CHAT);
    await linkedManager(t, fake, OWNER_CHAT, 'owner');
  });
  afterAll(async () => {
    await t?.close();
    await fake.close();
  });

  const told = (chat: number) => fake.to(chat).map((m) => m.text);

  it('an agent lagging its desired revision for more than 2 minutes, and caught up', async () => {
    const agent = await ProtocolAgent.connect(base, server.token);
    agent.autoAck = false;
    const notifier = t.ctx.telegram.notifier;
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    await notifier.tick(at(0));
    const before = told(MANAGER_CHAT).length;
    // Two changes the agent receives and does not ack.
    const plan = await createPlan(t);
    await createCustomer(t, 'carla');
    await grantPeer(t, owner, { username: 'carla', plan: plan.id, server: server.id, name: 'Tablet' });
    await agent.until(() => agent.revision > 0);
    const first = agent.revision;
    await grantPeer(t, owner, { username: 'carla', plan: plan.id, server: server.id, name: 'Reloj' });
    await agent.until(() => agent.revision > first);
    const acked = async () =>
      (await t.ctx.db.select().from(servers).where(eq(servers.id, server.id)))[0]!.ackedRevision;
    await notifier.tick(at(1_000));
    // At 1.5 minutes it applies the first: progress, so the 2 minutes start again.
    agent.ack(first);
    while ((await acked()) < first) await new Promise((r) => setTimeout(r, 20));
    await notifier.tick(at(90_000));
    await notifier.tick(at(2 * 60_000 + 1_001));
    await notifier.tick(at(3 * 60_000 + 29_000));
    expect(told(MANAGER_CHAT).length).toBe(before);
    await notifier.tick(at(3 * 60_000 + 30_001));
    await notifier.tick(at(3 * 60_000 + 40_000));
    expect(told(MANAGER_CHAT).slice(before)).toEqual([
      `⚠️ El servidor «Uno» lleva más de 2 minutos sin aplicar los cambios (${agent.revision - first} revisiones pendientes).`,
    ]);
    agent.ack();
    for (;;) {
      const [now] = await t.ctx.db.select().from(servers).where(eq(servers.id, server.id));
      if (now!.ackedRevision === now!.revision) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await notifier.tick(at(5 * 60_000)); // caught up, but the last alert is under 5 minutes old
    expect(told(MANAGER_CHAT).length).toBe(before + 1);
    await notifier.tick(at(8 * 60_000 + 31_000));
    expect(told(MANAGER_CHAT).slice(before + 1)).toEqual([
      '✅ El servidor «Uno» ya aplicó los cambios pendientes.',
    ]);
    await agent.close();
  });

  it('a paid invoice that could not be delivered, once', async () => {
    const [customer] = await t.ctx.db.select().from(peers).limit(1);
    const plan = await createPlan(t, { name: 'Anual' });
    const [invoice] = await t.ctx.db
      .insert(invoices)
      .values({
        customerId: customer!.customerId,
        operation: 'add_plan',
        peerId: customer!.id,
        planId: plan.id,
        planName: 'Anual',
        amount: '30.00',
        gateway: 'sandbox',
        status: 'paid',
        paidAt: new Date(),
        deliveryAttempts: 2,
      })
      .returning();
    const before = told(OWNER_CHAT).length;
    const opsBefore = told(MANAGER_CHAT).length;
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(told(OWNER_CHAT).slice(before)).toEqual([
      `⚠️ La factura ${invoice!.id} (plan «Anual», cliente «carla») está pagada pero no se pudo entregar (2 intentos). Revise Facturas.`,
    ]);
    // Operations does not read invoices in the console (docs/permissions.md): nor in the chat.
    expect(told(MANAGER_CHAT).slice(opsBefore)).toEqual([]);
  });

  it('the allowance at 80 % and when it runs out, after the chat was linked', async () => {
    const c = await createCustomer(t, 'dario');
    const access = (await login(t, c.username, c.password)).access;
    const plan = await createPlan(t, { name: 'Datos', dataGb: '10' });
    const peer = await grantPeer(t, owner, {
      username: 'dario',
      plan: plan.id,
      server: server.id,
      name: 'Móvil',
    });
    await link(t, fake, access, '/api/client/telegram/link', CUSTOMER_CHAT);
    const before = told(CUSTOMER_CHAT).length;
    // What the agents' reports and AllowanceService leave on the peer at 85 %.
    await t.ctx.db.update(peers).set({ dataUsed: 8_500_000_000 }).where(eq(peers.id, peer.id));
    await t.ctx.allowances.enforce();
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(told(CUSTOMER_CHAT).slice(before)).toEqual([
      'Tu peer «Móvil» ha usado el 80 % de sus datos (8,5 GB de 10 GB). Cuando se agoten, se deshabilitará hasta que añadas un plan (/renovar).',
    ]);
    await t.ctx.db.update(peers).set({ dataUsed: 10_000_000_000 }).where(eq(peers.id, peer.id));
    await t.ctx.allowances.enforce();
    await t.ctx.telegram.notifier.tick();
    expect(told(CUSTOMER_CHAT).slice(before + 1)).toEqual([
      'Tu peer «Móvil» ha agotado sus datos y se ha deshabilitado. Añade un plan con /renovar y volverá a funcionar sin importar nada de nuevo.',
    ]);
    // In use on two devices at once (issue 19 records the episode on the peer): told once.
    const episode = new Date();
    await t.ctx.db
      .update(peers)
      .set({ concurrentUseAt: episode, concurrentUseSeenAt: episode })
      .where(eq(peers.id, peer.id));
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    // Issue 19's text (its wording is that issue's): one message, naming the peer.
    const concurrent = told(CUSTOMER_CHAT).slice(before + 2);
    expect(concurrent).toHaveLength(1);
    expect(concurrent[0]).toMatch(/peer Móvil parece estar en uso en más de un dispositivo a la vez/);
    await t.ctx.db
      .update(peers)
      .set({ concurrentUseAt: null, concurrentUseSeenAt: null })
      .where(eq(peers.id, peer.id));
    // The switch in Settings turns it off.
    const off = await t.app.inject({
      method: 'PATCH',
      url: '/api/client/telegram',
      headers: bearer(access),
      payload: { allowance: false },
    });
    expect(off.json().prefs.allowance).toBe(false);
    await t.ctx.db
      .update(peers)
      .set({ dataUsed: 0, dataNoticeAt: null, dataExhaustedAt: sql`now()` })
      .where(eq(peers.id, peer.id));
    await t.ctx.telegram.notifier.tick();
    expect(told(CUSTOMER_CHAT).length).toBe(before + 3);
  });

  it('never announces an event that happened while its switch was off, once the switch is back on', async () => {
    const chat = CUSTOMER_CHAT + 1;
    const c = await createCustomer(t, 'elisa');
    const access = (await login(t, c.username, c.password)).access;
    const plan = await createPlan(t, { name: 'Datos', dataGb: '10' });
    const peer = await grantPeer(t, owner, {
      username: 'elisa',
      plan: plan.id,
      server: server.id,
      name: 'Casa',
    });
    await link(t, fake, access, '/api/client/telegram/link', chat);
    const prefs = (body: object) =>
      t.app.inject({ method: 'PATCH', url: '/api/client/telegram', headers: bearer(access), payload: body });
    const payment = async () => {
      const [row] = await t.ctx.db
        .insert(invoices)
        .values({
          customerId: c.id,
          operation: 'add_plan',
          peerId: peer.id,
          planId: plan.id,
          planName: 'Datos',
          amount: '3.00',
          gateway: 'sandbox',
          status: 'paid',
          paidAt: new Date(),
          creditedAt: new Date(),
        })
        .returning();
      return row!;
    };
    const before = told(chat).length;
    // Switched off; a payment is credited, the data reaches 85 %, two devices use the peer at once.
    expect((await prefs({ payments: false, allowance: false, concurrent: false })).statusCode).toBe(200);
    await payment();
    await t.ctx.db.update(peers).set({ dataUsed: 8_500_000_000 }).where(eq(peers.id, peer.id));
    await t.ctx.allowances.enforce();
    const episode = new Date();
    await t.ctx.db
      .update(peers)
      .set({ concurrentUseAt: episode, concurrentUseSeenAt: episode })
      .where(eq(peers.id, peer.id));
    await t.ctx.telegram.notifier.tick();
    // Back on before the bot's next round: those events were decided when they happened.
    expect((await prefs({ payments: true, allowance: true, concurrent: true })).statusCode).toBe(200);
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(told(chat).slice(before)).toEqual([]);
    // Events after the switch is on are told as always (the same chat).
    await payment();
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(told(chat).slice(before)).toEqual([
      'Pago acreditado: 3,00\u00a0US$, plan «Datos» para «Casa». ¡Gracias!',
    ]);
    // A switch already on and sent again (true → true) silences nothing.
    const later = new Date(Date.now() + 1000);
    await t.ctx.db
      .update(peers)
      .set({ concurrentUseAt: later, concurrentUseSeenAt: later })
      .where(eq(peers.id, peer.id));
    expect((await prefs({ concurrent: true })).statusCode).toBe(200);
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    expect(told(chat).slice(before + 1)).toHaveLength(1);
    expect(told(chat)[before + 1]).toMatch(/peer Casa parece estar en uso en más de un dispositivo a la vez/);
  });
});

describe('Telegram: a long list', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({
      scheduler: false,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: apiUrl },
    });
    await t.ctx.telegram.cycle();
  });
  afterAll(async () => {
    await t?.close();
    await fake.close();
  });

  it('/peers splits 45 peers into messages Telegram accepts, every peer listed once', async () => {
    const owner = await managerToken(t);
    const server = await createServer(t, owner);
    const plan = await createPlan(t);
    const c = await createCustomer(t, 'flota');
    const names = Array.from(
      { length: 45 },
      (_, i) => `Router de la sucursal número ${String(i + 1).padStart(2, '0')}`,
    );
    for (const name of names)
      await grantPeer(t, owner, { username: 'flota', plan: plan.id, server: server.id, name });
    await link(t, fake, (await login(t, c.username, c.password)).access, '/api/client/telegram/link', 9401);
    const before = fake.sent.length;
    fake.message(9401, '/peers');
    // The last part carries the menu.
    for (;;) {
      const got = fake.sent.slice(before).filter((m) => m.chatId === 9401);
      if (got.at(-1)?.replyMarkup) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    const parts = fake.sent.slice(before).filter((m) => m.chatId === 9401);
    expect(parts.length).toBeGreaterThan(1);
    for (const part of parts) expect(part.text!.length).toBeLessThanOrEqual(4096);
    const all = parts.map((p) => p.text).join('\n');
    for (const name of names) expect(all.split(`• ${name}:`).length).toBe(2);
    // The /config menu offers 40 buttons; the rest are reached by name.
    const [menu] = await (async () => {
      const at = fake.sent.length;
      fake.message(9401, '/config');
      return fake.waitFor(9401, 1, at);
    })();
    expect(menu!.replyMarkup!.inline_keyboard!.flat()).toHaveLength(40);
    const at = fake.sent.length;
    fake.message(9401, `/config ${names[44]}`);
    const [doc] = await fake.waitFor(9401, 2, at);
    expect(doc!.method).toBe('sendDocument');
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('Telegram: the database answering 503', () => {
  const fake = new FakeTelegram(TOKEN);
  let direct: Database & { url?: string };
  let database: Database;
  let proxy: Proxy;
  let t: TestApp;

  beforeAll(async () => {
    const apiUrl = await fake.start();
    direct = await createTestDatabase();
    const url = new URL(direct.url!);
    proxy = new Proxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    database = await openDatabase({ databaseUrl: url.toString(), poolSize: 3 });
    t = await createTestApp({
      database,
      scheduler: false,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: apiUrl },
    });
    await t.ctx.telegram.cycle();
    await linkedManager(t, fake, MANAGER_CHAT);
    await t.ctx.telegram.cycle(); // the alert list is read while the database answers
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
    await direct?.close();
    await fake.close();
  });

  it('tells the managers once while it does not answer, and once when it is back', async () => {
    const before = fake.to(MANAGER_CHAT).length;
    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const res = await t.app.inject({ url: '/api/client/advertisements', headers: bearer('x') });
      expect([401, 503]).toContain(res.statusCode);
    }
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { username: 'a', password: 'b' },
    });
    expect(res.statusCode).toBe(503);
    await fake.waitFor(MANAGER_CHAT, 1, before);
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { username: 'a', password: 'b' },
    });
    expect(
      fake
        .to(MANAGER_CHAT)
        .slice(before)
        .map((m) => m.text),
    ).toEqual(['⚠️ La base de datos no responde: el panel está contestando 503 (mantenimiento).']);
    await proxy.restore();
    for (;;) {
      await t.ctx.telegram.cycle();
      if (fake.to(MANAGER_CHAT).length > before + 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      fake
        .to(MANAGER_CHAT)
        .slice(before + 1)
        .map((m) => m.text),
    ).toEqual(['✅ La base de datos vuelve a responder.']);
  });
});

describe('Telegram: webhook under PUBLIC_URL', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    const apiUrl = await fake.start();
    port = await freePort();
    t = await createTestApp({
      scheduler: false,
      env: {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: apiUrl,
        TELEGRAM_WEBHOOK: 'true',
        PUBLIC_URL: `http://127.0.0.1:${port}`,
      },
    });
    await t.app.listen({ port, host: '127.0.0.1' });
    await t.ctx.telegram.cycle();
  });
  afterAll(async () => {
    await t?.close();
    await fake.close();
  });

  it('registers the webhook with a secret and answers what Telegram posts, never polling', async () => {
    expect(fake.webhook?.url).toBe(`http://127.0.0.1:${port}/api/telegram/webhook`);
    expect(fake.webhook?.secret).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    fake.message(9301, '/ayuda');
    const [help] = await fake.waitFor(9301, 1);
    expect(help!.text).toMatch(/^Ayuda de /);
    // A post without Telegram's secret is refused and answered by nobody.
    const forged = await fetch(`http://127.0.0.1:${port}/api/telegram/webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'adivinado' },
      body: JSON.stringify({
        update_id: 999,
        message: { message_id: 1, date: 0, chat: { id: 9302, type: 'private' }, text: '/ayuda' },
      }),
    });
    expect(forged.status).toBe(404);
    // The same update delivered twice (Telegram retries) is answered once.
    const hook = fake.webhook!;
    const update = {
      update_id: 5000,
      message: {
        message_id: 77,
        date: 0,
        from: { id: 9303, is_bot: false, first_name: 'X' },
        chat: { id: 9303, type: 'private' },
        text: '/ayuda',
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    };
    for (let i = 0; i < 2; i++)
      await fetch(hook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': hook.secret! },
        body: JSON.stringify(update),
      });
    await fake.waitFor(9303, 1);
    expect(fake.to(9302)).toEqual([]);
    expect(fake.to(9303).length).toBe(1);
    expect(fake.calls.some((c) => c.method === 'getUpdates')).toBe(false);
  });
});
