/**
 * Issue 33: the control plane tells an agent which of its `stats` frames it stored
 * (`stats_stored`), so that after a panel instance dies the agent's first report on another one
 * lists only the peers whose last report may be lost, not every peer (bench:fleet's kill -9: 33
 * agents × 10,000 peers stored at once). Storing is held open (and made to fail) here at will.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentPeerStats } from '@vpn/contracts';
import { peerUsageHourly } from '../db/schema.ts';
import type * as Usage from '../services/peers/usage.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  listen,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';
import { AgentConnection, type AgentHandler } from '../../../agent/src/connection.ts';
import { silentLogger } from '../../../agent/src/log.ts';
import { Reconciler } from '../../../agent/src/reconcile.ts';
import { fakeReconcilerBackend } from '../../../agent/src/testing/fakeBackend.ts';

const store = vi.hoisted(() => {
  let release: () => void = () => {};
  let entered: () => void = () => {};
  const state = {
    /** Resolves when a report reached the store while held. */
    entered: Promise.resolve(),
    gate: Promise.resolve(),
    hold() {
      state.gate = new Promise<void>((r) => (release = r));
      state.entered = new Promise<void>((r) => (entered = r));
    },
    release: () => release(),
    reached: () => entered(),
    /** A report this says yes to fails instead of being stored. */
    fails: (_stats: AgentPeerStats[]): boolean => false,
    /** The keys of every report that reached the store, in order. */
    reports: [] as string[][],
  };
  return state;
});

vi.mock('../services/peers/usage.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Usage>();
  return {
    ...real,
    recordStats: async (...args: Parameters<typeof real.recordStats>) => {
      // Empty reports (the agent's passes with nothing new) are neither held nor failed.
      if (args[2].length === 0) return real.recordStats(...args);
      store.reports.push(args[2].map((p) => p.public_key));
      store.reached();
      await store.gate;
      if (store.fails(args[2])) throw new Error('not stored');
      return real.recordStats(...args);
    },
  };
});

let t: TestApp;
let base: string;
let owner: string;
let planId: number;

beforeAll(async () => {
  // The protocol's shortest stats interval, for the real agent below: a pass a second.
  t = await createTestApp({ scheduler: false, statsIntervalMs: 1000 });
  base = await listen(t);
  owner = await managerToken(t);
  planId = (await createPlan(t)).id;
});
afterAll(() => t.close());

const reading = (key: string, rx: number) => ({
  public_key: key,
  rx_bytes: rx,
  tx_bytes: 0,
  latest_handshake: 0,
  endpoint: null,
});
const acks = (a: ProtocolAgent) => a.received.flatMap((m) => (m.type === 'stats_stored' ? [m.at] : []));

describe('stats_stored', () => {
  it('acknowledges a report once stored, every merged frame’s at, and never a report that failed', async () => {
    const server = await createServer(t, owner, 'Acuse');
    await createCustomer(t, 'acuse');
    const peer = await grantPeer(t, owner, { username: 'acuse', plan: planId, server: server.id });
    const agent = await ProtocolAgent.connect(base, server.token, {
      hello: { stats_wait: true, stats_stored: true },
    });
    expect(agent.received.find((m) => m.type === 'welcome')).toMatchObject({ stats_stored: true });
    const report = (n: number) => ({
      type: 'stats',
      at: 1000 + n,
      peers: [reading(peer.publicKey, n * 1000)],
    });
    try {
      // The second report's store fails.
      store.fails = (stats) => stats.some((p) => p.rx_bytes === 2000);
      store.hold();
      agent.send(report(1));
      await store.entered;
      // Six more while the first is being stored: four wait, the last two merged into the fourth.
      for (let n = 2; n <= 7; n++) agent.send(report(n));
      agent.send({ type: 'heartbeat', at: Date.now() });
      await agent.until(() => agent.received.some((m) => m.type === 'heartbeat'));
      // Nothing is acknowledged while its store has not finished.
      expect(acks(agent)).toEqual([]);
      store.release();
      // stats_wait false follows the last store of the queue.
      await agent.until(() => agent.received.some((m) => m.type === 'stats_wait' && !m.wait));
      expect(acks(agent)).toEqual([[1001], [1003], [1004], [1005, 1006, 1007]]);
      // A stats frame written otherwise (its `type` not first) is stored on the main queue: acked too.
      agent.send(`{"at":2001,"type":"stats","peers":[${JSON.stringify(reading(peer.publicKey, 9000))}]}`);
      await agent.until(() => acks(agent).length === 5);
      expect(acks(agent).at(-1)).toEqual([2001]);
    } finally {
      store.fails = () => false;
      store.release();
      await agent.close();
    }
  });

  it('is not sent to an agent whose hello does not ask for it', async () => {
    const server = await createServer(t, owner, 'Antiguo');
    const agent = await ProtocolAgent.connect(base, server.token);
    try {
      // On the main queue: the heartbeat's answer comes after the report is stored.
      agent.send(`{"at":5,"type":"stats","peers":[]}`);
      agent.send({ type: 'heartbeat', at: Date.now() });
      await agent.until(() => agent.received.some((m) => m.type === 'heartbeat'));
      expect(agent.received.map((m) => m.type)).not.toContain('stats_stored');
    } finally {
      await agent.close();
    }
  });
});

