/**
 * The Telegram bot against a stand-in of the Bot API (fakeTelegram.ts): linking, every command
 * (with a linked, an unlinked and a wrong chat), notices with a moved clock, manager alerts when an
 * agent disconnects and returns, the token in Ajustes, and no token in any log line. Over 400
 * lines: one conversation with one bot and one stand-in, whose steps build on each other.
 */
import { createPublicKey, createPrivateKey } from 'node:crypto';
import { Writable } from 'node:stream';
import { inflateSync } from 'node:zlib';
import jsQR from 'jsqr';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  customers,
  invoices,
  managers,
  paymentNotices,
  peers,
  servers,
  telegramLinks,
} from '../src/db/schema.ts';
import { FakeTelegram } from './fakeTelegram.ts';
import {
  bearer,
  createCustomer,
  createManager,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  listen,
  login,
  managerToken,
  reauthHeader,
  type TestApp,
} from './helpers.ts';
import { ProtocolAgent } from './protocolAgent.ts';

const TOKEN = '123456789:AAE-test-token-for-the-stand-in_xyz';
const SUPPORT = 'https://t.me/soporte_panel';

/** The X25519 public key of a WireGuard private key (base64), computed by node:crypto, not by the product. */
function publicKeyOf(privateKey: string): string {
  const der = Buffer.concat([
    Buffer.from('302e020100300506032b656e04220420', 'hex'),
    Buffer.from(privateKey, 'base64'),
  ]);
  const pub = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }));
  return pub.export({ format: 'der', type: 'spki' }).subarray(-32).toString('base64');
}

/** Reads an 8-bit grayscale PNG (the format the bot sends) and the QR code in it, with jsQR. */
function readQr(png: Buffer): string | null {
  let pos = 8;
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  while (pos < png.length) {
    const length = png.readUInt32BE(pos);
    const type = png.subarray(pos + 4, pos + 8).toString('ascii');
    const data = png.subarray(pos + 8, pos + 8 + length);
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      expect([data[8], data[9]]).toEqual([8, 0]); // 8-bit grayscale
    } else if (type === 'IDAT') idat.push(data);
    pos += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const rgba = new Uint8ClampedArray(width * height * 4);
  for (let y = 0; y < height; y++) {
    expect(raw[y * (width + 1)]).toBe(0); // filter "none" on every row
    for (let x = 0; x < width; x++) {
      const v = raw[y * (width + 1) + 1 + x]!;
      rgba.set([v, v, v, 255], (y * width + x) * 4);
    }
  }
  return jsQR(rgba, width, height)?.data ?? null;
}

