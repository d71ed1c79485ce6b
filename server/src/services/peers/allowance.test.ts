/**
 * Data allowance per plan (issue 9): a plan's GB count against the peer's traffic as the agents
 * report it; at 80 % the owner gets one mail (a real SMTP server on loopback) and a push, even with
 * two control-plane instances running the scheduler at once; at 100 % the peer leaves its server's
 * desired state like an expired one, its mirror link keeps answering, and a plan brings it back.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client.ts';
import { customers, peers, type plans } from '../../db/schema.ts';
import { invalidatePlans } from '../billing/plans.ts';
import { recordStats } from './usage.ts';
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
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';
import { TestSmtp } from '../../../test/smtp.ts';
import { openMirrorToken } from './mirrorTokens.ts';

let smtp: TestSmtp;
let t: TestApp;
/** A second control-plane instance: on PostgreSQL with its own connection pool. */
let t2: TestApp;
let db2: Database;
let base: string;
let admin: string;
let server: { id: number; token: string };
let agent: ProtocolAgent;
/** 1 MB for 30 days: the smallest allowance a plan can carry is 0.001 GB. */
let small: typeof plans.$inferSelect;
let unlimited: typeof plans.$inferSelect;

const MB = 1_000_000;

beforeAll(async () => {
  smtp = await TestSmtp.start();
  const env = { PUBLIC_URL: 'https://panel.example', SMTP_URL: smtp.url, COMPANY_NAME: 'Nube Segura' };
  t = await createTestApp({ scheduler: false, env });
  base = await listen(t);
  db2 = t.database.url ? await openDatabase({ databaseUrl: t.database.url, poolSize: 5 }) : t.database;
  t2 = await createTestApp({ scheduler: false, env, database: db2 });
  admin = await managerToken(t);
  small = await createPlan(t, { name: 'Datos 1 MB', price: '1.00', dataGb: '0.001' });
  unlimited = await createPlan(t, { name: 'Ilimitado', price: '5.00' });
  invalidatePlans(t.ctx.db);
  server = await createServer(t, admin, 'Datos');
  agent = await ProtocolAgent.connect(base, server.token);
});
afterAll(async () => {
  await agent?.close();
  await t2.close();
  if (db2 !== t.database) await db2.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.mails.length = 0;
});

/** A customer with a verified e-mail, signed in, with one peer under `plan`. */
async function peerOf(email: string, plan: typeof plans.$inferSelect) {
  const c = await createCustomer(t);
  await t.ctx.db.update(customers).set({ email, emailVerified: true }).where(eq(customers.id, c.id));
  const peer = await grantPeer(t, admin, {
    username: c.username,
    plan: plan.id,
    name: 'Teléfono',
    server: server.id,
  });
  const tokens = await login(t, c.username, c.password);
  return { peer, access: tokens.access };
}

/** The agent reports the peer's counters (server side: rx = the customer's upload). */
const report = (publicKey: string, rx: number, tx: number) =>
  recordStats(t.ctx.db, server.id, [
    {
      public_key: publicKey,
      rx_bytes: rx,
      tx_bytes: tx,
      latest_handshake: Math.floor(Date.now() / 1000),
      endpoint: '198.51.100.7:4500',
    },
  ]);

/** Both instances' schedulers enforce allowances at the same moment. */
const bothEnforce = () => Promise.all([t.ctx.allowances.enforce(), t2.ctx.allowances.enforce()]);

const myPeer = async (access: string, id: number) => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/client/accounts/peers',
    headers: bearer(access),
  });
  return (res.json() as { id: number; active: boolean; data: unknown }[]).find((p) => p.id === id)!;
};