describe('an instance dying with a report not stored', () => {
  it('the real agent reports that peer again after resuming, and only what may be lost: usage stays exact', async () => {
    const server = await createServer(t, owner, 'Caida');
    await createCustomer(t, 'caida');
    const rows = [];
    for (const name of ['A', 'B', 'C'])
      rows.push(await grantPeer(t, owner, { username: 'caida', plan: planId, server: server.id, name }));
    const [a, b, c] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
    const { device, backend } = fakeReconcilerBackend();
    const r = new Reconciler({ backend, log: silentLogger, firewall: false });
    const handler: AgentHandler = {
      hello: async () => ({ revision: r.revision, resume: r.holdsApplied, backend: 'wireguard-go' }),
      applySnapshot: async (s) => (await r.applySnapshot(s))?.revision ?? null,
      applyDelta: async (d) => (await r.applyDelta(d))?.revision ?? null,
      collectStats: (onlyChanged, emit, pass) => r.collectStats(onlyChanged, emit, pass),
    };
    const agent = new AgentConnection({ url: base, token: server.token, handler, log: silentLogger });
    const traffic = (row: typeof a, rx: number) => (device.peer(row.publicKey)!.rx += rx);
    const key = (row: typeof a) => row.publicKey;
    /** The next report of this server's peers that reaches the store. */
    const nextReport = async (from: number) => {
      for (let i = 0; i < 400 && store.reports.length <= from; i++)
        await new Promise((x) => setTimeout(x, 25));
      return new Set(store.reports[from]);
    };
    /** The agent has heard that every report it sent was stored. */
    const acked = async () => {
      for (let i = 0; i < 400 && agent.storedPasses.resendFrom() !== Infinity; i++)
        await new Promise((x) => setTimeout(x, 25));
      expect(agent.storedPasses.resendFrom()).toBe(Infinity);
    };
    const usage = async () => {
      const out: number[] = [];
      for (const row of [a, b, c]) {
        const hours = await t.ctx.db.select().from(peerUsageHourly).where(eq(peerUsageHourly.peerId, row.id));
        out.push(hours.reduce((n, h) => n + h.rxBytes, 0));
      }
      return out;
    };
    try {
      let from = store.reports.length;
      agent.start();
      for (let i = 0; i < 400 && !r.holdsApplied; i++) await new Promise((x) => setTimeout(x, 25));
      traffic(a, 1000);
      traffic(b, 2000);
      traffic(c, 3000);
      // The first report lists every peer (a fresh start), whenever it was read.
      expect(await nextReport(from)).toEqual(new Set([key(a), key(b), key(c)]));
      await expect.poll(usage, { timeout: 15_000 }).toEqual([1000, 2000, 3000]);
      await acked();
      // B moves and is stored.
      from = store.reports.length;
      traffic(b, 500);
      expect(await nextReport(from)).toEqual(new Set([key(b)]));
      await acked();
      // A moves; its report reaches an instance that dies before storing it.
      store.hold();
      store.fails = () => true;
      from = store.reports.length;
      traffic(a, 700);
      await store.entered;
      expect(store.reports.at(-1)).toEqual([key(a)]);
      await agent.stop();
      store.fails = () => false;
      store.release();
      // C moves while the agent is away; it comes back to the panel holding its state.
      traffic(c, 50);
      from = store.reports.length;
      agent.start();
      // Only A (its last report lost) and C (moved): before issue 33's acknowledgements, all three.
      expect(await nextReport(from)).toEqual(new Set([key(a), key(c)]));
      await expect.poll(usage, { timeout: 15_000 }).toEqual([1700, 2500, 3050]);
    } finally {
      store.fails = () => false;
      store.release();
      await agent.stop();
      await r.close();
    }
  }, 30_000);
});
