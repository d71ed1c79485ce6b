/**
 * Issue 34, after a bulk action: each affected customer is told once, however many of their peers
 * changed — one e-mail (the local SMTP stand-in), one Telegram message to a linked chat (the Bot
 * API stand-in), one push on their open dashboard — in Spanish "tú"; a customer outside the filter
 * hears nothing. And a real bulk move: the peers end on the new server's agent (a protocol-level
 * agent per server over the real agent websocket), gone from the old one, and each customer's
 * .conf names the new server's endpoint and key.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BulkPeersAnswer } from '@vpn/contracts';
import { customers, peers } from '../../db/schema.ts';
import { FakeTelegram } from '../../../test/fakeTelegram.ts';
import {
  bearer,
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  listen,
  login,
  managerToken,
  MANAGER_PASSWORD,
  reauthHeader,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';
import { TestSmtp } from '../../../test/smtp.ts';
import { mailNotices } from './notices.ts';

const TOKEN = '555666777:AAH-bulk-notices-test-token-standin';
const ANA_CHAT = 9501;

let t: TestApp;
let smtp: TestSmtp;
const fake = new FakeTelegram(TOKEN);
let base: string;
let owner: string;
let miami: { id: number; token: string; publicKey: string };
let madrid: { id: number; token: string; publicKey: string };
let miamiAgent: ProtocolAgent;
let madridAgent: ProtocolAgent;
let ana: { id: number; access: string; peers: number[] };
let beto: { id: number; access: string; peers: number[] };
let anaPush: PushClient;

const bulk = (body: object, headers: Record<string, string> = {}) =>
  t.app.inject({
    method: 'POST',
    url: '/api/admin/peers/bulk',
    headers: { ...bearer(owner), ...headers },
    payload: body,
  });

/** Runs what sends the notices twice (a second pass must send nothing more). */
async function sendNotices(): Promise<void> {
  for (let i = 0; i < 2; i++) {
    await mailNotices({ db: t.ctx.db, mailer: t.ctx.mailer, companyName: 'Nube Segura' });
    await t.ctx.telegram.notifier.tick();
  }
}

const mailsTo = (address: string) => smtp.mails.filter((m) => m.to.includes(address));
const infos = (client: PushClient) =>
  client.messages.filter((m) => m.type === 'info').map((m) => m.message as string);

async function customer(name: string, n: number, serverId: number, email?: string) {
  const c = await createCustomer(t, name);
  if (email)
    await t.ctx.db.update(customers).set({ email, emailVerified: true }).where(eq(customers.id, c.id));
  const access = (await login(t, c.username, c.password)).access;
  const plan = await createPlan(t, { name: `Plan ${name}` });
  const ids: number[] = [];
  for (let i = 0; i < n; i++)
    ids.push(
      (await grantPeer(t, owner, { username: name, plan: plan.id, server: serverId, name: `P${i}` })).id,
    );
  return { id: c.id, access, peers: ids };
}

beforeAll(async () => {
  smtp = await TestSmtp.start();
  const apiUrl = await fake.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      PUBLIC_URL: 'https://panel.example',
      SMTP_URL: smtp.url,
      COMPANY_NAME: 'Nube Segura',
      TELEGRAM_BOT_TOKEN: TOKEN,
      TELEGRAM_API_URL: apiUrl,
    },
  });
  base = await listen(t);
  await t.ctx.telegram.cycle();
  owner = await managerToken(t);
  miami = await createServer(t, owner, 'Miami', { endpoint: 'mia.vpn.example:51820' });
  madrid = await createServer(t, owner, 'Madrid', { endpoint: 'mad.vpn.example:51821' });
  miamiAgent = await ProtocolAgent.connect(base, miami.token);
  madridAgent = await ProtocolAgent.connect(base, madrid.token);
  ana = await customer('ana', 3, miami.id, 'ana@example.com');
  beto = await customer('beto', 1, miami.id, 'beto@example.com');
  // Caro's one peer is on Madrid: outside the filter, she hears of nothing.
  await customer('caro', 1, madrid.id, 'caro@example.com');
  // Ana links her Telegram chat through the one-time link and the bot's /start.
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/client/telegram/link',
    headers: bearer(ana.access),
  });
  const code = new URL(res.json<{ url: string }>().url).searchParams.get('start')!;
  const before = fake.sent.length;
  fake.message(ANA_CHAT, `/start ${code}`);
  await fake.waitFor(ANA_CHAT, 1, before);
  await miamiAgent.until(() => miamiAgent.peers.size === 4);
  anaPush = await PushClient.connect(base, ana.access);
  // Whatever the grants mailed or sent is not what this test counts.
  await sendNotices();
  smtp.mails.length = 0;
});
afterAll(async () => {
  await anaPush?.close();
  await miamiAgent?.close();
  await madridAgent?.close();
  await t?.close();
  await fake.close();
  await smtp.close();
});

