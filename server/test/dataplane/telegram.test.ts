/**
 * Issue 20's check on the real data plane: a customer links a Telegram chat (Bot API stand-in),
 * asks /peers, gets a .conf by /config that works from a namespace through wireguard-go and the real
 * agent, renews through the payment link /renovar returns, and gets the 72 h reminder; a manager's
 * chat gets exactly one alert when the agent is killed (-9) and one when it is back.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managers, peers, servers } from '../../src/db/schema.ts';
import { FakeTelegram } from '../fakeTelegram.ts';
import {
  bearer,
  confirmed as confirmedHeaders,
  createCustomer,
  createManager,
  createPlan,
  createTestApp,
  listen,
  login,
  managerToken,
  reauthHeader,
  type TestApp,
} from '../helpers.ts';
import { INTERNET_HOST, Lab, dataplaneSkipReason, eventually, uniqueName, type Host } from './network.ts';

const skip = dataplaneSkipReason();
const TOKEN = '777888999:AAG-dataplane-telegram-standin_token';
const CUSTOMER_CHAT = 4242;
const MANAGER_CHAT = 4343;

describe.skipIf(skip !== null)(`Telegram on the data plane${skip ? ` (omitido: ${skip})` : ''}`, () => {
  const fake = new FakeTelegram(TOKEN);
  let lab: Lab;
  let t: TestApp;
  let base: string;
  let admin: string;
  let host: Host;
  let iface: string;
  let server: { id: number; token: string };
  let access: string;
  let peerId: number;

  async function say(chat: number, text: string, count = 1) {
    const before = fake.sent.length;
    fake.message(chat, text);
    return fake.waitFor(chat, count, before);
  }
  async function press(chat: number, data: string) {
    const before = fake.sent.length;
    fake.press(chat, data);
    return fake.waitFor(chat, 1, before);
  }
  async function link(token: string, path: string, chat: number, headers: Record<string, string> = {}) {
    const res = await t.app.inject({ method: 'POST', url: path, headers: { ...bearer(token), ...headers } });
    expect(res.statusCode).toBe(200);
    const code = new URL(res.json().url).searchParams.get('start')!;
    const [answer] = await say(chat, `/start ${code}`);
    expect(answer!.text).toMatch(/vinculado/);
  }
  const online = async () => {
    const [row] = await t.ctx.db.select().from(servers).where(eq(servers.id, server.id));
    return row!.lastSeenAt !== null && Date.now() - row!.lastSeenAt.getTime() < 45_000;
  };

  beforeAll(async () => {
    const apiUrl = await fake.start();
    lab = new Lab();
    t = await createTestApp({
      scheduler: false,
      env: { TELEGRAM_BOT_TOKEN: TOKEN, TELEGRAM_API_URL: apiUrl, PAYMENTS_SANDBOX: 'true' },
    });
    base = await listen(t);
    await t.ctx.telegram.cycle();
    admin = await managerToken(t);
    host = lab.host('tgs', '198.51.100.71');
    iface = uniqueName('tgwg');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmedHeaders(t, admin),
      payload: { name: 'Habana', endpoint: '198.51.100.71:51820', ubication: 'Lab', interface_name: iface },
    });
    expect(res.statusCode).toBe(201);
    server = { id: res.json().server.id, token: res.json().agent_token };
    lab.startAgent(host, base, server.token, iface);
    await eventually(online, 60_000, 'agente en línea');
  });
  afterAll(async () => {
    await t?.close();
    await lab?.cleanup();
    await fake.close();
  });

  it('links, lists, downloads a working .conf, renews by the link and gets the 72 h reminder', async () => {
    const plan = await createPlan(t);
    const c = await createCustomer(t, 'elena');
    access = (await login(t, c.username, c.password)).access;
    const grant = await t.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(admin),
      payload: { username: 'elena', plan: plan.id, server: server.id, name: 'Portátil' },
    });
    expect(grant.statusCode).toBe(201);
    peerId = grant.json().id;
    await t.ctx.db.update(peers).set({ manualPayment: false }).where(eq(peers.id, peerId));
    await link(access, '/api/client/telegram/link', CUSTOMER_CHAT);

    const [list] = await say(CUSTOMER_CHAT, '/peers');
    expect(list!.text).toContain('• Portátil: activo');

    const [doc] = await say(CUSTOMER_CHAT, '/config Portátil', 2);
    const conf = doc!.file!.data.toString('utf8');
    const client = lab.host('tgc', '198.51.100.72');
    await eventually(() => lab.peersOn(iface).length > 0, 20_000, 'peer en la interfaz');
    await lab.loadClientConf(client, conf);
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
    expect(await lab.reaches(client.ns, INTERNET_HOST)).toBe(true);

    await say(CUSTOMER_CHAT, '/renovar');
    await press(CUSTOMER_CHAT, `ren:${plan.id}`);
    const [payment] = await press(CUSTOMER_CHAT, `ren:${plan.id}:${peerId}`);
    const url = /Paga aquí: (\S+)/.exec(payment!.text!)![1]!;
    const before = (await t.ctx.db.select().from(peers).where(eq(peers.id, peerId)))[0]!.expiresAt!;
    const pay = await fetch(`${base}${url.replace(/^https?:\/\/[^/]+/, '')}/pay`, {
      method: 'POST',
      redirect: 'manual',
    });
    expect(pay.status).toBe(303);
    const after = (await t.ctx.db.select().from(peers).where(eq(peers.id, peerId)))[0]!.expiresAt!;
    expect(after.getTime() - before.getTime()).toBe(30 * 86_400_000);
    // Still the same tunnel after the renewal.
    expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);

    const sent = fake.to(CUSTOMER_CHAT).length;
    await t.ctx.telegram.notifier.tick(new Date(after.getTime() - 71 * 3600_000));
    await t.ctx.telegram.notifier.tick(new Date(after.getTime() - 70 * 3600_000));
    const reminders = fake
      .to(CUSTOMER_CHAT)
      .slice(sent)
      .filter((m) => m.text?.includes('vence'));
    expect(reminders.map((m) => m.text?.split(':')[0])).toEqual([
      'Tu peer «Portátil» vence en menos de 3 días',
    ]);
  });

  it('a manager gets exactly one alert when the agent is killed and one when it is back', async () => {
    const m = await createManager(t, 'guardia', 'clave-de-gestor', 'operations');
    const token = (
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { username: m.username, password: m.password },
      })
    ).json().access as string;
    // A manager's link needs the password again (X-Reauth), asked before two-factor is on.
    const confirmed = await reauthHeader(t, token, m.password);
    await t.ctx.db.update(managers).set({ totpEnabledAt: new Date() }).where(eq(managers.id, m.id));
    await link(token, '/api/admin/me/telegram/link', MANAGER_CHAT, confirmed);
    const notifier = t.ctx.telegram.notifier;
    const t0 = Date.now();
    const at = (ms: number) => new Date(t0 + ms);
    await notifier.tick(at(0));
    const before = fake.to(MANAGER_CHAT).length;

    const agent = lab.startAgent(host, base, server.token, iface); // a fresh process we can kill
    await eventually(online, 60_000, 'agente reiniciado en línea');
    agent.kill('SIGKILL');
    await eventually(async () => !(await online()), 60_000, 'agente desconectado');
    for (const ms of [1_000, 60_000, 3 * 60_000, 5 * 60_000 + 1_001, 6 * 60_000, 9 * 60_000])
      await notifier.tick(at(ms));
    const alerts = () =>
      fake
        .to(MANAGER_CHAT)
        .slice(before)
        .map((x) => x.text);
    expect(alerts()).toEqual(['⚠️ El agente del servidor «Habana» lleva más de 5 minutos desconectado.']);

    lab.startAgent(host, base, server.token, iface);
    await eventually(online, 60_000, 'agente de vuelta');
    for (const ms of [10 * 60_000 + 2_000, 11 * 60_000, 20 * 60_000]) await notifier.tick(at(ms));
    expect(alerts()).toEqual([
      '⚠️ El agente del servidor «Habana» lleva más de 5 minutos desconectado.',
      '✅ El agente del servidor «Habana» vuelve a estar conectado.',
    ]);
  });
});