describe('Telegram bot', () => {
  const fake = new FakeTelegram(TOKEN);
  let t: TestApp;
  let base: string;
  let owner: string;
  const logs: string[] = [];
  let customer: { id: number; username: string; password: string };
  let access: string;
  let serverId: number;
  let agentToken: string;
  let plan: { id: number; name: string };
  let peer: typeof peers.$inferSelect;
  const CHAT = 5001;

  const call = (
    method: string,
    url: string,
    token: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ) =>
    t.app.inject({
      method: method as 'GET',
      url,
      headers: { ...bearer(token), ...headers },
      ...(payload ? { payload } : {}),
    });

  /** Writes `text` in `chat` and answers what the bot said back (the next `count` messages). */
  async function say(chat: number, text: string, count = 1) {
    const before = fake.sent.length;
    fake.message(chat, text);
    return fake.waitFor(chat, count, before);
  }
  async function press(chat: number, data: string, count = 1) {
    const before = fake.sent.length;
    fake.press(chat, data);
    return fake.waitFor(chat, count, before);
  }
  async function linkChat(
    token: string,
    chat: number,
    path = '/api/client/telegram/link',
    headers: Record<string, string> = {},
  ) {
    const res = await call('POST', path, token, undefined, headers);
    expect(res.statusCode).toBe(200);
    const url = new URL(res.json().url);
    expect(`${url.origin}${url.pathname}`).toBe(`https://t.me/${fake.username}`);
    return {
      code: url.searchParams.get('start')!,
      answer: await say(chat, `/start ${url.searchParams.get('start')}`),
    };
  }

  beforeAll(async () => {
    const apiUrl = await fake.start();
    t = await createTestApp({
      scheduler: false,
      env: {
        TELEGRAM_BOT_TOKEN: TOKEN,
        TELEGRAM_API_URL: apiUrl,
        PAYMENTS_SANDBOX: 'true',
        PUBLIC_URL: 'http://panel.test',
        SUPPORT_URL: SUPPORT,
        COMPANY_NAME: 'Nube VPN',
      },
      logStream: new Writable({
        write(chunk, _enc, done) {
          logs.push(String(chunk));
          done();
        },
      }),
    });
    base = await listen(t);
    await t.ctx.telegram.cycle();
    expect(t.ctx.telegram.isLeader).toBe(true);
    owner = await managerToken(t);
    ({ id: serverId, token: agentToken } = await createServer(t, owner));
    const p = await createPlan(t, { name: 'Mensual' });
    plan = { id: p.id, name: p.name };
    customer = await createCustomer(t, 'ana');
    access = (await login(t, customer.username, customer.password)).access;
    peer = await grantPeer(t, owner, { username: 'ana', plan: plan.id, server: serverId, name: 'Casa' });
    // As if bought (a manager's grant is marked paid by hand, which the customer cannot renew online).
    await t.ctx.db.update(peers).set({ manualPayment: false }).where(eq(peers.id, peer.id));
  });
  afterAll(async () => {
    await t?.close();
    await fake.close();
  });

  it('polls with the token from the environment and publishes its command menu', () => {
    expect(fake.calls.some((c) => c.method === 'getMe')).toBe(true);
    expect(fake.calls.some((c) => c.method === 'deleteWebhook')).toBe(true);
    expect(fake.calls.some((c) => c.method === 'getUpdates')).toBe(true);
    expect(fake.commands).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ command: 'peers' }),
        expect.objectContaining({ command: 'renovar' }),
      ]),
    );
  });

  it('answers an unlinked chat only with how to link, and nothing private', async () => {
    for (const cmd of ['/peers', '/config Casa', '/renovar', '/estado']) {
      const [answer] = await say(4999, cmd);
      expect(answer!.text).toMatch(/no está vinculado/);
      expect(answer!.text).not.toContain('Casa');
    }
    const [hello] = await say(4999, '/start');
    expect(hello!.text).toContain('Vincular Telegram');
    // Group chats get nothing private either, linked or not.
    const before = fake.sent.length;
    fake.groupMessage(-100, CHAT, '/peers');
    const [group] = await fake.waitFor(-100, 1, before);
    expect(group!.text).toBe('Por seguridad solo respondo en chats privados.');
  });

  it('links a chat with a one-time code, valid once', async () => {
    expect((await call('GET', '/api/client/telegram', access)).json()).toMatchObject({
      available: true,
      linked: false,
    });
    const { code, answer } = await linkChat(access, CHAT);
    expect(answer[0]!.text).toContain('vinculado a la cuenta «ana»');
    expect((await call('GET', '/api/client/telegram', access)).json()).toMatchObject({
      linked: true,
      prefs: { reminders: true, allowance: true, payments: true, announcements: true },
    });
    // The same code again, from another chat: refused, and that chat stays unlinked.
    const [again] = await say(6001, `/start ${code}`);
    expect(again!.text).toMatch(/no es válido, ya se usó o caducó/);
    const [peers6001] = await say(6001, '/peers');
    expect(peers6001!.text).toMatch(/no está vinculado/);
    // Asking twice: the newer code replaces the older one.
    const first = await t.ctx.telegram.store.newCode('customer', customer.id);
    const second = await t.ctx.telegram.store.newCode('customer', customer.id);
    expect((await say(6001, `/start ${first.code}`))[0]!.text).toMatch(/no es válido/);
    expect(second.code).not.toBe(first.code);
    // A code older than 10 minutes: refused.
    const old = await t.ctx.telegram.store.newCode(
      'customer',
      customer.id,
      new Date(Date.now() - 11 * 60_000),
    );
    const [expired] = await say(6001, `/start ${old.code}`);
    expect(expired!.text).toMatch(/caducó/);
  });

  it('/peers lists name, state, expiry, online and usage', async () => {
    const [answer] = await say(CHAT, '/peers');
    expect(answer!.text).toContain('• Casa: activo');
    expect(answer!.text).toMatch(/Vence: \d+ de [a-z]+ de \d{4}/);
    expect(answer!.text).toContain('(hora de Cuba)');
    expect(answer!.text).toContain('Datos de este periodo: 0 MB (sin límite)');
    expect(answer!.replyMarkup?.inline_keyboard?.flat().map((b) => b.callback_data)).toEqual(['cfg', 'ren']);
  });

  it('/peers says when a manager switched a peer off, until a manager switches it on', async () => {
    await t.ctx.peers.adminUpdate(peer.id, { active: false });
    expect((await say(CHAT, '/peers'))[0]!.text).toContain('• Casa: deshabilitado por un administrador');
    await t.ctx.peers.adminUpdate(peer.id, { active: true });
    expect((await say(CHAT, '/peers'))[0]!.text).toContain('• Casa: activo');
  });

  it("/config sends the .conf and its QR, for the owner's active peers only", async () => {
    const [doc, photo] = await say(CHAT, '/config casa', 2);
    expect(doc!.method).toBe('sendDocument');
    expect(doc!.file!.name).toBe('Casa.conf');
    const conf = doc!.file!.data.toString('utf8');
    const privateKey = /PrivateKey = (\S+)/.exec(conf)![1]!;
    expect(publicKeyOf(privateKey)).toBe(peer.publicKey);
    expect(conf).toContain('Endpoint = uno.vpn.example:51820');
    expect(photo!.method).toBe('sendPhoto');
    // A PNG (signature, then IHDR), square.
    const png = photo!.file!.data;
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect(png.subarray(12, 16).toString()).toBe('IHDR');
    expect(png.readUInt32BE(16)).toBe(png.readUInt32BE(20));
    // Read back by a QR reader that is not the generator: the very .conf.
    expect(readQr(png)).toBe(conf);

    // The menu offers the active peers; a button carries the peer's id.
    const [menu] = await say(CHAT, '/config');
    expect(menu!.replyMarkup?.inline_keyboard?.flat()).toEqual([
      { text: 'Casa', callback_data: `cfg:${peer.id}` },
    ]);
    const [byButton] = await press(CHAT, `cfg:${peer.id}`, 2);
    expect(byButton!.file!.data.toString('utf8')).toBe(conf);

    // Another customer's peer: by name, unknown; by a forged button, not found; nothing is sent.
    const other = await createCustomer(t, 'bruno');
    const theirs = await grantPeer(t, owner, {
      username: 'bruno',
      plan: plan.id,
      server: serverId,
      name: 'Oficina',
    });
    const [byName] = await say(CHAT, '/config Oficina');
    expect(byName!.text).toBe('No tienes ningún peer llamado «Oficina». Escribe /peers para ver los tuyos.');
    const beforeForged = fake.sent.length;
    const [forged] = await press(CHAT, `cfg:${theirs.id}`);
    expect(forged!.method).toBe('sendMessage');
    expect(forged!.text).not.toContain('PrivateKey');
    expect(forged!.text).toMatch(/no encontrado|no existe/i);
    // Updates are answered in order: once a later one (another chat's) is answered, the forged
    // button's answer is complete. It was that one message (no file, no photo), and Bruno's peer is as it was.
    await say(9_901, '/ayuda');
    expect(fake.sent.slice(beforeForged).filter((m) => m.chatId !== 9_901)).toEqual([forged]);
    const [stillTheirs] = await t.ctx.db.select().from(peers).where(eq(peers.id, theirs.id));
    expect(stillTheirs).toMatchObject({ customerId: other.id, active: true, name: 'Oficina' });

    // An inactive peer: refused with the dashboard's reason.
    await t.ctx.db.update(peers).set({ active: false }).where(eq(peers.id, peer.id));
    const [inactive] = await say(CHAT, '/config Casa');
    expect(inactive!.method).toBe('sendMessage');
    expect(inactive!.text).toMatch(/activ/);
    await t.ctx.db.update(peers).set({ active: true }).where(eq(peers.id, peer.id));
  });

  it("/renovar: plan and peer by buttons, the dashboard's payment link, and the credit told", async () => {
    const [plans] = await say(CHAT, '/renovar');
    expect(plans!.replyMarkup?.inline_keyboard?.flat()).toEqual([
      { text: 'Mensual (3,00\u00a0US$)', callback_data: `ren:${plan.id}` },
    ]);
    const [peersMenu] = await press(CHAT, `ren:${plan.id}`);
    expect(peersMenu!.replyMarkup?.inline_keyboard?.flat()).toEqual([
      { text: 'Casa', callback_data: `ren:${plan.id}:${peer.id}` },
    ]);
    const [link] = await press(CHAT, `ren:${plan.id}:${peer.id}`);
    const url = /Paga aquí: (\S+)/.exec(link!.text!)![1]!;
    const [invoice] = await t.ctx.db.select().from(invoices).where(eq(invoices.peerId, peer.id));
    expect(url).toBe(`http://panel.test/api/payments/sandbox/${invoice!.id}`);
    expect(invoice).toMatchObject({
      customerId: customer.id,
      operation: 'add_plan',
      status: 'pending',
      gateway: 'sandbox',
    });

    // Paid through the link's page (the sandbox's form), the peer gains 30 days, and the chat is told.
    const before = (await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.expiresAt!;
    const pay = await fetch(`${base}${new URL(url).pathname}/pay`, { method: 'POST', redirect: 'manual' });
    expect(pay.status).toBe(303);
    const after = (await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id)))[0]!.expiresAt!;
    expect(after.getTime() - before.getTime()).toBe(30 * 86_400_000);
    const sent = fake.sent.length;
    await t.ctx.telegram.notifier.tick();
    const [paid] = await fake.waitFor(CHAT, 1, sent);
    expect(paid!.text).toBe('Pago acreditado: 3,00\u00a0US$, plan «Mensual» para «Casa». ¡Gracias!');
    await t.ctx.telegram.notifier.tick();
    expect(fake.sent.length).toBe(sent + 1);
  });

  it('/ayuda gives the essentials and the support link', async () => {
    const [help] = await say(CHAT, '/ayuda');
    expect(help!.text).toContain('Ayuda de Nube VPN');
    expect(help!.text).toContain(`Soporte: ${SUPPORT}`);
    expect(help!.text).toContain('Centro de ayuda: http://panel.test/dashboard/help');
    expect(help!.text).toContain('app oficial WireGuard');
    // A command that arrives without its bot_command entity is still a command.
    const before = fake.sent.length;
    fake.message(6100, '/ayuda', false);
    expect((await fake.waitFor(6100, 1, before))[0]!.text).toContain('Ayuda de Nube VPN');
    const [unknown] = await say(CHAT, 'hola');
    expect(unknown!.text).toContain('/ayuda');
  });

  it('sends the 72 h and 24 h reminders once each, with a moved clock', async () => {
    const expires = new Date(Date.now() + 30 * 86_400_000);
    await t.ctx.db.update(peers).set({ expiresAt: expires }).where(eq(peers.id, peer.id));
    const hours = (h: number) => new Date(expires.getTime() - h * 3600_000);
    const sent = fake.sent.length;
    await t.ctx.telegram.notifier.tick(hours(73));
    expect(fake.sent.length).toBe(sent);
    await t.ctx.telegram.notifier.tick(hours(71));
    const [r72] = await fake.waitFor(CHAT, 1, sent);
    expect(r72!.text).toMatch(/^Tu peer «Casa» vence en menos de 3 días: el /);
    await t.ctx.telegram.notifier.tick(hours(50));
    expect(fake.sent.length).toBe(sent + 1);
    await t.ctx.telegram.notifier.tick(hours(23));
    const [, r24] = await fake.waitFor(CHAT, 2, sent);
    expect(r24!.text).toMatch(/^Tu peer «Casa» vence en menos de 24 horas/);
    await t.ctx.telegram.notifier.tick(hours(1));
    expect(fake.sent.length).toBe(sent + 2);
    // Switched off in Settings: no reminder for the next expiry.
    expect(
      (await call('PATCH', '/api/client/telegram', access, { reminders: false })).json().prefs.reminders,
    ).toBe(false);
    const next = new Date(expires.getTime() + 30 * 86_400_000);
    await t.ctx.db.update(peers).set({ expiresAt: next }).where(eq(peers.id, peer.id));
    await t.ctx.telegram.notifier.tick(new Date(next.getTime() - 23 * 3600_000));
    expect(fake.sent.length).toBe(sent + 2);
    await call('PATCH', '/api/client/telegram', access, { reminders: true });
    expect((await call('PATCH', '/api/client/telegram', access, { nada: true })).statusCode).toBe(400);
  });

  it('sends an announcement ticked "enviar por Telegram"', async () => {
    const sent = fake.sent.length;
    const res = await call('POST', '/api/admin/advertisements', owner, {
      name: 'Mantenimiento',
      message: 'El domingo a las 3:00.',
      telegram: true,
    });
    expect(res.statusCode).toBe(201);
    await call('POST', '/api/admin/advertisements', owner, { name: 'Solo web', message: 'x' });
    // The longest announcement Contenido takes still goes (cut at Telegram's 4096 characters).
    await call('POST', '/api/admin/advertisements', owner, {
      name: 'N'.repeat(120),
      message: 'M'.repeat(4000),
      telegram: true,
    });
    await t.ctx.telegram.notifier.tick();
    const [ann] = await fake.waitFor(CHAT, 1, sent);
    expect(ann!.text).toBe('Nube VPN: Mantenimiento\n\nEl domingo a las 3:00.');
    const [, long] = await fake.waitFor(CHAT, 2, sent);
    expect(long!.text).toHaveLength(4096);
    expect(long!.text).toMatch(/^Nube VPN: N{120}\n\nM+…$/);
    // Sent once: a second pass adds nothing.
    const count = fake.to(CHAT).length;
    await t.ctx.telegram.notifier.tick();
    expect(fake.to(CHAT).length).toBe(count);
  });

  it('throttles a chat that sends too many commands', async () => {
    const chat = 7001;
    const before = fake.sent.length;
    for (let i = 0; i < 25; i++) fake.message(chat, '/ayuda');
    await fake.waitFor(chat, 21, before);
    // Everything queued was handled: one more update after them proves the poller got past them.
    const probe = fake.sent.length;
    fake.message(CHAT, '/ayuda');
    await fake.waitFor(CHAT, 1, probe);
    const answers = fake.to(chat);
    expect(answers.filter((m) => m.text?.startsWith('Ayuda')).length).toBe(20);
    expect(answers.filter((m) => m.text?.startsWith('Demasiadas órdenes')).length).toBe(1);
    expect(answers.length).toBe(21);
  });

  it('managers: link refused without two-factor or an alert role; /estado once linked', async () => {
    const support = await managerToken(t, 'support');
    expect((await call('POST', '/api/admin/me/telegram/link', support)).json()).toMatchObject({
      code: 'telegram_role',
    });
    /** A manager signed in, with the password confirmed again (X-Reauth) before two-factor is on. */
    const signedIn = async (username: string, role: 'owner' | 'operations') => {
      const manager = await createManager(t, username, 'clave-de-gestor', role);
      const session = (
        await t.app.inject({
          method: 'POST',
          url: '/api/admin/login',
          payload: { username, password: manager.password },
        })
      ).json().access as string;
      return { ...manager, session, confirmed: await reauthHeader(t, session, manager.password) };
    };
    const m = await signedIn('operador', 'operations');
    const ops = m.session;
    const noTotp = await call('POST', '/api/admin/me/telegram/link', ops);
    expect(noTotp.statusCode).toBe(409);
    expect(noTotp.json().message).toMatch(/verificación en dos pasos/);
    // Two-factor enrolled (as confirming a code would leave it): the link also wants the password
    // again — a stolen session alone does not link the thief's chat to the alerts (issue 26).
    await t.ctx.db.update(managers).set({ totpEnabledAt: new Date() }).where(eq(managers.id, m.id));
    const unconfirmed = await call('POST', '/api/admin/me/telegram/link', ops);
    expect(unconfirmed.statusCode).toBe(403);
    expect(unconfirmed.json().code).toBe('reauth_required');
    const { answer } = await linkChat(ops, 8001, '/api/admin/me/telegram/link', m.confirmed);
    expect(answer[0]!.text).toMatch(/vinculado al gestor/);
    // Operations does not see revenue in the console (docs/permissions.md): nor today's payments here.
    const [status] = await say(8001, '/estado');
    expect(status!.text).toBe('Estado del servicio\nServidores en línea: 0 de 1\nPeers activos: 2');
    // An owner does.
    const o = await signedIn('duena-tg', 'owner');
    await t.ctx.db.update(managers).set({ totpEnabledAt: new Date() }).where(eq(managers.id, o.id));
    await linkChat(o.session, 8002, '/api/admin/me/telegram/link', o.confirmed);
    const [full] = await say(8002, '/estado');
    expect(full!.text).toBe(
      'Estado del servicio\nServidores en línea: 0 de 1\nPeers activos: 2\nPagos de hoy: 1 (3,00\u00a0US$)',
    );
    // A customer's chat cannot ask it.
    const [refused] = await say(CHAT, '/estado');
    expect(refused!.text).toMatch(/no está vinculado a ningún gestor/);
  });

  it('alerts managers once when an agent is gone 5 minutes, and once when it returns', async () => {
    const managerChat = 8001;
    let agent = await ProtocolAgent.connect(base, agentToken);
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    const notifier = t.ctx.telegram.notifier;
    await notifier.tick(at(0));
    const sent = fake.to(managerChat).length;
    await agent.close();
    for (;;) {
      const [row] = await t.ctx.db.select().from(servers).where(eq(servers.id, serverId));
      if (row!.lastSeenAt === null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await notifier.tick(at(1_000));
    await notifier.tick(at(4 * 60_000));
    expect(fake.to(managerChat).length).toBe(sent);
    await notifier.tick(at(5 * 60_000 + 1_001));
    await notifier.tick(at(5 * 60_000 + 20_000));
    const alerts = () =>
      fake
        .to(managerChat)
        .slice(sent)
        .map((m) => m.text);
    expect(alerts()).toEqual(['⚠️ El agente del servidor «Uno» lleva más de 5 minutos desconectado.']);
    // Back 2 minutes later: told, but not before 5 minutes after the last alert.
    agent = await ProtocolAgent.connect(base, agentToken);
    await notifier.tick(at(7 * 60_000));
    expect(alerts().length).toBe(1);
    await notifier.tick(at(10 * 60_000 + 1_001));
    await notifier.tick(at(10 * 60_000 + 30_000));
    expect(alerts()).toEqual([
      '⚠️ El agente del servidor «Uno» lleva más de 5 minutos desconectado.',
      '✅ El agente del servidor «Uno» vuelve a estar conectado.',
    ]);
    // A short drop (under 5 minutes) is not an alert.
    await agent.close();
    for (;;) {
      const [row] = await t.ctx.db.select().from(servers).where(eq(servers.id, serverId));
      if (row!.lastSeenAt === null) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    await notifier.tick(at(16 * 60_000));
    agent = await ProtocolAgent.connect(base, agentToken);
    await notifier.tick(at(18 * 60_000));
    await notifier.tick(at(25 * 60_000));
    expect(alerts().length).toBe(2);
    await agent.close();
  });

  it('alerts a payment that credited nothing, once', async () => {
    const [notice] = await t.ctx.db
      .insert(paymentNotices)
      .values({
        gateway: 'remesita',
        reference: 'R-77',
        amount: '3.00',
        currency: 'USD',
        gatewayStatus: 'paid',
        outcome: 'unmatched',
        reason: 'La factura ya estaba pagada.',
      })
      .returning();
    // One already settled by an operator before the bot saw it: nothing to tell.
    await t.ctx.db.insert(paymentNotices).values({
      gateway: 'remesita',
      reference: 'R-78',
      amount: '4.00',
      currency: 'USD',
      gatewayStatus: 'paid',
      outcome: 'unmatched',
      reason: 'La factura ya estaba pagada.',
      resolvedAt: new Date(),
    });
    const sent = fake.to(8002).length;
    const opsSent = fake.to(8001).length;
    await t.ctx.telegram.notifier.tick();
    await t.ctx.telegram.notifier.tick();
    const got = fake.to(8002).slice(sent);
    expect(got.map((m) => m.text)).toEqual([
      `⚠️ Pago sin factura abierta: remesita, referencia ${notice!.reference}, 3.00 USD. La factura ya estaba pagada. No acreditó nada: revíselo en Facturas.`,
    ]);
    // Payments without an open invoice are revenue: the operations manager's chat is not told.
    expect(fake.to(8001).slice(opsSent)).toEqual([]);
  });

  it('ends the link on "Desvincular", on a password change and when the customer is disabled', async () => {
    // Another chat of hers (CHAT spent its commands of this minute above).
    const CHAT2 = 5002;
    await linkChat(access, CHAT2);
    // Desvincular from the web: the chat is told, and private commands stop.
    const sent = fake.to(CHAT2).length;
    expect((await call('DELETE', '/api/client/telegram', access)).json()).toMatchObject({ linked: false });
    expect(fake.to(CHAT2).slice(sent)[0]!.text).toMatch(/Chat desvinculado/);
    expect((await say(CHAT2, '/peers'))[0]!.text).toMatch(/no está vinculado/);

    // /desvincular from the chat.
    await linkChat(access, CHAT2);
    expect((await say(CHAT2, '/desvincular'))[0]!.text).toMatch(/Chat desvinculado/);
    expect((await call('GET', '/api/client/telegram', access)).json().linked).toBe(false);

    // A password change.
    await linkChat(access, CHAT2);
    const changed = await call('PATCH', '/api/client/settings', access, {
      old_password: customer.password,
      new_password: 'otra-clave-segura-9',
    });
    expect(changed.statusCode).toBe(200);
    access =
      changed.json().access ??
      changed.json().tokens?.access ??
      (await login(t, 'ana', 'otra-clave-segura-9')).access;
    expect((await say(CHAT2, '/peers'))[0]!.text).toMatch(/no está vinculado/);

    // Disabled by a manager.
    await linkChat(access, CHAT2);
    expect((await say(CHAT2, '/peers'))[0]!.text).toContain('Casa');
    const disabled = await call('PATCH', `/api/admin/customers/${customer.id}`, owner, {
      disabled: true,
      reason: 'Pruebas de Telegram',
    });
    expect(disabled.statusCode, disabled.body).toBe(200);
    expect((await say(CHAT2, '/peers'))[0]!.text).toMatch(/no está vinculado/);
    // The scheduler's pass deletes ended links.
    await t.ctx.telegram.notifier.tick();
    expect(await t.ctx.db.select().from(telegramLinks).where(eq(telegramLinks.realm, 'customer'))).toEqual(
      [],
    );
    await t.ctx.db.update(customers).set({ active: true }).where(eq(customers.id, customer.id));
  });

  it('the token in Ajustes: owner only, checked with getMe, never shown', async () => {
    const ops = await managerToken(t, 'operations');
    expect((await call('GET', '/api/admin/settings/telegram', ops)).statusCode).toBe(403);
    expect((await call('GET', '/api/admin/settings/telegram', owner)).json()).toEqual({
      source: 'env',
      bot: fake.username,
      webhook: false,
    });
    // A fresh confirmation first (X-Reauth), like the gateway credentials.
    const unconfirmed = await call('PUT', '/api/admin/settings/telegram', owner, { token: TOKEN });
    expect(unconfirmed.json()).toMatchObject({ code: 'reauth_required' });
    const proof = (await call('POST', '/api/admin/me/reauth', owner, { password: 'clave-de-gestor' })).json()
      .token;
    const put = (token: string | null) =>
      t.app.inject({
        method: 'PUT',
        url: '/api/admin/settings/telegram',
        headers: { ...bearer(owner), 'x-reauth': proof },
        payload: { token },
      });
    const badFormat = await call('PUT', '/api/admin/settings/telegram', owner, { token: 'abc' });
    expect(badFormat.statusCode).toBe(400);
    const refused = await put('987654321:ZZZ-refused-token-by-the-standin_00');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().message).toMatch(/Telegram no acepta este token/);
    expect((await call('GET', '/api/admin/settings/telegram', owner)).json().source).toBe('env');
    const saved = await put(TOKEN);
    expect(saved.json()).toEqual({ source: 'console', bot: fake.username, webhook: false });
    expect(saved.body).not.toContain(TOKEN);
    // Forgetting it is as sensitive: refused without the confirmation, done with it.
    expect((await call('PUT', '/api/admin/settings/telegram', owner, { token: null })).statusCode).toBe(403);
    expect((await put(null)).json().source).toBe('env');
  });

  it('never writes the token in a log line', () => {
    const all = logs.join('');
    expect(all).toContain('telegram'); // the bot did log (getMe refused above, mostly)
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain(TOKEN.split(':')[1]);
    expect(all).not.toContain('987654321:ZZZ');
  });
});