describe('customers told once after a bulk action', () => {
  it('an extension of 4 peers of 2 customers is 1 mail, 1 chat message and 1 push each', async () => {
    const chatBefore = fake.to(ANA_CHAT).length;
    const res = await bulk({ filter: { server: miami.id }, operation: 'extend', days: 3 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<BulkPeersAnswer>()).toMatchObject({ count: 4, customers: 2 });
    await sendNotices();

    const expected =
      'Ampliamos en 3 días el vencimiento de tus 3 peers para compensar una interrupción. No tienes que hacer nada.';
    expect(mailsTo('ana@example.com')).toHaveLength(1);
    expect(mailsTo('ana@example.com')[0]!.text).toContain(expected);
    expect(mailsTo('beto@example.com')).toHaveLength(1);
    expect(mailsTo('beto@example.com')[0]!.text).toContain(
      'Ampliamos en 3 días el vencimiento de tu peer para',
    );
    expect(mailsTo('caro@example.com')).toHaveLength(0);
    expect(
      fake
        .to(ANA_CHAT)
        .slice(chatBefore)
        .map((m) => m.text),
    ).toEqual([`Nube Segura: ${expected}`]);
    await anaPush.waitFor('info');
    expect(infos(anaPush)).toEqual(['Tu servicio se amplió 3 días para compensar una interrupción.']);
  });

  it('a move puts the peers on the new server’s agent and in the .conf, and tells each customer once', async () => {
    smtp.mails.length = 0;
    const chatBefore = fake.to(ANA_CHAT).length;
    const pushBefore = infos(anaPush).length;
    const moved = [...ana.peers, ...beto.peers];
    const keys = await t.ctx.db
      .select({ id: peers.id, key: peers.publicKey })
      .from(peers)
      .where(eq(peers.serverId, miami.id));
    expect(keys.map((k) => k.id).sort()).toEqual([...moved].sort());

    const refused = await bulk({ filter: { server: miami.id }, operation: 'move', to_server: madrid.id });
    expect(refused.statusCode).toBe(403);
    const res = await bulk(
      { filter: { server: miami.id }, operation: 'move', to_server: madrid.id },
      await reauthHeader(t, owner, MANAGER_PASSWORD),
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<BulkPeersAnswer>()).toMatchObject({ count: 4, customers: 2 });

    // The agents: Madrid holds the four keys beside Caro's, Miami holds none.
    await madridAgent.until(() => keys.every((k) => madridAgent.peers.has(k.key)));
    await miamiAgent.until(() => miamiAgent.peers.size === 0);
    expect(madridAgent.peers.size).toBe(5);

    // Each customer's .conf now points at Madrid: its endpoint and its public key.
    for (const [who, id] of [
      [ana, ana.peers[0]!],
      [beto, beto.peers[0]!],
    ] as const) {
      const conf = await t.app.inject({
        method: 'GET',
        url: `/api/client/accounts/peers/${id}`,
        headers: bearer(who.access),
      });
      expect(conf.statusCode, conf.body).toBe(200);
      expect(conf.body).toContain('Endpoint = mad.vpn.example:51821');
      expect(conf.body).toContain(`PublicKey = ${madrid.publicKey}`);
    }

    await sendNotices();
    const expected =
      'Movimos tus 3 peers al servidor Madrid. Si usas el archivo .conf o el código QR, descárgalo de nuevo desde tu panel; el enlace espejo ya tiene la configuración nueva.';
    expect(mailsTo('ana@example.com')).toHaveLength(1);
    expect(mailsTo('ana@example.com')[0]!.text).toContain(expected);
    expect(mailsTo('beto@example.com')).toHaveLength(1);
    expect(mailsTo('beto@example.com')[0]!.text).toContain('Movimos tu peer al servidor Madrid.');
    expect(mailsTo('caro@example.com')).toHaveLength(0);
    expect(
      fake
        .to(ANA_CHAT)
        .slice(chatBefore)
        .map((m) => m.text),
    ).toEqual([`Nube Segura: ${expected}`]);
    await anaPush.waitFor('info', (m) => m.message === expected);
    expect(infos(anaPush).slice(pushBefore)).toEqual([expected]);
  });
});
