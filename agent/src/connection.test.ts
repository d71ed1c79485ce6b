import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import {
  AGENT_MAX_MESSAGE_BYTES,
  AGENT_PROTOCOL_VERSION,
  AGENT_STATS_CHUNK_PEERS,
  snapshotMessages,
  type AgentPeerStats,
  type ServerDelta,
  type ServerSnapshot,
} from '@vpn/contracts/agent';
import { AgentConnection, agentWsUrl, parseServerMessage, type AgentHandler } from './connection.ts';
import { silentLogger } from './log.ts';
import { startFakeControlPlane, type FakeControlPlane } from './testing/fakeControlPlane.ts';
import { randomKey } from './testing/keys.ts';

const snapshotMsg = (revision: number): ServerSnapshot => ({
  type: 'snapshot',
  revision,
  interface: {
    name: 'wg0',
    private_key: randomKey(),
    listen_port: 51820,
    address: '10.64.0.1/10',
    mtu: 1420,
    nat: true,
  },
  peers: [{ public_key: randomKey(), preshared_key: randomKey(), allowed_ips: ['10.64.0.2/32'] }],
});
const welcome = { type: 'welcome', protocol: AGENT_PROTOCOL_VERSION, server_id: 7, stats_interval_ms: 1000 };

describe('agentWsUrl', () => {
  it('maps http→ws and https→wss and appends the agent path', () => {
    expect(agentWsUrl('http://cp.example:8080')).toBe('ws://cp.example:8080/api/agent/ws');
    expect(agentWsUrl('https://cp.example/base/')).toBe('wss://cp.example/base/api/agent/ws');
  });
  it('refuses other schemes and garbage', () => {
    expect(() => agentWsUrl('ftp://x')).toThrow(/http/);
    expect(() => agentWsUrl('no url')).toThrow(/URL no válida/);
  });
});

describe('parseServerMessage', () => {
  it('accepts every message of the protocol', () => {
    for (const m of [
      welcome,
      snapshotMsg(1),
      { type: 'delta', revision: 2, upsert: [], remove: [randomKey()] },
      { type: 'snapshot_peers', revision: 1, part: 2, peers: snapshotMsg(1).peers },
      { type: 'heartbeat', at: 1 },
      { type: 'error', message: 'x' },
      { type: 'stats_stored', at: [1, 1, 2] },
    ])
      expect(parseServerMessage(JSON.stringify(m)).ok).toBe(true);
  });

  it('refuses unknown types, malformed fields and non-JSON without echoing secrets', () => {
    const unknown = parseServerMessage(JSON.stringify({ type: 'reboot', now: true }));
    expect(unknown).toMatchObject({ ok: false });
    if (!unknown.ok) expect(unknown.error).toContain('"reboot"');
    const secret = 'not-a-key-but-secret';
    const bad = parseServerMessage(
      JSON.stringify({ ...snapshotMsg(1), interface: { ...snapshotMsg(1).interface, private_key: secret } }),
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.error).toContain('interface.private_key');
      expect(bad.error).not.toContain(secret);
    }
    expect(parseServerMessage('{oops')).toEqual({ ok: false, error: 'mensaje no válido: no es JSON' });
    expect(
      parseServerMessage(JSON.stringify({ type: 'delta', revision: 0, upsert: [], remove: [] })).ok,
    ).toBe(false);
  });
});

/** Serialises applies like the real reconciler does. */
class FakeHandler implements AgentHandler {
  private queue: Promise<unknown> = Promise.resolve();
  snapshots: number[] = [];
  snapshotPeers: string[][] = [];
  deltas: number[] = [];
  revision = 0;
  statsCalls: boolean[] = [];
  async hello() {
    return { revision: this.revision, backend: 'wireguard-go' as const };
  }
  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task);
    this.queue = run.catch(() => undefined);
    return run;
  }
  applySnapshot(s: ServerSnapshot) {
    return this.enqueue(async () => {
      await new Promise((r) => setTimeout(r, 20));
      this.snapshots.push(s.revision);
      this.snapshotPeers.push(s.peers.map((p) => p.public_key));
      this.revision = s.revision;
      return s.revision;
    });
  }
  applyDelta(d: ServerDelta) {
    return this.enqueue(async () => {
      if (!this.snapshots.length) return null;
      this.deltas.push(d.revision);
      this.revision = d.revision;
      return d.revision;
    });
  }
  async collectStats(onlyChanged: boolean): Promise<AgentPeerStats[] | null> {
    this.statsCalls.push(onlyChanged);
    return [{ public_key: randomKey(), rx_bytes: 1, tx_bytes: 2, latest_handshake: 0, endpoint: null }];
  }
}

