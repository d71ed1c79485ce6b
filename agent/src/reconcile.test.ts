import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AGENT_STATS_CHUNK_PEERS,
  RELAY_DEFAULTS,
  type AgentPeer,
  type AgentPeerStats,
  type ServerSnapshot,
} from '@vpn/contracts/agent';
import { CommandError, createRunner, type CommandRunner } from './exec.ts';
import { silentLogger, type Logger } from './log.ts';
import { diffPeers, diffToOps, isEmptyDiff, toPeerState, type PeerState } from './diff.ts';
import { Reconciler } from './reconcile.ts';
import { ConcurrentUseDetector } from './concurrent.ts';
import { FakeDevice, FakeDriver, startFakeUapiServer } from './testing/fakeWg.ts';
import { UapiClient } from './uapi.ts';
import { fakeReconcilerBackend } from './testing/fakeBackend.ts';
import { randomKey } from './testing/keys.ts';

const peer = (n: number, extra: Partial<AgentPeer> = {}): AgentPeer => ({
  public_key: randomKey(),
  preshared_key: randomKey(),
  allowed_ips: [`10.64.0.${n}/32`],
  ...extra,
});

const desiredMap = (peers: AgentPeer[]) => new Map(peers.map((p) => [p.public_key, toPeerState(p)]));
const live = (peers: AgentPeer[]): PeerState[] => peers.map(toPeerState);

describe('diffPeers (plain data)', () => {
  it('adds what is missing', () => {
    const a = peer(2);
    const b = peer(3);
    const d = diffPeers(desiredMap([a, b]), live([a]));
    expect(d.add.map((p) => p.publicKey)).toEqual([b.public_key]);
    expect(d.update).toEqual([]);
    expect(d.remove).toEqual([]);
  });

  it('removes what is not desired', () => {
    const a = peer(2);
    const b = peer(3);
    const d = diffPeers(desiredMap([a]), live([a, b]));
    expect(d).toEqual({ add: [], update: [], remove: [b.public_key] });
  });

  it('updates a peer whose preshared key changed', () => {
    const a = peer(2);
    const changed = { ...a, preshared_key: randomKey() };
    const d = diffPeers(desiredMap([changed]), live([a]));
    expect(d.update.map((p) => p.presharedKey)).toEqual([changed.preshared_key]);
    expect(d.add).toEqual([]);
  });

  it('updates a peer whose allowed IPs changed, and one that lost its preshared key', () => {
    const a = peer(2);
    const b = peer(3);
    const liveB = { ...toPeerState(b), presharedKey: null };
    const d = diffPeers(desiredMap([{ ...a, allowed_ips: ['10.64.0.2/32', 'fd00::2/128'] }, b]), [
      toPeerState(a),
      liveB,
    ]);
    expect(d.update.map((p) => p.publicKey).sort()).toEqual([a.public_key, b.public_key].sort());
  });

  it('is a no-op when live already matches, whatever the order and spelling of allowed IPs', () => {
    const a = peer(2, { allowed_ips: ['10.64.0.2/32', 'fd00:0:0::2/128'] });
    const liveA = { ...toPeerState(a), allowedIps: ['fd00::2/128', '10.64.0.2/32'] };
    const d = diffPeers(desiredMap([a]), [liveA]);
    expect(isEmptyDiff(d)).toBe(true);
  });

  it('is idempotent: applying the diff and diffing again yields nothing', async () => {
    const keep = peer(2);
    const change = peer(3);
    const gone = peer(4);
    const add = peer(5);
    const want = [keep, { ...change, allowed_ips: ['10.64.0.33/32'] }, add];
    const dev = new FakeDevice();
    const driver = new FakeDriver(dev);
    expect(isEmptyDiff(diffPeers(desiredMap([]), []))).toBe(true);
    // Live starts as keep, change (with its old address) and gone.
    await driver.set({ peers: diffToOps(diffPeers(desiredMap([keep, change, gone]), [])) });
    const readLive = async () => (await driver.get()).peers;
    const d1 = diffPeers(desiredMap(want), await readLive());
    expect([d1.add.length, d1.update.length, d1.remove.length]).toEqual([1, 1, 1]);
    await driver.set({ peers: diffToOps(d1) });
    const d2 = diffPeers(desiredMap(want), await readLive());
    expect(isEmptyDiff(d2)).toBe(true);
  });

  it('updates a mesh link whose desired endpoint or keepalive changed', () => {
    const mesh: PeerState = {
      ...toPeerState(peer(2)),
      endpoint: '192.0.2.2:51821',
      persistentKeepalive: 25,
    };
    const same = diffPeers(new Map([[mesh.publicKey, mesh]]), [{ ...mesh }]);
    expect(isEmptyDiff(same)).toBe(true);
    const moved = { ...mesh, endpoint: '192.0.2.9:51821' };
    expect(diffPeers(new Map([[moved.publicKey, moved]]), [mesh]).update).toEqual([moved]);
    const slower = { ...mesh, persistentKeepalive: 60 };
    expect(diffPeers(new Map([[slower.publicKey, slower]]), [mesh]).update).toEqual([slower]);
    // IPv6 as UAPI prints it equals the same address written longhand.
    const v6 = { ...mesh, endpoint: '[2001:db8::7]:51821' };
    expect(
      isEmptyDiff(diffPeers(new Map([[v6.publicKey, v6]]), [{ ...mesh, endpoint: '[2001:db8:0::7]:51821' }])),
    ).toBe(true);
  });

  it('never fights roaming: without a desired endpoint the live one is not compared', () => {
    const a = peer(2);
    const d = diffPeers(desiredMap([a]), [{ ...toPeerState(a), endpoint: '198.51.100.2:40000' }]);
    expect(isEmptyDiff(d)).toBe(true);
    // A name that resolved to several addresses: the live endpoint may be on any of them.
    const named: PeerState = {
      ...toPeerState(peer(3, { endpoint: 'vpn2.example.com:51820' })),
      endpoint: '192.0.2.2:51820',
      endpointCandidates: ['192.0.2.2:51820', '192.0.2.3:51820'],
    };
    expect(
      isEmptyDiff(
        diffPeers(new Map([[named.publicKey, named]]), [{ ...named, endpoint: '192.0.2.3:51820' }]),
      ),
    ).toBe(true);
    expect(
      diffPeers(new Map([[named.publicKey, named]]), [{ ...named, endpoint: '192.0.2.4:51820' }]).update,
    ).toHaveLength(1);
  });

  it('switches off a keepalive that is on live but not desired', () => {
    const a = peer(2);
    const d = diffPeers(desiredMap([a]), [{ ...toPeerState(a), persistentKeepalive: 25 }]);
    expect(d.update).toHaveLength(1);
    expect(diffToOps(d)[0]).toMatchObject({ publicKey: a.public_key, persistentKeepalive: 0 });
    expect(diffToOps(d)[0]).not.toHaveProperty('endpoint');
  });

  it('orders removals first so a freed address can be reused in the same transaction', () => {
    const old = peer(2);
    const successor = peer(2);
    const ops = diffToOps(diffPeers(desiredMap([successor]), live([old])));
    expect(ops.map((o) => (o.remove ? 'remove' : 'upsert'))).toEqual(['remove', 'upsert']);
  });
});

