/**
 * Plans sold by speed, and "reduce" instead of "cut" (issue 35), through the public API and the
 * agent protocol: the operator sets a plan's speeds in Planes, customers see them on the plan and on
 * the peer, the peer's agent gets them in its desired state; out of data on a "reduce" plan, or
 * within a plan's grace after expiry, the peer stays on its server at the reduced speed, its owner is
 * told once (push and mail), and a plan applied restores the plan's speed at once. `/metrics` counts
 * shaped and reduced peers per server.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AdminPlan, Peer, Plan } from '@vpn/contracts';
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

const METRICS = 'metrics-token-for-speed-0123';
let smtp: TestSmtp;
let t: TestApp;
let base: string;
let admin: string;
let server: { id: number; token: string };
let agent: ProtocolAgent;
let unlimited: typeof plans.$inferSelect;

beforeAll(async () => {
  smtp = await TestSmtp.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      PUBLIC_URL: 'https://panel.example',
      SMTP_URL: smtp.url,
      COMPANY_NAME: 'Nube Segura',
      METRICS_TOKEN: METRICS,
    },
  });
  base = await listen(t);
  admin = await managerToken(t);
  unlimited = await createPlan(t, { name: 'Premium', price: '9.00' });
  server = await createServer(t, admin, 'Velocidad');
  agent = await ProtocolAgent.connect(base, server.token);
});
afterAll(async () => {
  await agent?.close();
  await t.close();
  await smtp.close();
});
beforeEach(() => {
  smtp.mails.length = 0;
});

/** The operator creates a plan in Planes; answers it as the console shows it. */
async function consolePlan(body: Record<string, unknown>) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/plans',
    headers: bearer(admin),
    payload: { name: 'Nauta 2', price: '3.00', validity_days: 30, ...body },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json<AdminPlan>();
}

/** A customer with a verified e-mail, signed in, with one peer under plan `planId`. */
async function peerOf(email: string, planId: number) {
  const c = await createCustomer(t);
  await t.ctx.db.update(customers).set({ email, emailVerified: true }).where(eq(customers.id, c.id));
  const peer = await grantPeer(t, admin, {
    username: c.username,
    plan: planId,
    name: 'Teléfono',
    server: server.id,
  });
  const tokens = await login(t, c.username, c.password);
  return { peer, access: tokens.access };
}

const myPeer = async (access: string, id: number) => {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/client/accounts/peers',
    headers: bearer(access),
  });
  return res.json<Peer[]>().find((p) => p.id === id)!;
};

/** The agent reports the peer's counters (cumulative, both directions). */
const report = (publicKey: string, rx: number, tx: number) =>
  recordStats(t.ctx.db, server.id, [
    {
      public_key: publicKey,
      rx_bytes: rx,
      tx_bytes: tx,
      latest_handshake: Math.floor(Date.now() / 1000),
      endpoint: null,
    },
  ]);

const planRow = async (id: number) =>
  (await t.ctx.db.query.plans.findFirst({ where: (p, { eq: is }) => is(p.id, id) }))!;

