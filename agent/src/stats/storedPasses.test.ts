/**
 * Issue 33: after a panel instance dies, its agents reconnect to the others; each agent's first
 * report listed every peer (33 agents × 10,000 peers at once, bench:fleet's kill -9), only because
 * the reports the dead instance had not stored yet were lost. With `stats_stored` the agent knows
 * which passes were stored, and a resumed connection's first report lists only the peers last
 * reported in a pass not stored, plus what moved since.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AGENT_PROTOCOL_VERSION,
  type AgentPeer,
  type AgentToServer,
  type ServerSnapshot,
} from '@vpn/contracts/agent';
import { AgentConnection, type AgentHandler } from '../connection.ts';
import { silentLogger } from '../log.ts';
import { Reconciler } from '../reconcile.ts';
import { fakeReconcilerBackend } from '../testing/fakeBackend.ts';
import { startFakeControlPlane, type FakeControlPlane } from '../testing/fakeControlPlane.ts';
import { randomKey } from '../testing/keys.ts';
import { MAX_PASSES, StoredPasses } from './storedPasses.ts';

describe('StoredPasses', () => {
  it('knows nothing until a full pass is stored, then names the oldest pass not wholly stored', () => {
    const s = new StoredPasses();
    s.sent(100, 1, true);
    s.sent(100, 1, true);
    expect(s.resendFrom()).toBeNull();
    s.stored([100], 1);
    // One of its two frames: still unknown.
    expect(s.resendFrom()).toBeNull();
    s.stored([100], 1);
    expect(s.resendFrom()).toBe(Infinity);
    expect(s.size).toBe(0);
    s.sent(200, 1);
    s.sent(300, 1);
    s.sent(300, 1);
    s.stored([300], 1);
    expect(s.resendFrom()).toBe(200);
    s.stored([200], 1);
    // 300 has one frame not stored: 200 left, 300 stays.
    expect(s.resendFrom()).toBe(300);
    expect(s.size).toBe(1);
    // Another connection's acknowledgement cannot name this connection's frames.
    s.stored([300], 2);
    expect(s.resendFrom()).toBe(300);
    // The next connection's first pass went out: the old connection's passes are covered by it.
    s.sent(400, 2);
    s.firstPassSent(400, 2);
    expect(s.resendFrom()).toBe(400);
    s.stored([400], 2);
    expect(s.resendFrom()).toBe(Infinity);
  });

  it('is bounded: past MAX_PASSES waiting it forgets, and the next report is full', () => {
    const s = new StoredPasses();
    s.sent(1, 1, true);
    s.stored([1], 1);
    for (let i = 0; i < MAX_PASSES; i++) s.sent(10 + i, 1);
    expect(s.resendFrom()).toBe(10);
    s.sent(10 + MAX_PASSES, 1);
    expect(s.size).toBe(0);
    expect(s.resendFrom()).toBeNull();
    // Acknowledgements of forgotten passes change nothing; only a full pass stored does.
    s.stored([10, 11], 1);
    expect(s.resendFrom()).toBeNull();
    s.sent(1000, 2, true);
    s.stored([1000], 2);
    expect(s.resendFrom()).toBe(Infinity);
  });
});

const PEERS = 1000;
const peers: AgentPeer[] = Array.from({ length: PEERS }, (_, i) => ({
  public_key: randomKey(),
  preshared_key: randomKey(),
  allowed_ips: [`10.64.${Math.floor(i / 250) + 1}.${(i % 250) + 2}/32`],
}));
const snapshot: ServerSnapshot = {
  type: 'snapshot',
  revision: 1,
  interface: {
    name: 'wgstats0',
    private_key: randomKey(),
    listen_port: 51820,
    address: '10.64.0.1/10',
    mtu: 1420,
    nat: true,
  },
  peers,
};
const welcome = {
  type: 'welcome',
  protocol: AGENT_PROTOCOL_VERSION,
  server_id: 3,
  // The protocol's shortest interval: a pass a second.
  stats_interval_ms: 1000,
};

describe('a resumed connection’s first stats report', () => {
  let cp: FakeControlPlane | null = null;
  let conn: AgentConnection | null = null;
  let reconciler: Reconciler | null = null;
  afterEach(async () => {
    await conn?.stop();
    await cp?.close();
    await reconciler?.close();
    conn = cp = reconciler = null;
  });

  it('lists only the peers of passes not stored and what moved, not every peer; full without acks or on a fresh start', async () => {
    const { device, backend } = fakeReconcilerBackend();
    const r = (reconciler = new Reconciler({ backend, log: silentLogger, firewall: false }));
    const handler: AgentHandler = {
      hello: async () => ({ revision: r.revision, resume: r.holdsApplied, backend: 'wireguard-go' }),
      applySnapshot: async (s) => (await r.applySnapshot(s))?.revision ?? null,
      applyDelta: async (d) => (await r.applyDelta(d))?.revision ?? null,
      collectStats: (onlyChanged, emit, pass) => r.collectStats(onlyChanged, emit, pass),
    };
    /** Which connections' welcomes say `stats_stored` (by the fake control plane's number). */
    const acks = new Map<number, boolean>([
      [1, true],
      [2, true],
      [3, false],
      [4, true],
    ]);
    cp = await startFakeControlPlane({
      token: 't',
      onConnect: (send, n) => {
        send(acks.get(n) ? { ...welcome, stats_stored: true } : welcome);
        // The first connection gets the snapshot; the others resume (nothing changed meanwhile).
        if (n === 1) send(snapshot);
      },
    });
    const c = (conn = new AgentConnection({
      url: cp.url,
      token: 't',
      handler,
      log: silentLogger,
      backoffInitialMs: 50,
      backoffMaxMs: 100,
      heartbeatMs: 60_000,
      idleTimeoutMs: 60_000,
    }));
    const fake = cp;
    /** The next stats pass on connection `n`: its `at` and the keys of all its frames. */
    const pass = async (n: number, from = fake.received.length) => {
      const first = await fake.waitFor((m) => m.type === 'stats', { from, timeoutMs: 10_000 });
      expect(first.conn).toBe(n);
      const at = (first.message as Extract<AgentToServer, { type: 'stats' }>).at;
      const frames = fake.received.filter((m) => m.message.type === 'stats' && m.message.at === at);
      const keys = new Set(frames.flatMap((f) => (f.message.type === 'stats' ? f.message.peers : [])));
      return { at, frames: frames.length, keys: new Set([...keys].map((p) => p.public_key)) };
    };
    const store = async (p: { at: number; frames: number }) => {
      fake.send({ type: 'stats_stored', at: Array.from({ length: p.frames }, () => p.at) });
      // Read by the agent: every pass so far stored, nothing left waiting.
      for (let i = 0; i < 200 && c.storedPasses.size > 0; i++) await new Promise((x) => setTimeout(x, 10));
      expect(c.storedPasses.size).toBe(0);
    };
    const move = (from: number, n: number) => {
      for (const p of peers.slice(from, from + n)) {
        const live = device.peer(p.public_key)!;
        live.rx += 1000;
        live.tx += 10;
      }
      return peers.slice(from, from + n).map((p) => p.public_key);
    };

    c.start();
    await fake.waitFor((m) => m.type === 'ack' && m.revision === 1);
    // A fresh start (no resume in the hello): the first report lists every peer.
    const first = await pass(1);
    expect(first.keys.size).toBe(PEERS);
    await store(first);
    // Three passes stored, the last one not: its 10 peers' reports are lost with the connection.
    move(0, 50);
    await store(await pass(1));
    move(100, 20);
    await store(await pass(1));
    const lost = move(200, 10);
    const unstored = await pass(1);
    expect(unstored.keys).toEqual(new Set(lost));
    // One more moves after it, before the connection goes.
    const moved = move(300, 1);
    fake.dropAll();
    const hello = await fake.waitFor((m) => m.type === 'hello' && m.resume === true, {
      from: fake.received.length,
    });
    expect(hello.conn).toBe(2);
    const resumed = await pass(2);
    // Before issue 33's acknowledgements: all 1,000.
    expect(resumed.keys).toEqual(new Set([...lost, ...moved]));
    await store(resumed);

    // A control plane that does not acknowledge (no stats_stored in its welcome): every peer.
    fake.dropAll();
    const older = await pass(3);
    expect(older.keys.size).toBe(PEERS);
    // And after it, even a control plane that acknowledges gets every peer once: what became of
    // the older one's reports is unknown.
    fake.dropAll();
    const after = await pass(4);
    expect(after.keys.size).toBe(PEERS);
  }, 30_000);
});