/** A runner that records nft scripts instead of running them. */
function recordingRunner() {
  const scripts: string[] = [];
  const runner: CommandRunner = {
    netns: null,
    run: async (file, _args, options) => {
      if (file === 'nft') scripts.push(options?.input ?? '');
      return { stdout: '', stderr: '' };
    },
    spawn: () => {
      throw new Error('no se lanzan procesos en esta prueba');
    },
  };
  return { scripts, runner };
}

function recordingLogger() {
  const warnings: { msg: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = { ...silentLogger, warn: (msg, fields) => warnings.push({ msg, fields }) };
  return { warnings, log };
}

const fakeBackend = fakeReconcilerBackend;

const serverKey = randomKey();
const snapshot = (revision: number, peers: AgentPeer[], roomPairs?: [string, string][]): ServerSnapshot => ({
  type: 'snapshot',
  revision,
  interface: {
    name: 'wgunit0',
    private_key: serverKey,
    listen_port: 51820,
    address: '10.64.0.1/10',
    mtu: 1420,
    nat: true,
  },
  peers,
  ...(roomPairs ? { room_pairs: roomPairs } : {}),
});

describe('Reconciler on an in-memory device', () => {
  it('applies a snapshot in one transaction and a second identical snapshot changes nothing', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const peers = [peer(2), peer(3), peer(4)];
    const first = await r.applySnapshot(snapshot(7, peers));
    expect(first).toMatchObject({ revision: 7, added: 3, updated: 0, removed: 0, device: true });
    expect(f.driver.sets).toHaveLength(1);
    expect(f.device.publicKeys().sort()).toEqual(peers.map((p) => p.public_key).sort());
    expect(f.ensured[0]).toEqual({ name: 'wgunit0', address: '10.64.0.1/10', mtu: 1420 });
    const second = await r.applySnapshot(snapshot(7, peers));
    expect(second).toMatchObject({ added: 0, updated: 0, removed: 0, device: false });
    expect(f.driver.sets).toHaveLength(1);
    expect(r.revision).toBe(7);
    await r.close();
  });

  it('applies a delta with one set of just its peers and no get', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const [a, b] = [peer(2), peer(3)];
    await r.applySnapshot(snapshot(1, [a!, b!]));
    const gets = f.driver.gets;
    const c = peer(4);
    const res = await r.applyDelta({ type: 'delta', revision: 2, upsert: [c], remove: [a!.public_key] });
    expect(res?.revision).toBe(2);
    expect(f.driver.gets).toBe(gets);
    expect(f.driver.sets).toHaveLength(2);
    expect(f.driver.sets[1]).not.toContain(Buffer.from(b!.public_key, 'base64').toString('hex'));
    expect(f.device.publicKeys().sort()).toEqual([b!.public_key, c.public_key].sort());
    expect(r.revision).toBe(2);
    // The delta is part of the desired state: a repair keeps it.
    expect(await r.repair()).toMatchObject({ added: 0, updated: 0, removed: 0 });
    await r.close();
  });

  it("says it holds its applied state (hello's resume) only once this process applied it", async () => {
    const f = fakeBackend();
    // A restart: the revision from the state file, nothing held in memory.
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false, initialRevision: 6 });
    expect([r.revision, r.holdsApplied]).toEqual([6, false]);
    await r.applySnapshot(snapshot(7, [peer(2)]));
    expect([r.revision, r.holdsApplied]).toEqual([7, true]);
    await r.applyDelta({ type: 'delta', revision: 8, upsert: [peer(3)], remove: [] });
    expect([r.revision, r.holdsApplied]).toEqual([8, true]);
    await r.close();
  });

  it('refuses a delta before any snapshot (the caller asks for a resync)', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    expect(await r.applyDelta({ type: 'delta', revision: 3, upsert: [peer(2)], remove: [] })).toBeNull();
    expect(f.driver.sets).toHaveLength(0);
  });

  it('repairs drift: restores a removed peer and a changed key, removes a stranger', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const [a, b] = [peer(2), peer(3)];
    await r.applySnapshot(snapshot(1, [a!, b!]));
    const stranger = randomKey();
    await f.driver.set({
      peers: [
        { publicKey: a!.public_key, remove: true },
        { publicKey: b!.public_key, presharedKey: randomKey() },
        { publicKey: stranger, replaceAllowedIps: true, allowedIps: ['10.64.9.9/32'] },
      ],
    });
    expect(await r.repair()).toMatchObject({ added: 1, updated: 1, removed: 1 });
    expect(f.device.publicKeys().sort()).toEqual([a!.public_key, b!.public_key].sort());
    expect(f.device.peer(b!.public_key)?.psk).toBe(Buffer.from(b!.preshared_key, 'base64').toString('hex'));
    await r.close();
  });

  it('falls back to a full reconcile when a delta cannot be written, and still acks it', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    await r.applySnapshot(snapshot(1, [peer(2)]));
    f.driver.failNext = 1;
    const c = peer(3);
    const res = await r.applyDelta({ type: 'delta', revision: 2, upsert: [c], remove: [] });
    expect(res?.revision).toBe(2);
    expect(f.device.publicKeys()).toContain(c.public_key);
    await r.close();
  });

  it('retries a failing snapshot and gives up on it when a newer one arrives', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    f.driver.failNext = 1000;
    const old = r.applySnapshot(snapshot(1, [peer(2)]));
    await new Promise((res) => setTimeout(res, 50));
    f.driver.failNext = 0;
    const newer = r.applySnapshot(snapshot(2, [peer(3)]));
    expect(await old).toBeNull();
    expect((await newer)?.revision).toBe(2);
    await r.close();
  });

  it('reports only peers whose counters changed when asked', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const [a, b] = [peer(2), peer(3)];
    await r.applySnapshot(snapshot(1, [a!, b!]));
    expect(await r.collectStats(false)).toHaveLength(2);
    const live = f.device.peer(a!.public_key);
    if (live) Object.assign(live, { rx: 100, tx: 50, handshake: 1700000000, endpoint: '198.51.100.2:5555' });
    expect(await r.collectStats(true)).toEqual([
      {
        public_key: a!.public_key,
        rx_bytes: 100,
        tx_bytes: 50,
        latest_handshake: 1700000000,
        endpoint: '198.51.100.2:5555',
      },
    ]);
    expect(await r.collectStats(true)).toEqual([]);
    await r.close();
  });

  it('retires a removed key at once and reports its last counters from the next stats pass, before its successor', async () => {
    // L4 (issue 17) without a device read per delta (issue 24): the bytes since the last 10 s stats
    // pass stay on the retired key's counters until the next pass reads them anyway.
    const f = fakeBackend();
    const sent: { kind: 'final' | 'report'; keys: string[]; peers: AgentPeerStats[] }[] = [];
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      onFinalStats: (peers) => sent.push({ kind: 'final', keys: peers.map((p) => p.public_key), peers }),
    });
    const [a, b] = [peer(2)!, peer(3)!];
    await r.applySnapshot(snapshot(1, [a, b]));
    Object.assign(f.device.peer(a.public_key)!, { rx: 1000, tx: 2000 });
    await r.collectStats(false);
    Object.assign(f.device.peer(a.public_key)!, { rx: 7000, tx: 9000 });
    // Re-key: the old key leaves, a new one takes its address.
    const a2 = { ...peer(2), allowed_ips: a.allowed_ips };
    const oldPsk = f.device.peer(a.public_key)!.psk;
    await r.applyDelta({ type: 'delta', revision: 2, upsert: [a2], remove: [a.public_key] });
    // Dead at once: no address (the new key holds it) and a preshared key nobody has.
    expect(f.device.peer(a.public_key)).toMatchObject({ allowedIps: [], rx: 7000, tx: 9000 });
    expect(f.device.peer(a.public_key)!.psk).not.toBe(oldPsk);
    expect(f.device.peer(a2.public_key)?.allowedIps).toEqual(['10.64.0.2/32']);
    expect(sent).toEqual([]);

    Object.assign(f.device.peer(a2.public_key)!, { rx: 10, tx: 20 });
    const rest = await r.collectStats(true, (peers) =>
      sent.push({ kind: 'report', keys: peers.map((p) => p.public_key), peers }),
    );
    sent.push({ kind: 'report', keys: rest!.map((p) => p.public_key), peers: rest! });
    // The old key's last counters first, on their own; then the new key's first report.
    expect(sent.map((m) => [m.kind, m.keys])).toEqual([
      ['final', [a.public_key]],
      ['report', [a2.public_key]],
    ]);
    // With its counters at the pass before it left: the control plane's fallback for a moved key.
    expect(sent[0]!.peers[0]).toMatchObject({
      rx_bytes: 7000,
      tx_bytes: 9000,
      since: { rx_bytes: 1000, tx_bytes: 2000 },
    });
    // Then the retired key is deleted (queued behind the pass), and never reported again.
    await r.repair();
    expect(f.device.peer(a.public_key)).toBeUndefined();
    expect(f.device.publicKeys().sort()).toEqual([a2.public_key, b.public_key].sort());
    expect(await r.collectStats(true)).toEqual([]);
    expect(sent).toHaveLength(2);
    await r.close();
  });

  it('restarts from zero a retired key that a later delta adds back, and deletes only the rest', async () => {
    const f = fakeBackend();
    const finals: AgentPeerStats[][] = [];
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      onFinalStats: (peers) => finals.push(peers),
    });
    const [a, b, c] = [peer(2)!, peer(3)!, peer(4)!];
    await r.applySnapshot(snapshot(1, [a, b, c]));
    Object.assign(f.device.peer(a.public_key)!, { rx: 500, tx: 600 });
    await r.applyDelta({ type: 'delta', revision: 2, upsert: [], remove: [a.public_key, b.public_key] });
    // Moved away and back (or switched off and on) before the next pass: if it kept its counters,
    // the control plane could count all 1,100 bytes again after another server's reading of it.
    await r.applyDelta({ type: 'delta', revision: 3, upsert: [a], remove: [] });
    expect(f.device.peer(a.public_key)).toMatchObject({ allowedIps: ['10.64.0.2/32'], rx: 0, tx: 0 });
    expect(f.device.peer(a.public_key)!.psk).toBe(Buffer.from(a.preshared_key, 'base64').toString('hex'));
    const report = await r.collectStats(false);
    expect(finals.map((p) => p.map((s) => s.public_key))).toEqual([[b.public_key]]);
    expect(report?.find((s) => s.public_key === a.public_key)).toMatchObject({ rx_bytes: 0, tx_bytes: 0 });
    expect(await r.repair()).toMatchObject({ added: 0, updated: 0, removed: 0, retired: 0 });
    expect(f.device.publicKeys().sort()).toEqual([a.public_key, c.public_key].sort());
    await r.close();
  });

  it('a repair deletes retired keys itself, reporting their counters from its own read (not as drift)', async () => {
    const f = fakeBackend();
    const finals: AgentPeerStats[][] = [];
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      onFinalStats: (peers) => finals.push(peers),
    });
    const [a, b] = [peer(2)!, peer(3)!];
    await r.applySnapshot(snapshot(1, [a, b]));
    Object.assign(f.device.peer(a.public_key)!, { rx: 10, tx: 11 });
    await r.collectStats(false);
    Object.assign(f.device.peer(a.public_key)!, { rx: 42, tx: 43 });
    await r.applyDelta({ type: 'delta', revision: 2, upsert: [], remove: [a.public_key] });
    expect(await r.repair()).toMatchObject({ added: 0, updated: 0, removed: 0, retired: 1 });
    expect(f.device.publicKeys()).toEqual([b.public_key]);
    expect(finals).toEqual([
      [
        expect.objectContaining({
          public_key: a.public_key,
          rx_bytes: 42,
          tx_bytes: 43,
          since: { rx_bytes: 10, tx_bytes: 11 },
        }),
      ],
    ]);
    // Nothing left to retire: the next pass reports no finals.
    await r.collectStats(false);
    expect(finals).toHaveLength(1);
    await r.close();
  });

  it('hands the concurrent-use detector only peers whose endpoint moved, and flags A → B → A → B', async () => {
    const f = fakeBackend();
    const concurrent = new ConcurrentUseDetector();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false, concurrent });
    const [a, b] = [peer(2)!, peer(3)!];
    await r.applySnapshot(snapshot(1, [a, b]));
    const at = (key: string, endpoint: string) => Object.assign(f.device.peer(key)!, { endpoint });
    at(a.public_key, '192.0.2.10:40000');
    at(b.public_key, '203.0.113.5:1000');
    await r.collectStats(false);
    // b's counters change every pass, but it stays where it is: never followed.
    for (const endpoint of ['198.51.100.20:50000', '192.0.2.10:40000', '198.51.100.20:50000']) {
      at(a.public_key, endpoint);
      Object.assign(f.device.peer(b.public_key)!, { rx: Math.floor(Math.random() * 1e6) + 1 });
      await r.collectStats(true);
    }
    expect(concurrent.size).toBe(1);
    expect(concurrent.take(Date.now()).map((p) => p.public_key)).toEqual([a.public_key]);
    await r.close();
  });

  it('hands a big report over in chunks as it reads, returning only the rest', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const peers = Array.from({ length: 2 * AGENT_STATS_CHUNK_PEERS + 123 }, (_, i) =>
      peer(0, { allowed_ips: [`10.64.${(i + 2) >> 8}.${(i + 2) & 255}/32`] }),
    );
    await r.applySnapshot(snapshot(1, peers));
    const chunks: number[] = [];
    const keys: string[] = [];
    const rest = await r.collectStats(false, (chunk) => {
      chunks.push(chunk.length);
      keys.push(...chunk.map((p) => p.public_key));
    });
    expect(chunks).toEqual([AGENT_STATS_CHUNK_PEERS, AGENT_STATS_CHUNK_PEERS]);
    expect(rest).toHaveLength(123);
    keys.push(...rest!.map((p) => p.public_key));
    expect(new Set(keys)).toEqual(new Set(peers.map((p) => p.public_key)));
    await r.close();
  });

  it('forgets peers that left the interface, and reports everyone again after a failed pass', async () => {
    const f = fakeBackend();
    const r = new Reconciler({ backend: f.backend, log: silentLogger, firewall: false });
    const [a, b] = [peer(2)!, peer(3)!];
    await r.applySnapshot(snapshot(1, [a, b]));
    expect(await r.collectStats(true)).toHaveLength(2);
    await r.applySnapshot(snapshot(2, [a]));
    expect(await r.collectStats(true)).toEqual([]);
    // b comes back with the same (zero) counters: it is new to the pass, so it is reported.
    await r.applySnapshot(snapshot(3, [a, b]));
    expect((await r.collectStats(true))?.map((s) => s.public_key)).toEqual([b.public_key]);
    f.driver.failNext = 1;
    await expect(r.collectStats(true)).rejects.toThrow(/daemon caído/);
    expect((await r.collectStats(true))?.map((s) => s.public_key).sort()).toEqual(
      [a.public_key, b.public_key].sort(),
    );
    expect(await r.collectStats(true)).toEqual([]);
    await r.close();
  });
});

