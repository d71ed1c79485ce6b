/**
 * Issue 19 on the control plane: an agent (the protocol stand-in) reports a peer in use on two
 * devices; the customer and the operator see it, the customer's socket gets the push, and it is
 * cleared by a regenerate, by 24 h without reports (the scheduler's step, clock moved), and the
 * Ajustes policy regenerates the keys after N reports within a day.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { concurrentMsg, type AdminPeer, type AdminPeerDetail, type Peer } from '@vpn/contracts';
import { peers } from '../../db/schema.ts';
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

const METRICS = 'metrics-token-for-tests-0123';
let t: TestApp;
let base: string;
let admin: string;
let planId: number;
let server: { id: number; token: string };
let agent: ProtocolAgent;
const sockets: PushClient[] = [];

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { METRICS_TOKEN: METRICS } });
  base = await listen(t);
  admin = await managerToken(t);
  planId = (await createPlan(t)).id;
  server = await createServer(t, admin, 'Uno');
  agent = await ProtocolAgent.connect(base, server.token);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  await agent.close();
  await t.close();
});

async function customerWithPeer(name = 'Móvil') {
  const c = await createCustomer(t);
  const { access } = await login(t, c.username, c.password);
  const push = await PushClient.connect(base, access);
  sockets.push(push);
  const row = await grantPeer(t, admin, { username: c.username, plan: planId, server: server.id, name });
  await agent.until(() => agent.peers.has(row.publicKey));
  return { access, push, row };
}

const report = (publicKey: string, endpoints = 2, last = ['192.0.2.0/24', '198.51.100.0/24']) =>
  agent.send({
    type: 'concurrent_use',
    at: Date.now(),
    peers: [{ public_key: publicKey, endpoints, switches: 4, last }],
  });

async function customerPeer(access: string, id: number): Promise<Peer> {
  const res = await t.app.inject({
    method: 'GET',
    url: '/api/client/accounts/peers',
    headers: bearer(access),
  });
  expect(res.statusCode).toBe(200);
  return res.json<Peer[]>().find((p) => p.id === id)!;
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const adminGet = <T>(url: string) =>
  t.app.inject({ method: 'GET', url, headers: bearer(admin) }).then((r) => {
    expect(r.statusCode).toBe(200);
    return r.json<T>();
  });

describe('concurrent use (issue 19)', () => {
  it('asks agents for the reports in its welcome', () => {
    expect(agent.received.find((m) => m.type === 'welcome')).toMatchObject({ concurrent_use: true });
  });

  it('flags the reported peer for its owner and the operator, with a push, and nothing else', async () => {
    const flagged = await customerWithPeer('Móvil');
    const quiet = await customerWithPeer('Portátil');
    expect((await customerPeer(flagged.access, flagged.row.id)).concurrent_use).toBeNull();
    const before = await adminGet<{ concurrent_use_peers: number }>('/api/admin/metrics');

    const reportedAt = Date.now();
    const events: unknown[] = [];
    const unsubscribe = t.ctx.concurrentUse.onDetected((e) => events.push(e));
    report(flagged.row.publicKey, 3);
    const peer = await until(
      () => customerPeer(flagged.access, flagged.row.id),
      (p) => p.concurrent_use !== null,
    );
    expect(peer.concurrent_use).toEqual({ detected_at: expect.any(String), endpoints: 3 });
    // Detected from this report: between sending it and reading the answer (no time budget).
    const detectedAt = Date.parse(peer.concurrent_use!.detected_at);
    expect(detectedAt).toBeGreaterThanOrEqual(reportedAt - 1);
    expect(detectedAt).toBeLessThanOrEqual(Date.now());
    const info = await flagged.push.waitFor('info', (m) => m.peer_id === flagged.row.id);
    expect(info.message).toBe(
      'El peer Móvil parece estar en uso en más de un dispositivo a la vez. Eso vuelve inestables ambas conexiones: cada dispositivo necesita su propio peer.',
    );
    await flagged.push.waitFor(
      'updated_peer',
      (m) => (m.peer as Peer).id === flagged.row.id && (m.peer as Peer).concurrent_use !== null,
    );
    expect((await customerPeer(quiet.access, quiet.row.id)).concurrent_use).toBeNull();

    // The operator: the list filter "uso simultáneo", the peer's page, Resumen's count.
    const list = await adminGet<{ results: AdminPeer[] }>('/api/admin/peers?state=concurrent_use');
    expect(list.results.map((p) => p.id)).toContain(flagged.row.id);
    expect(list.results.map((p) => p.id)).not.toContain(quiet.row.id);
    const detail = await adminGet<AdminPeerDetail>(`/api/admin/peers/${flagged.row.id}`);
    expect(detail.concurrent_use).toMatchObject({
      endpoints: 3,
      recent: ['192.0.2.0/24', '198.51.100.0/24'],
      detections_24h: 1,
    });
    const after = await adminGet<{ concurrent_use_peers: number }>('/api/admin/metrics');
    expect(after.concurrent_use_peers).toBe(before.concurrent_use_peers + 1);
    const scrape = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) });
    expect(scrape.body).toContain(
      `vpn_server_concurrent_use_peers{server_id="${server.id}",server="Uno"} ${after.concurrent_use_peers}`,
    );

    // A second report in the same episode keeps the first date and sends no second notice.
    report(flagged.row.publicKey, 2);
    await until(
      () => adminGet<AdminPeerDetail>(`/api/admin/peers/${flagged.row.id}`),
      (d) => d.concurrent_use?.detections_24h === 2,
    );
    expect((await customerPeer(flagged.access, flagged.row.id)).concurrent_use).toEqual(peer.concurrent_use);
    expect(flagged.push.messages.filter((m) => m.type === 'info')).toHaveLength(1);
    // The hook other notices (Telegram) subscribe to: once per episode, never an address.
    unsubscribe();
    expect(events).toEqual([
      {
        peerId: flagged.row.id,
        customerId: flagged.row.customerId,
        name: 'Móvil',
        endpoints: 3,
        fresh: true,
        regenerated: false,
      },
    ]);
  });

  it('ignores a report about a key that is not a peer of the reporting server', async () => {
    const other = await createServer(t, admin, 'Dos');
    const otherAgent = await ProtocolAgent.connect(base, other.token);
    try {
      const { access, row } = await customerWithPeer('Tableta');
      const beats = () => otherAgent.received.filter((m) => m.type === 'heartbeat').length;
      const before = beats();
      otherAgent.send({
        type: 'concurrent_use',
        at: Date.now(),
        peers: [{ public_key: row.publicKey, endpoints: 2, switches: 3, last: [] }],
      });
      // A report the hub handles after it proves the first one was handled (one queue per agent).
      otherAgent.send({ type: 'heartbeat', at: Date.now() });
      await until(
        async () => beats(),
        (n) => n > before,
      );
      expect((await customerPeer(access, row.id)).concurrent_use).toBeNull();
    } finally {
      await otherAgent.close();
    }
  });

  it('clears at once when the customer regenerates the peer', async () => {
    const { access, row } = await customerWithPeer();
    report(row.publicKey);
    await until(
      () => customerPeer(access, row.id),
      (p) => p.concurrent_use !== null,
    );
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/client/accounts/peers/${row.id}`,
      headers: bearer(access),
      payload: { operation: 'regenerate' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json<Peer>().concurrent_use).toBeNull();
    expect((await customerPeer(access, row.id)).concurrent_use).toBeNull();
  });

  it('clears after 24 h without reports (the scheduler, clock moved), not before', async () => {
    const { access, push, row } = await customerWithPeer();
    report(row.publicKey);
    await until(
      () => customerPeer(access, row.id),
      (p) => p.concurrent_use !== null,
    );
    const service = t.ctx.concurrentUse;
    const real = service.clock;
    try {
      service.clock = () => new Date(Date.now() + 23 * 3600_000);
      await service.clearStale();
      expect((await customerPeer(access, row.id)).concurrent_use).not.toBeNull();
      service.clock = () => new Date(Date.now() + 24 * 3600_000 + 60_000);
      expect(await service.clearStale()).toBeGreaterThanOrEqual(1);
    } finally {
      service.clock = real;
    }
    expect((await customerPeer(access, row.id)).concurrent_use).toBeNull();
    await push.waitFor(
      'updated_peer',
      (m) => (m.peer as Peer).id === row.id && (m.peer as Peer).concurrent_use === null,
    );
    const list = await adminGet<{ results: AdminPeer[] }>('/api/admin/peers?state=concurrent_use');
    expect(list.results.map((p) => p.id)).not.toContain(row.id);
  });

  it('with the policy "regenerate after 2", regenerates the keys at the second report and tells the owner', async () => {
    const patch = (payload: unknown) =>
      t.app.inject({
        method: 'PATCH',
        url: '/api/admin/settings/concurrent-use',
        headers: bearer(admin),
        payload: payload as object,
      });
    expect(await adminGet('/api/admin/settings/concurrent-use')).toEqual({
      action: 'notify',
      regenerate_after: 3,
    });
    const bad = await patch({ action: 'borrar' });
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain(concurrentMsg.policyAction);
    const zero = await patch({ regenerate_after: 0 });
    expect(zero.statusCode).toBe(400);
    expect(zero.body).toContain(concurrentMsg.policyAfter);
    expect(await adminGet('/api/admin/settings/concurrent-use')).toEqual({
      action: 'notify',
      regenerate_after: 3,
    });
    const ok = await patch({ action: 'regenerate', regenerate_after: 2 });
    expect(ok.statusCode).toBe(200);
    try {
      const { access, push, row } = await customerWithPeer('Router');
      report(row.publicKey);
      await until(
        () => customerPeer(access, row.id),
        (p) => p.concurrent_use !== null,
      );
      const [still] = await t.ctx.db.select().from(peers).where(eq(peers.id, row.id));
      expect(still!.publicKey).toBe(row.publicKey);
      const link = (await customerPeer(access, row.id)).mirror_link;
      const mirror = () => t.app.inject({ method: 'GET', url: new URL(link, base).pathname });
      const privateKey = (conf: string) => /^PrivateKey = (.+)$/m.exec(conf)?.[1];
      const oldKey = privateKey((await mirror()).body);
      expect(oldKey).toBeTruthy();
      report(row.publicKey);
      // New keys reach the agent: the old key is removed, a new one added at the same address.
      await agent.until(() => !agent.peers.has(row.publicKey));
      const [now] = await t.ctx.db.select().from(peers).where(eq(peers.id, row.id));
      expect(now!.publicKey).not.toBe(row.publicKey);
      expect(agent.peers.has(now!.publicKey)).toBe(true);
      const info = await push.waitFor('info', (m) => m.message === concurrentMsg.regenerated('Router'));
      expect(info.message).toContain('enlace espejo');
      expect((await customerPeer(access, row.id)).concurrent_use).toBeNull();
      // The same mirror link now serves the new configuration.
      const conf = await mirror();
      expect(conf.statusCode).toBe(200);
      expect(privateKey(conf.body)).toBeTruthy();
      expect(privateKey(conf.body)).not.toBe(oldKey);
    } finally {
      await patch({ action: 'notify', regenerate_after: 3 });
    }
  });
});
