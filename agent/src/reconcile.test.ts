import { describe, expect, it } from 'vitest';
import type { AgentPeer, ServerSnapshot } from '@vpn/contracts';
import type { InterfaceSpec } from './backend.ts';
import { createRunner } from './exec.ts';
import { silentLogger } from './log.ts';
import {
  Reconciler,
  diffPeers,
  diffToOps,
  isEmptyDiff,
  toPeerState,
  type PeerState,
  type ReconcilerBackend,
} from './reconcile.ts';
import { FakeDevice, FakeDriver } from './testing/fakeWg.ts';
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

  it('orders removals first so a freed address can be reused in the same transaction', () => {
    const old = peer(2);
    const successor = peer(2);
    const ops = diffToOps(diffPeers(desiredMap([successor]), live([old])));
    expect(ops.map((o) => (o.remove ? 'remove' : 'upsert'))).toEqual(['remove', 'upsert']);
  });
});

function fakeBackend() {
  const device = new FakeDevice();
  const driver = new FakeDriver(device);
  const ensured: InterfaceSpec[] = [];
  let name: string | null = null;
  const backend: ReconcilerBackend = {
    kind: async () => 'wireguard-go',
    ensureInterface: async (spec) => {
      ensured.push(spec);
      name = spec.name;
    },
    driver: () => driver,
    statsReader: () => driver,
    get interfaceName() {
      return name;
    },
    runner: createRunner(null),
    isAlive: async () => true,
  };
  return { device, driver, ensured, backend };
}

const serverKey = randomKey();
const snapshot = (revision: number, peers: AgentPeer[]): ServerSnapshot => ({
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
});