describe('a one-peer delta costs one peer at any size (issue 24)', () => {
  /** The public keys a `set` body writes (hex on the wire, base64 here). */
  const written = (body: string) =>
    [...body.matchAll(/^public_key=([0-9a-f]{64})$/gm)].map((m) =>
      Buffer.from(m[1]!, 'hex').toString('base64'),
    );

  it('add, remove, re-key, move away and move in: no device read, and only that peer written', async () => {
    // The agent's own setup: final counters wanted (Agent always passes onFinalStats).
    const f = fakeBackend();
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      onFinalStats: () => {},
    });
    const many = Array.from({ length: 2000 }, (_, i) =>
      peer(0, { allowed_ips: [`10.64.${(i + 2) >> 8}.${(i + 2) & 255}/32`] }),
    );
    await r.applySnapshot(snapshot(1, many));
    const other = fakeBackend();
    const r2 = new Reconciler({
      backend: other.backend,
      log: silentLogger,
      firewall: false,
      onFinalStats: () => {},
    });
    await r2.applySnapshot(snapshot(1, many.slice(1000)));
    const reads = f.driver.gets;
    const reads2 = other.driver.gets;
    let revision = 1;
    const one = async (rec: Reconciler, drv: FakeDriver, upsert: AgentPeer[], remove: string[]) => {
      const before = drv.sets.length;
      await rec.applyDelta({ type: 'delta', revision: ++revision, upsert, remove });
      expect(drv.sets.length - before).toBe(1);
      expect(written(drv.sets[drv.sets.length - 1]!).sort()).toEqual(
        [...upsert.map((p) => p.public_key), ...remove].sort(),
      );
    };
    const added = peer(0, { allowed_ips: ['10.64.200.1/32'] });
    await one(r, f.driver, [added], []);
    await one(r, f.driver, [], [many[5]!.public_key]);
    // Re-key: the old key goes, a new key takes the same address.
    await one(r, f.driver, [{ ...peer(0), allowed_ips: many[6]!.allowed_ips }], [many[6]!.public_key]);
    // Move: the old server takes the peer off, the new one puts it on, same key and address.
    const moving = many[7]!;
    await one(r, f.driver, [], [moving.public_key]);
    await one(r2, other.driver, [moving], []);
    // A change in place (new preshared key).
    await one(r, f.driver, [{ ...many[8]!, preshared_key: randomKey() }], []);
    expect(f.driver.gets).toBe(reads);
    expect(other.driver.gets).toBe(reads2);
    await r.close();
    await r2.close();
  });

  it('a delta during a stats pass waits for no parsing: its set never queues behind the read', async () => {
    // wireguard-go keeps its IPC lock until a get's answer is all written, and a set waits for it:
    // the fake UAPI server does the same and counts the sets that waited. The delta goes out while
    // the pass is reporting its first 5,000 peers of 12,000 (an answer of ~3 MB, far more than a
    // socket buffer): parsed as it arrives, the answer is still being written then.
    const dir = mkdtempSync(join(tmpdir(), 'reconcile-'));
    const path = join(dir, 'wgunit0.sock');
    const device = new FakeDevice();
    const srv = await startFakeUapiServer(path, device);
    const apply = new UapiClient(path);
    const stats = new UapiClient(path);
    let name: string | null = null;
    const r = new Reconciler({
      backend: {
        kind: async () => 'wireguard-go',
        ensureInterface: async (spec) => {
          name = spec.name;
        },
        driver: () => apply,
        statsReader: () => stats,
        get interfaceName() {
          return name;
        },
        runner: createRunner(null),
        isAlive: async () => true,
      },
      log: silentLogger,
      firewall: false,
      onFinalStats: () => {},
    });
    try {
      const many = Array.from({ length: 12_000 }, (_, i) =>
        peer(0, { allowed_ips: [`10.64.${(i + 2) >> 8}.${(i + 2) & 255}/32`] }),
      );
      await r.applySnapshot(snapshot(1, many));
      expect(srv.setsBehindGet()).toBe(0);
      const added = peer(0, { allowed_ips: ['10.65.0.1/32'] });
      let delta: Promise<unknown> | null = null;
      let deltaSettled = false;
      let reported = 0;
      // Whether the delta had settled when the stats pass returned: the point of the yield between
      // parse blocks (issue 31 §5). Without it the whole parse runs first and only then can the
      // delta's answer be read; the daemon's lock alone (setsBehindGet) does not show that.
      const { rest, settledFirst } = await r
        .collectStats(false, (chunk) => {
          reported += chunk.length;
          delta ??= r
            .applyDelta({ type: 'delta', revision: 2, upsert: [added], remove: [] })
            .then(() => (deltaSettled = true));
        })
        .then((rest) => ({ rest, settledFirst: deltaSettled }));
      await delta;
      expect(delta).not.toBeNull();
      expect(settledFirst).toBe(true);
      expect(reported + (rest?.length ?? 0)).toBe(many.length);
      expect(device.peer(added.public_key)?.allowedIps).toEqual(['10.65.0.1/32']);
      expect(r.revision).toBe(2);
      expect(srv.setsBehindGet()).toBe(0);
    } finally {
      await r.close();
      apply.close();
      stats.close();
      await srv.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('Reconciler: mesh links and rooms', () => {
  const mesh = (host: string, n: number): AgentPeer =>
    peer(n, { endpoint: `${host}:51821`, persistent_keepalive: 25, allowed_ips: [`10.64.1.${n}/32`] });

  it('writes a mesh link with its resolved endpoint and keepalive; the same snapshot again changes nothing', async () => {
    const f = fakeBackend();
    const lookups: string[] = [];
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      resolveHost: async (host) => {
        lookups.push(host);
        return ['192.0.2.2'];
      },
    });
    const customer = peer(2);
    const link = mesh('vpn2.example.com', 3);
    const peers = [customer, link];
    expect(await r.applySnapshot(snapshot(1, peers))).toMatchObject({ added: 2 });
    expect(lookups).toEqual(['vpn2.example.com']);
    expect(f.device.peer(link.public_key)).toMatchObject({ endpoint: '192.0.2.2:51821', keepalive: 25 });
    expect(f.device.peer(customer.public_key)).toMatchObject({ endpoint: null, keepalive: 0 });
    expect(f.driver.sets[0]).not.toContain('vpn2.example.com');
    expect(await r.applySnapshot(snapshot(2, peers))).toMatchObject({ added: 0, updated: 0, removed: 0 });
    // The customer roams: left alone. The mesh link drifts: put back by the repair.
    Object.assign(f.device.peer(customer.public_key) ?? {}, { endpoint: '198.51.100.9:4444' });
    expect(await r.repair()).toMatchObject({ updated: 0 });
    Object.assign(f.device.peer(link.public_key) ?? {}, { endpoint: '203.0.113.5:51821' });
    expect(await r.repair()).toMatchObject({ updated: 1 });
    expect(f.device.peer(link.public_key)?.endpoint).toBe('192.0.2.2:51821');
    // A new endpoint or keepalive in the next snapshot is an update.
    const moved = { ...link, endpoint: '[2001:db8::2]:51821', persistent_keepalive: 15 };
    expect(await r.applySnapshot(snapshot(3, [customer, moved]))).toMatchObject({ updated: 1 });
    expect(f.device.peer(link.public_key)).toMatchObject({ endpoint: '[2001:db8::2]:51821', keepalive: 15 });
    // A mesh link dropped from the snapshot is removed.
    expect(await r.applySnapshot(snapshot(4, [customer]))).toMatchObject({ removed: 1 });
    expect(f.device.publicKeys()).toEqual([customer.public_key]);
    await r.close();
  });

  it('keeps the peer, without endpoint, when its host name does not resolve (and says so)', async () => {
    const f = fakeBackend();
    const { warnings, log } = recordingLogger();
    const r = new Reconciler({
      backend: f.backend,
      log,
      firewall: false,
      resolveHost: () => Promise.reject(new Error('getaddrinfo ENOTFOUND gone.example.com')),
    });
    const link = mesh('gone.example.com', 3);
    expect(await r.applySnapshot(snapshot(1, [link]))).toMatchObject({ revision: 1, added: 1 });
    expect(f.device.peer(link.public_key)).toMatchObject({ endpoint: null, keepalive: 25 });
    expect(f.device.peer(link.public_key)?.allowedIps).toEqual(['10.64.1.3/32']);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.fields).toMatchObject({ endpoint: 'gone.example.com:51821' });
    expect(String(warnings[0]?.fields?.error)).toContain('ENOTFOUND');
    // Whatever endpoint the peer learns meanwhile (the other server dialled in) is not fought.
    Object.assign(f.device.peer(link.public_key) ?? {}, { endpoint: '192.0.2.2:51821' });
    expect(await r.repair()).toMatchObject({ updated: 0 });
    await r.close();
  });

  it('keeps the last good address while a host name that resolved before fails', async () => {
    const f = fakeBackend();
    let fail = false;
    const r = new Reconciler({
      backend: f.backend,
      log: silentLogger,
      firewall: false,
      resolveHost: async () => {
        if (fail) throw new Error('SERVFAIL');
        return ['192.0.2.2'];
      },
    });
    const link = mesh('vpn2.example.com', 3);
    await r.applySnapshot(snapshot(1, [link]));
    fail = true;
    Object.assign(f.device.peer(link.public_key) ?? {}, { endpoint: '203.0.113.5:51821' });
    expect(await r.repair()).toMatchObject({ updated: 1 });
    expect(f.device.peer(link.public_key)?.endpoint).toBe('192.0.2.2:51821');
    await r.close();
  });

  it('renders room pairs into the firewall on each snapshot; deltas keep them; repairs re-apply them', async () => {
    const { scripts, runner } = recordingRunner();
    const f = fakeBackend(runner);
    const { warnings, log } = recordingLogger();
    const r = new Reconciler({ backend: f.backend, log, uplink: 'eth0' });
    const pairs: [string, string][] = [
      ['10.64.0.2', '10.64.1.2'],
      ['10.64.1.2', '10.64.0.2'],
      ['10.64.0.999', '10.64.0.2'],
    ];
    await r.applySnapshot(snapshot(1, [peer(2)], pairs));
    expect(scripts).toHaveLength(1);
    expect(scripts[0]).toContain(
      'elements = {\n      10.64.0.2 . 10.64.1.2,\n      10.64.1.2 . 10.64.0.2\n    }',
    );
    expect(scripts[0]).not.toContain('999');
    expect(warnings.map((w) => w.msg)).toEqual(['pares de sala con direcciones no válidas: se ignoran']);
    await r.applyDelta({ type: 'delta', revision: 2, upsert: [peer(3)], remove: [] });
    expect(scripts).toHaveLength(1);
    await r.repair();
    expect(scripts[1]).toBe(scripts[0]);
    await r.applySnapshot(snapshot(3, [peer(2)]));
    expect(scripts[2]).not.toMatch(/\d \. \d/);
    expect(scripts[2]).toContain('ip daddr 10.64.0.1 icmp type echo-request accept');
    await r.close();
  });
});