describe('data allowance', () => {
  it('counts both directions against the plan and tells the owner once at 80 %, by mail and push', async () => {
    const { peer, access } = await peerOf('eva@example.com', small);
    expect((await myPeer(access, peer.id)).data).toEqual({ used: 0, allowance: MB });
    const push = await PushClient.connect(base, access);

    await report(peer.publicKey, 300_000, 400_000); // 70 %
    await bothEnforce();
    expect(smtp.mails).toHaveLength(0);

    await report(peer.publicKey, 400_000, 450_000); // 85 %
    await bothEnforce();
    await bothEnforce();
    const mails = smtp.mails.filter((m) => m.to.includes('eva@example.com'));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('Tu peer «Teléfono» de Nube Segura ha usado 0,9 MB de los 1 MB');
    expect(mails[0]!.text).toContain('Añadir plan: https://panel.example/dashboard/home');
    await push.waitFor('info', (m) => String(m.message).includes('ha usado el 80 % de los datos'));
    expect((await myPeer(access, peer.id)).data).toEqual({ used: 850_000, allowance: MB });
    // Still within the allowance: still on its server.
    expect(agent.peers.has(peer.publicKey)).toBe(true);
    push.close();
  });

  it('switches the peer off at 100 % through the agents, keeps its mirror link, and a plan brings it back', async () => {
    const { peer, access } = await peerOf('leo@example.com', small);
    await agent.until(() => agent.peers.has(peer.publicKey));
    const push = await PushClient.connect(base, access);

    await report(peer.publicKey, 600_000, 500_000); // 110 %
    await bothEnforce();
    await agent.until(() => !agent.peers.has(peer.publicKey));
    await push.waitFor('info', (m) => String(m.message).includes('ha agotado los datos de su plan'));
    // No 80 % mail on top of the switch-off.
    expect(smtp.mails.filter((m) => m.to.includes('leo@example.com'))).toHaveLength(0);
    const off = await myPeer(access, peer.id);
    expect(off).toMatchObject({ active: false, data: { used: MB, allowance: MB } });

    // Traffic reported afterwards (the agent's last report) keeps it off; a download is refused.
    await report(peer.publicKey, 700_000, 500_000);
    await bothEnforce();
    expect(agent.peers.has(peer.publicKey)).toBe(false);
    const conf = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.id}`,
      headers: bearer(access),
    });
    expect(conf.statusCode).toBe(400);

    // The mirror link still answers, with the allowance used up in its header.
    const mirror = await t.app.inject({
      method: 'GET',
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, peer.mirrorTokenEnc)}`,
    });
    expect(mirror.statusCode).toBe(200);
    expect(mirror.headers['subscription-userinfo']).toMatch(/total=1000000;/);
    // Also switched off by a manager: that wins over everything, the link serves nothing (issue 26).
    await t.ctx.db.update(peers).set({ managerDisabledAt: new Date() }).where(eq(peers.id, peer.id));
    const refused = await t.app.inject({
      method: 'GET',
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, peer.mirrorTokenEnc)}`,
    });
    expect(refused.statusCode).toBe(404);
    expect(refused.body).toBe('');
    await t.ctx.db.update(peers).set({ managerDisabledAt: null }).where(eq(peers.id, peer.id));

    // A top-up plan starts a new period: back on its server, nothing used.
    await t.ctx.peers.extendWithPlan(peer.id, small, {});
    await agent.until(() => agent.peers.has(peer.publicKey));
    expect(await myPeer(access, peer.id)).toMatchObject({ active: true, data: { used: 0, allowance: MB } });
    await bothEnforce();
    expect(agent.peers.has(peer.publicKey)).toBe(true);
    push.close();
  });

  it('a renewal with an unlimited plan lifts the limit; plans without GB behave as before', async () => {
    const { peer, access } = await peerOf('noa@example.com', unlimited);
    expect((await myPeer(access, peer.id)).data).toBeNull();
    await report(peer.publicKey, 5 * MB, 5 * MB);
    await bothEnforce();
    expect((await myPeer(access, peer.id)).active).toBe(true);
    expect(smtp.mails).toHaveLength(0);

    const limited = await peerOf('ian@example.com', small);
    await report(limited.peer.publicKey, 2 * MB, 0);
    await bothEnforce();
    expect((await myPeer(limited.access, limited.peer.id)).active).toBe(false);
    await t.ctx.peers.extendWithPlan(limited.peer.id, unlimited, {});
    expect(await myPeer(limited.access, limited.peer.id)).toMatchObject({ active: true, data: null });
    await agent.until(() => agent.peers.has(limited.peer.publicKey));
  });
});