describe('AgentConnection against a fake control plane', () => {
  let cp: FakeControlPlane | null = null;
  let conn: AgentConnection | null = null;
  afterEach(async () => {
    await conn?.stop();
    await cp?.close();
    conn = cp = null;
  });

  const fastTimings = { backoffInitialMs: 100, backoffMaxMs: 400, heartbeatMs: 100, idleTimeoutMs: 60_000 };

  it('says hello with the protocol version and bearer token, then acks snapshot and deltas in order', async () => {
    const handler = new FakeHandler();
    handler.revision = 41;
    cp = await startFakeControlPlane({
      token: 'secret-token',
      onConnect: (send) => {
        send(welcome);
        send(snapshotMsg(42));
        send({ type: 'delta', revision: 43, upsert: [], remove: [randomKey()] });
        send({ type: 'delta', revision: 44, upsert: [], remove: [randomKey()] });
      },
    });
    conn = new AgentConnection({
      url: cp.url,
      token: 'secret-token',
      handler,
      log: silentLogger,
      hostname: 'vpn-1',
      ...fastTimings,
    });
    conn.start();
    const hello = await cp.waitFor((m) => m.type === 'hello');
    expect(hello.message).toEqual({
      type: 'hello',
      protocol: AGENT_PROTOCOL_VERSION,
      // The version of agent/package.json, and the Node it runs on (issue 16).
      agent_version: (
        JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
      ).version,
      hostname: 'vpn-1',
      revision: 41,
      backend: 'wireguard-go',
      snapshot_parts: true,
      node_version: process.versions.node,
      upgrade: true,
      stats_wait: true,
      // Room changes as deltas of pairs (issue 33).
      room_deltas: true,
      // Understands stats_stored (issue 33).
      stats_stored: true,
    });
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 44);
    const acks = cp.received
      .filter((r) => r.message.type === 'ack')
      .map((r) => (r.message.type === 'ack' ? r.message.revision : -1));
    expect(acks).toEqual([42, 43, 44]);
    // Heartbeats flow, and stats start full then only changes.
    await cp.waitFor((m) => m.type === 'heartbeat');
    await cp.waitFor((m) => m.type === 'stats', { timeoutMs: 3000 });
    expect(handler.statsCalls[0]).toBe(false);
  });

  it('sends a 120,000-peer stats report in several messages, each far under the message limit', async () => {
    const handler = new FakeHandler();
    // Worst-case sizes: the biggest counters and the longest endpoints.
    const peers = Array.from({ length: 120_000 }, (_, i) => ({
      public_key: randomKey(),
      rx_bytes: Number.MAX_SAFE_INTEGER - i,
      tx_bytes: Number.MAX_SAFE_INTEGER - i,
      latest_handshake: 1_900_000_000,
      endpoint: `[2001:db8:ffff:ffff:ffff:ffff:ffff:${(i % 65536).toString(16)}]:65535`,
    }));
    handler.collectStats = async (onlyChanged) => {
      handler.statsCalls.push(onlyChanged);
      return handler.statsCalls.length === 1 ? peers : null;
    };
    cp = await startFakeControlPlane({ token: 't', onConnect: (send) => send(welcome) });
    conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
    conn.start();
    const stats = () => cp!.received.filter((r) => r.message.type === 'stats');
    const count = () =>
      stats().reduce((n, r) => n + (r.message.type === 'stats' ? r.message.peers.length : 0), 0);
    for (let i = 0; i < 200 && count() < peers.length; i++) await new Promise((r) => setTimeout(r, 50));
    expect(count()).toBe(120_000);
    expect(stats().length).toBe(120_000 / AGENT_STATS_CHUNK_PEERS);
    for (const r of stats()) expect(r.bytes).toBeLessThan(AGENT_MAX_MESSAGE_BYTES / 2);
    // One connection: the limit was never hit, so the agent never had to reconnect.
    expect(cp.closes).toEqual([]);
    expect(
      new Set(
        stats()
          .flatMap((r) => (r.message.type === 'stats' ? r.message.peers : []))
          .map((p) => p.public_key),
      ).size,
    ).toBe(120_000);
  });

  it('holds its stats passes while the control plane says stats_wait, and goes on after (issue 33)', async () => {
    const handler = new FakeHandler();
    cp = await startFakeControlPlane({ token: 't', onConnect: (send) => send(welcome) });
    conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
    conn.start();
    await cp.waitFor((m) => m.type === 'stats', { timeoutMs: 5000 });
    // A delta with no snapshot before it is answered with resync: once that answer is here, the
    // stats_wait sent before it has been read.
    cp.send({ type: 'stats_wait', wait: true });
    cp.send({ type: 'delta', revision: 1, upsert: [], remove: [] });
    await cp.waitFor((m) => m.type === 'resync');
    const passes = handler.statsCalls.length;
    // Held for 30 heartbeats (100 ms each): three stats intervals of 1 s without a pass.
    for (let beat = 0; beat < 30; beat++)
      await cp.waitFor((m) => m.type === 'heartbeat', { from: cp.received.length });
    expect(handler.statsCalls.length).toBe(passes);
    const sent = cp.received.length;
    cp.send({ type: 'stats_wait', wait: false });
    await cp.waitFor((m) => m.type === 'stats', { timeoutMs: 5000, from: sent });
    // Only what changed since the last report sent: nothing was lost while held.
    expect(handler.statsCalls.at(-1)).toBe(true);
  });

  it('sends concurrent_use reports only to a control plane whose welcome says it stores them', async () => {
    const flagged = {
      public_key: randomKey(),
      endpoints: 2,
      switches: 3,
      last: ['192.0.2.0/24', '198.51.100.0/24'],
    };
    const run = async (says: boolean) => {
      const handler = new FakeHandler();
      const asked: number[] = [];
      Object.assign(handler, {
        concurrentUse: (now: number) => (asked.push(now), asked.length === 1 ? [flagged] : []),
      });
      cp = await startFakeControlPlane({
        token: 't',
        onConnect: (send) => send(says ? { ...welcome, concurrent_use: true } : welcome),
      });
      conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
      conn.start();
      // Three stats passes: reports are taken after each pass, only when the welcome said so.
      for (let i = 0; i < 100 && cp.received.filter((r) => r.message.type === 'stats').length < 3; i++)
        await new Promise((r) => setTimeout(r, 50));
      const sent = cp.received.filter((r) => r.message.type === 'concurrent_use').map((r) => r.message);
      await conn.stop();
      await cp.close();
      conn = cp = null;
      return { sent, asked: asked.length };
    };
    const on = await run(true);
    expect(on.sent).toEqual([{ type: 'concurrent_use', at: expect.any(Number), peers: [flagged] }]);
    expect(on.asked).toBeGreaterThanOrEqual(2);
    const off = await run(false);
    expect(off).toEqual({ sent: [], asked: 0 });
  });

  it('answers an unknown or invalid message with error, ignores it, and keeps working', async () => {
    const handler = new FakeHandler();
    cp = await startFakeControlPlane({ token: 't', onConnect: (send) => send(welcome) });
    conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
    conn.start();
    await cp.waitFor((m) => m.type === 'hello');
    cp.send({ type: 'format_disk', now: true });
    const err = await cp.waitFor((m) => m.type === 'error');
    expect(err.message).toMatchObject({ type: 'error', message: expect.stringContaining('format_disk') });
    cp.send('not json at all');
    await cp.waitFor((m) => m.type === 'error' && m.message.includes('JSON'));
    cp.send(snapshotMsg(5));
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 5);
    expect(cp.connections).toHaveLength(1);
  });

  it('assembles a snapshot sent in parts and applies it once, with every peer, before the delta after it', async () => {
    const handler = new FakeHandler();
    const whole = snapshotMsg(7);
    whole.peers = Array.from({ length: 5 }, (_, i) => ({
      public_key: randomKey(),
      preshared_key: randomKey(),
      allowed_ips: [`10.64.0.${i + 2}/32`],
    }));
    const parts = snapshotMessages(whole, 2);
    expect(parts).toHaveLength(3);
    cp = await startFakeControlPlane({
      token: 't',
      onConnect: (send) => {
        send(welcome);
        for (const m of parts) send(m);
        send({ type: 'delta', revision: 8, upsert: [], remove: [randomKey()] });
      },
    });
    conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
    conn.start();
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 8);
    expect(handler.snapshots).toEqual([7]);
    expect(handler.snapshotPeers).toEqual([whole.peers.map((p) => p.public_key)]);
    expect(handler.deltas).toEqual([8]);
    const acks = cp.received.flatMap((r) => (r.message.type === 'ack' ? [r.message.revision] : []));
    expect(acks).toEqual([7, 8]);
  });

  it('asks for a new snapshot when a part goes missing, and applies nothing of the broken one', async () => {
    const handler = new FakeHandler();
    const whole = snapshotMsg(3);
    whole.peers = [0, 1, 2].map((i) => ({
      public_key: randomKey(),
      preshared_key: randomKey(),
      allowed_ips: [`10.64.0.${i + 2}/32`],
    }));
    const [first, , third] = snapshotMessages(whole, 1);
    cp = await startFakeControlPlane({
      token: 't',
      onConnect: (send) => {
        send(welcome);
        send(first!);
        send(third!);
      },
    });
    conn = new AgentConnection({ url: cp.url, token: 't', handler, log: silentLogger, ...fastTimings });
    conn.start();
    await cp.waitFor((m) => m.type === 'resync');
    await new Promise((r) => setTimeout(r, 100));
    expect(handler.snapshots).toEqual([]);
    expect(cp.received.some((r) => r.message.type === 'ack')).toBe(false);
  });

  it('asks for a resync when a delta arrives before any snapshot', async () => {
    cp = await startFakeControlPlane({
      token: 't',
      onConnect: (send) => {
        send(welcome);
        send({ type: 'delta', revision: 9, upsert: [], remove: [] });
      },
    });
    conn = new AgentConnection({
      url: cp.url,
      token: 't',
      handler: new FakeHandler(),
      log: silentLogger,
      ...fastTimings,
    });
    conn.start();
    await cp.waitFor((m) => m.type === 'resync');
  });

  it('reconnects with growing, jittered delays after the server drops it, and says hello again', async () => {
    cp = await startFakeControlPlane({ token: 't', onConnect: (send) => send(welcome) });
    const delays: number[] = [];
    conn = new AgentConnection({
      url: cp.url,
      token: 't',
      handler: new FakeHandler(),
      log: silentLogger,
      ...fastTimings,
    });
    conn.on('reconnecting', (d: number) => delays.push(d));
    conn.start();
    // Reconnections counted by their hellos, each connection dropped only once it said hello: a
    // connection dropped as soon as it was accepted (before, on a loaded machine) carried none, and
    // the count came up short. No clock decides anything here.
    const hellos = () => cp!.received.filter((r) => r.message.type === 'hello');
    for (let i = 1; i <= 3; i++) {
      await waitUntil(() => hellos().length === i, 30_000);
      cp.dropAll();
    }
    await waitUntil(() => hellos().length === 4, 30_000);
    // Four hellos, each on a connection of its own.
    expect(new Set(hellos().map((h) => h.conn)).size).toBe(4);
    // 100 ms, 200 ms, 400 ms ceilings with jitter in [50 %, 100 %].
    expect(delays[0]).toBeGreaterThanOrEqual(50);
    expect(delays[0]).toBeLessThanOrEqual(100);
    expect(delays[1]).toBeGreaterThanOrEqual(100);
    expect(delays[2]).toBeGreaterThanOrEqual(200);
    expect(delays[2]).toBeLessThanOrEqual(400);
    const gaps = cp.connections.slice(1).map((c, i) => c.at - cp!.connections[i]!.at);
    for (const g of gaps) expect(g).toBeGreaterThanOrEqual(50);
  });

  it('keeps retrying, without connecting, when the token is refused', async () => {
    cp = await startFakeControlPlane({ token: 'right' });
    conn = new AgentConnection({
      url: cp.url,
      token: 'wrong',
      handler: new FakeHandler(),
      log: silentLogger,
      ...fastTimings,
    });
    conn.start();
    await waitUntil(() => cp!.rejected >= 2);
    expect(cp.connections).toHaveLength(0);
  });

  it('reconnects when nothing arrives for the idle timeout', async () => {
    cp = await startFakeControlPlane({ token: 't' });
    conn = new AgentConnection({
      url: cp.url,
      token: 't',
      handler: new FakeHandler(),
      log: silentLogger,
      ...fastTimings,
      heartbeatMs: 50,
      idleTimeoutMs: 200,
    });
    conn.start();
    await waitUntil(() => cp!.connections.length >= 2, 3000);
  });

  it('closes on a protocol version it does not speak', async () => {
    cp = await startFakeControlPlane({ token: 't', onConnect: (send) => send({ ...welcome, protocol: 99 }) });
    conn = new AgentConnection({
      url: cp.url,
      token: 't',
      handler: new FakeHandler(),
      log: silentLogger,
      ...fastTimings,
    });
    let closed = 0;
    conn.on('close', (code: number) => (closed = code));
    conn.start();
    const err = await cp.waitFor((m) => m.type === 'error');
    expect(err.message).toMatchObject({ message: expect.stringContaining('99') });
    await waitUntil(() => closed === 4000);
  });
});

async function waitUntil(cond: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('la condición no se cumplió a tiempo');
    await new Promise((r) => setTimeout(r, 10));
  }
}