describe('plans sold by speed', () => {
  it('the operator sets the speeds in Planes; the public list, the peer and its agent carry them', async () => {
    const refused = await t.app.inject({
      method: 'POST',
      url: '/api/admin/plans',
      headers: bearer(admin),
      payload: { name: 'Malo', price: '1.00', validity_days: 30, speed_down_mbit: -2 },
    });
    expect(refused.statusCode).toBe(400);
    expect(refused.body).toContain('La velocidad debe ser un número de Mbit/s');

    const plan = await consolePlan({ speed_down_mbit: 2, speed_up_mbit: 1.5 });
    expect(plan).toMatchObject({
      speed_down_mbit: 2,
      speed_up_mbit: 1.5,
      on_data_exhausted: 'cut',
      reduced_kbit: 256,
      grace_days: 0,
    });
    invalidatePlans(t.ctx.db);
    const pub = await t.app.inject({ method: 'GET', url: '/api/client/plans' });
    expect(pub.json<Plan[]>().find((p) => p.id === plan.id)).toMatchObject({
      speed_down_mbit: 2,
      speed_up_mbit: 1.5,
    });

    const { peer, access } = await peerOf('ana@example.com', plan.id);
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === 2000);
    expect(agent.peers.get(peer.publicKey)).toMatchObject({ down_kbit: 2000, up_kbit: 1500 });
    expect((await myPeer(access, peer.id)).speed).toEqual({ down_mbit: 2, up_mbit: 1.5, reduced: null });

    // Buying another plan changes its speed at once: the unlimited plan's peer carries no speed.
    await t.ctx.peers.extendWithPlan(peer.id, unlimited, {});
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === undefined);
    expect(agent.peers.get(peer.publicKey)?.up_kbit).toBeUndefined();
    expect((await myPeer(access, peer.id)).speed).toEqual({ down_mbit: null, up_mbit: null, reduced: null });
  });

  it('out of data on a "reduce" plan: online at the reduced speed, told once, a plan restores the speed', async () => {
    const plan = await consolePlan({
      speed_down_mbit: 4,
      speed_up_mbit: 4,
      on_data_exhausted: 'reduce',
      reduced_kbit: 256,
      data_gb: 0.001,
    });
    const { peer, access } = await peerOf('leo@example.com', plan.id);
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === 4000);
    const push = await PushClient.connect(base, access);

    // At 80 % the notice says what will happen: reduced, not cut.
    await report(peer.publicKey, 400_000, 450_000);
    await t.ctx.allowances.enforce();
    expect(smtp.mails.find((m) => m.to.includes('leo@example.com'))?.text).toContain(
      'Cuando se agoten, seguirá conectado a velocidad reducida (256 kbit/s)',
    );
    smtp.mails.length = 0;

    await report(peer.publicKey, 600_000, 500_000);
    await t.ctx.allowances.enforce();
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === 256);
    expect(agent.peers.get(peer.publicKey)?.up_kbit).toBe(256);
    await push.waitFor('info', (m) =>
      String(m.message).includes('sigue conectado a velocidad reducida (256 kbit/s)'),
    );
    const reduced = await myPeer(access, peer.id);
    expect(reduced.active).toBe(true);
    expect(reduced.speed.reduced).toMatchObject({ reason: 'data', kbit: 256 });
    await t.ctx.allowances.enforce();
    const mails = smtp.mails.filter((m) => m.to.includes('leo@example.com'));
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('sigue conectado a velocidad reducida (256 kbit/s)');

    const scrape = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) });
    expect(scrape.body).toContain(
      `vpn_server_speed_peers{server_id="${server.id}",server="Velocidad",state="reduced"} 1`,
    );
    expect(scrape.body).toMatch(
      new RegExp(
        `vpn_server_speed_peers\\{server_id="${server.id}",server="Velocidad",state="shaped"\\} [1-9]`,
      ),
    );

    // Renewing restores the plan's speed at once (a delta, the peer never leaves the interface).
    await t.ctx.peers.extendWithPlan(peer.id, await planRow(plan.id), {});
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === 4000);
    expect((await myPeer(access, peer.id)).speed.reduced).toBeNull();
    push.close();
  });

  it('grace after expiry: N days online at the reduced speed, then cut as before', async () => {
    const plan = await consolePlan({ grace_days: 2, reduced_kbit: 128 });
    const { peer, access } = await peerOf('noa@example.com', plan.id);
    await agent.until(() => agent.peers.has(peer.publicKey));
    expect(agent.peers.get(peer.publicKey)?.down_kbit).toBeUndefined();

    await t.ctx.db
      .update(peers)
      .set({ expiresAt: new Date(Date.now() - 3_600_000) })
      .where(eq(peers.id, peer.id));
    await t.ctx.peers.disableExpired();
    await t.ctx.allowances.enforce();
    await agent.until(() => agent.peers.get(peer.publicKey)?.down_kbit === 128);
    const inGrace = await myPeer(access, peer.id);
    expect(inGrace.active).toBe(true);
    expect(inGrace.speed.reduced).toMatchObject({ reason: 'expired', kbit: 128 });
    // The console sees it working, at its reduced speed.
    const detail = await t.app.inject({
      method: 'GET',
      url: `/api/admin/peers/${peer.id}`,
      headers: bearer(admin),
    });
    expect(detail.json()).toMatchObject({
      active: true,
      speed: { reduced: { reason: 'expired', kbit: 128 } },
    });
    const mail = smtp.mails.find((m) => m.to.includes('noa@example.com'));
    expect(mail?.text).toContain('venció. Sigue conectado a velocidad reducida (128 kbit/s)');
    await t.ctx.allowances.enforce();
    expect(smtp.mails.filter((m) => m.to.includes('noa@example.com'))).toHaveLength(1);

    // The grace is over: off its server, as an expiry without grace.
    await t.ctx.db
      .update(peers)
      .set({ expiresAt: new Date(Date.now() - 3 * 86_400_000) })
      .where(eq(peers.id, peer.id));
    await t.ctx.peers.disableExpired();
    await agent.until(() => !agent.peers.has(peer.publicKey));
    expect((await myPeer(access, peer.id)).active).toBe(false);
  });
});