describe('a relay that nft refuses never stops peer changes (issue 31)', () => {
  const refusal =
    'Error: Could not process rule: Operation not supported\nchain ingress { type filter hook ingress device "wgunit0" priority 0; policy accept; }';
  /** A runner whose nft takes the firewall's table but refuses the relay's until `accept()`. */
  function refusingRunner() {
    let refuse = true;
    let accepted: () => void = () => {};
    const relayAccepted = new Promise<void>((resolve) => (accepted = resolve));
    const runner: CommandRunner = {
      netns: null,
      run: async (file, args, options) => {
        if (file === 'ip') return { stdout: JSON.stringify([{ ifindex: 7 }]), stderr: '' };
        if (file === 'nft' && options?.input?.includes('vpn_relay_')) {
          if (refuse) throw new CommandError('nft', args, 1, refusal);
          accepted();
        }
        if (file === 'nft' && args.includes('counters')) return { stdout: '{"nftables": []}', stderr: '' };
        return { stdout: '', stderr: '' };
      },
      spawn: () => {
        throw new Error('no se lanzan procesos en esta prueba');
      },
    };
    return { runner, relayAccepted, accept: () => (refuse = false) };
  }
  const withRelay = (s: ServerSnapshot, rooms: { id: number; local: string[]; remote: string[] }[]) => ({
    ...s,
    relay: { enabled: true, ...RELAY_DEFAULTS, deny_ports: [...RELAY_DEFAULTS.deny_ports], rooms },
  });

  it('applies the peer diff, acks, reports nft’s reason, and applies the relay on a later try', async () => {
    const nft = refusingRunner();
    const f = fakeBackend(nft.runner);
    const errors: { msg: string; fields?: Record<string, unknown> }[] = [];
    const log: Logger = { ...silentLogger, error: (msg, fields) => errors.push({ msg, fields }) };
    const r = new Reconciler({ backend: f.backend, log, uplink: 'eth0', relayRetryMs: 20 });
    const [a, b, c] = [peer(2), peer(3), peer(4)];
    const room = [{ id: 1, local: ['10.64.0.2', '10.64.0.3'], remote: [] }];
    // Before issue 31 this never resolved: every pass failed on the relay, ahead of the peers.
    expect(await r.applySnapshot(withRelay(snapshot(1, [a, b, c]), room))).toMatchObject({
      revision: 1,
      added: 3,
    });
    expect(r.revision).toBe(1);
    // The panel disables a peer: the next snapshot takes it off although nft still refuses.
    expect(await r.applySnapshot(withRelay(snapshot(2, [a, b]), room))).toMatchObject({ removed: 1 });
    expect(f.device.publicKeys().sort()).toEqual([a.public_key, b.public_key].sort());
    const stats = await r.relayStats();
    expect(stats).toMatchObject({ active: false });
    expect(stats.error).toContain('Operation not supported');
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]!.msg).toContain('relé de descubrimiento');
    expect(String(errors[0]!.fields?.error)).toContain('Operation not supported');
    // nft takes it now: the retry puts the relay in place without another snapshot.
    nft.accept();
    await nft.relayAccepted;
    await r.applyDelta({ type: 'delta', revision: 3, upsert: [], remove: [] });
    expect(await r.relayStats()).toEqual({ active: true, relayed: 0, dropped: 0 });
    await r.close();
  });
});
