/**
 * The agent on real wireguard-go and nftables, inside network namespaces made here, driven by a
 * fake control plane through the real connection module. Skipped (with the reason in its title)
 * when not root or when wireguard-go / wg / nft / ip are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentPeer, ServerSnapshot } from '@vpn/contracts/agent';
import { Agent } from './agent.ts';
import { createRunner } from './exec.ts';
import { silentLogger } from './log.ts';
import { retireOp } from './reconcile.ts';
import { startFakeControlPlane, type FakeControlPlane } from './testing/fakeControlPlane.ts';
import { genKeyPair, publicKeyOf, randomKey } from './testing/keys.ts';
import { TestNet, nsExec, sh, uniqueName, wireguardSkipReason } from './testing/netns.ts';
import { WgToolDriver, withSecretFile } from './wgtool.ts';

const skip = wireguardSkipReason();
const title = `agent on real wireguard-go${skip ? ` — omitido: ${skip}` : ''}`;

interface DumpPeer {
  publicKey: string;
  presharedKey: string;
  allowedIps: string[];
}

function dump(iface: string): { privateKey: string; listenPort: number; peers: DumpPeer[] } {
  const lines = sh('wg', ['show', iface, 'dump']).trim().split('\n');
  const head = (lines.shift() ?? '').split('\t');
  return {
    privateKey: head[0] ?? '',
    listenPort: Number(head[2]),
    peers: lines.map((l) => {
      const [publicKey = '', presharedKey = '', , ips = ''] = l.split('\t');
      return { publicKey, presharedKey, allowedIps: ips === '(none)' ? [] : ips.split(',') };
    }),
  };
}

const asDump = (peers: AgentPeer[]) =>
  peers
    .map((p) => ({ publicKey: p.public_key, presharedKey: p.preshared_key, allowedIps: p.allowed_ips }))
    .sort((a, b) => a.publicKey.localeCompare(b.publicKey));
const sorted = (peers: DumpPeer[]) => [...peers].sort((a, b) => a.publicKey.localeCompare(b.publicKey));

async function eventually(check: () => void, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

const peer = (n: number): AgentPeer => ({
  public_key: genKeyPair().publicKey,
  preshared_key: randomKey(),
  allowed_ips: [`10.64.0.${n}/32`],
});

describe.skipIf(skip !== null)(title, () => {
  const net = new TestNet();
  const token = randomKey();
  const server = genKeyPair();
  let srv = '';
  let uplink = '';
  let iface = '';
  let cp: FakeControlPlane;
  let agent: Agent | null = null;
  const pids: number[] = [];
  let desired: AgentPeer[] = [];
  let revision = 1;

  const snapshot = (): ServerSnapshot => ({
    type: 'snapshot',
    revision,
    interface: {
      name: iface,
      private_key: server.privateKey,
      listen_port: 51820,
      address: '10.64.0.1/10',
      mtu: 1380,
      nat: true,
    },
    peers: desired,
  });

  const newAgent = () =>
    new Agent({
      url: cp.url,
      token,
      netns: srv,
      uplink,
      backend: 'auto',
      wireguardGo: 'wireguard-go',
      repairIntervalMs: 700,
      healthIntervalMs: 200,
      firewall: true,
      log: silentLogger,
      timings: { backoffInitialMs: 100, backoffMaxMs: 500, heartbeatMs: 1000 },
    });

  beforeAll(async () => {
    srv = net.addNamespace('vsrv');
    const inet = net.addNamespace('vinet');
    uplink = net.link(srv, '192.0.2.2/24', inet, '192.0.2.1/24').ifA;
    iface = net.track(uniqueName('wga'));
    desired = [peer(2), peer(3), peer(4)];
    cp = await startFakeControlPlane({
      token,
      onConnect: (send) => {
        send({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: 1000 });
        send(snapshot());
      },
    });
    agent = newAgent();
    agent.start();
  });

  afterAll(async () => {
    const pid = agent?.backend.daemonPid;
    if (pid) pids.push(pid);
    await agent?.stop({ teardown: true }).catch(() => undefined);
    await cp?.close();
    await net.cleanup(pids);
  });

  it('applies the snapshot: exactly those peers, keys, port, address, MTU, route; then acks', async () => {
    const hello = await cp.waitFor((m) => m.type === 'hello');
    expect(hello.message).toMatchObject({ backend: 'wireguard-go', revision: 0 });
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 1, { timeoutMs: 15_000 });
    const live = dump(iface);
    expect(live.privateKey).toBe(server.privateKey);
    expect(live.listenPort).toBe(51820);
    expect(sorted(live.peers)).toEqual(asDump(desired));
    const addr = nsExec(srv, 'ip', ['-o', 'addr', 'show', 'dev', iface]);
    expect(addr).toContain('inet 10.64.0.1/10');
    const link = nsExec(srv, 'ip', ['-o', 'link', 'show', 'dev', iface]);
    expect(link).toMatch(/mtu 1380/);
    expect(link).toMatch(/[<,]UP[,>]/);
    expect(nsExec(srv, 'ip', ['route', 'show', '10.64.0.0/10'])).toContain(`dev ${iface}`);
    expect(nsExec(srv, 'sysctl', ['-n', 'net.ipv4.ip_forward']).trim()).toBe('1');
    expect(publicKeyOf(server.privateKey)).toBe(server.publicKey);
  });

  it('reports stats for every peer', async () => {
    // A stats tick may fire while the snapshot is still being written (1 s interval, and
    // wireguard-go's start can take longer on a busy machine): that pass reads an interface with
    // no peers yet. What counts is the first report after the snapshot's ack.
    const acked = cp.received.findIndex((r) => r.message.type === 'ack' && r.message.revision === 1);
    expect(acked).toBeGreaterThanOrEqual(0);
    // A pass that began before the snapshot was written can land after the ack with no peers (seen
    // at load 30): the first report that reads the interface after the apply names them all.
    const stats = await cp.waitFor((m) => m.type === 'stats' && m.peers.length > 0, { from: acked + 1 });
    expect(stats.message.type === 'stats' && stats.message.peers.map((p) => p.public_key).sort()).toEqual(
      desired.map((p) => p.public_key).sort(),
    );
  });

  it('applies a delta that adds one peer and removes another, then acks it', async () => {
    const added = peer(5);
    const removed = desired[0]!;
    revision = 2;
    const from = cp.received.length;
    cp.send({ type: 'delta', revision, upsert: [added], remove: [removed.public_key] });
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 2, { from });
    desired = [...desired.slice(1), added];
    // Acked with the removed key dead (issue 24): no address, a preshared key nobody has.
    const dead = dump(iface).peers.find((p) => p.publicKey === removed.public_key);
    expect(dead?.allowedIps).toEqual([]);
    expect(dead?.presharedKey).not.toBe(removed.preshared_key);
    // The next stats pass reports its last counters on their own, then the key is gone.
    const final = await cp.waitFor(
      (m) => m.type === 'stats' && m.peers.some((p) => p.public_key === removed.public_key),
      { from },
    );
    expect(final.message.type === 'stats' && final.message.peers.map((p) => p.public_key)).toEqual([
      removed.public_key,
    ]);
    await eventually(() => expect(sorted(dump(iface).peers)).toEqual(asDump(desired)));
  });

  it('changes a peer in place (new preshared key and addresses) without touching the others', async () => {
    const changed = {
      ...desired[0]!,
      preshared_key: randomKey(),
      allowed_ips: ['10.64.0.30/32', '10.64.0.31/32'],
    };
    revision = 3;
    cp.send({ type: 'delta', revision, upsert: [changed], remove: [] });
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 3);
    desired = [changed, ...desired.slice(1)];
    expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
  });

  it('reconciling twice changes nothing', async () => {
    const before = dump(iface);
    expect(await agent!.reconciler.repair()).toMatchObject({
      added: 0,
      updated: 0,
      removed: 0,
      device: false,
    });
    expect(await agent!.reconciler.applySnapshot(snapshot())).toMatchObject({
      added: 0,
      updated: 0,
      removed: 0,
      device: false,
    });
    expect(await agent!.reconciler.repair()).toMatchObject({
      added: 0,
      updated: 0,
      removed: 0,
      device: false,
    });
    expect(sorted(dump(iface).peers)).toEqual(sorted(before.peers));
    // The firewall table was re-applied, not duplicated.
    const tables = nsExec(srv, 'nft', ['list', 'tables'])
      .split('\n')
      .filter((l) => l.includes(`vpn_agent_${iface}`));
    expect(tables).toHaveLength(1);
  });

  it('repairs drift made behind its back (removed peer, stranger, changed key) on the periodic pass', async () => {
    const victim = desired[1]!;
    const rekeyed = desired[2]!;
    const stranger = genKeyPair().publicKey;
    await withSecretFile(randomKey(), async (pskFile) =>
      sh('wg', [
        'set',
        iface,
        'peer',
        victim.public_key,
        'remove',
        'peer',
        stranger,
        'allowed-ips',
        '10.64.7.7/32',
        'peer',
        rekeyed.public_key,
        'preshared-key',
        pskFile,
      ]),
    );
    const drifted = dump(iface).peers;
    expect(drifted.map((p) => p.publicKey)).not.toContain(victim.public_key);
    expect(drifted.find((p) => p.publicKey === rekeyed.public_key)?.presharedKey).not.toBe(
      rekeyed.preshared_key,
    );
    await eventually(() => expect(sorted(dump(iface).peers)).toEqual(asDump(desired)));
  });

  it('keeps the isolation and masquerade rules in its own nftables table', () => {
    const table = nsExec(srv, 'nft', ['list', 'table', 'inet', `vpn_agent_${iface}`]);
    expect(table).toMatch(/set room_pairs \{\s*type ipv4_addr \. ipv4_addr/);
    expect(table).toMatch(
      new RegExp(`iifname "${iface}" oifname "${iface}" ip saddr \\. ip daddr @room_pairs accept`),
    );
    expect(table).toMatch(
      new RegExp(`iifname "${iface}" oifname "${iface}" counter packets \\d+ bytes \\d+ drop`),
    );
    expect(table).toMatch(new RegExp(`iifname "${iface}" oifname "${uplink}" accept`));
    expect(table).toMatch(new RegExp(`ip saddr 10\\.64\\.0\\.0/10 oifname "${uplink}" masquerade`));
  });

  it('answers an invalid message with error and stays connected', async () => {
    const from = cp.received.length;
    cp.send({ type: 'snapshot', revision: 99, peers: 'all of them' });
    await cp.waitFor((m) => m.type === 'error', { from });
    expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
    expect(agent!.connection.connected).toBe(true);
  });

  it('reconnects after the control plane drops it and converges to what changed meanwhile', async () => {
    const from = cp.received.length;
    const conns = cp.connections.length;
    revision = 7;
    desired = [...desired.slice(1), peer(8)];
    cp.dropAll();
    const hello = await cp.waitFor((m) => m.type === 'hello', { from });
    expect(hello.message).toMatchObject({ revision: 3 });
    expect(cp.connections.length).toBe(conns + 1);
    expect(cp.connections.at(-1)!.at - cp.connections.at(-2)!.at).toBeGreaterThanOrEqual(50);
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 7, { from });
    expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
  });

  it('restarts wireguard-go when it dies and restores the interface', async () => {
    const pid = agent!.backend.daemonPid;
    expect(pid).toBeTypeOf('number');
    process.kill(pid!, 'SIGKILL');
    await eventually(() => {
      expect(agent!.backend.daemonPid).not.toBe(pid);
      expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
      expect(nsExec(srv, 'ip', ['-o', 'addr', 'show', 'dev', iface])).toContain('10.64.0.1/10');
    }, 15_000);
  });

  it('leaves the interface up when stopped, and a new agent adopts it and converges', async () => {
    const pid = agent!.backend.daemonPid!;
    pids.push(pid);
    await agent!.stop();
    expect(process.kill(pid, 0)).toBe(true);
    expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
    revision = 8;
    desired = [...desired, peer(9)];
    const from = cp.received.length;
    agent = newAgent();
    agent.start();
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 8, { from, timeoutMs: 15_000 });
    expect(agent.backend.daemonPid).toBeNull();
    expect(sorted(dump(iface).peers)).toEqual(asDump(desired));
  });

  it('the wg-tool driver (kernel path) sets and reads peers with keys on stdin only', async () => {
    // The driver alone on the interface: the running agent's repair (every 700 ms here) would take
    // this test's key away between a set and the read after it on a busy machine.
    await agent!.stop();
    const driver = new WgToolDriver(createRunner(srv), iface);
    const key = genKeyPair().publicKey;
    const psk = randomKey();
    await driver.set({
      peers: [{ publicKey: key, presharedKey: psk, replaceAllowedIps: true, allowedIps: ['10.64.1.1/32'] }],
    });
    await driver.set({
      peers: [{ publicKey: key, presharedKey: psk, replaceAllowedIps: true, allowedIps: ['10.64.1.2/32'] }],
    });
    let state = await driver.get();
    expect(state.privateKey).toBe(server.privateKey);
    expect(state.peers.find((p) => p.publicKey === key)).toMatchObject({
      presharedKey: psk,
      allowedIps: ['10.64.1.2/32'],
    });
    // Retiring a key (issue 24) through `wg addconf`: no address left, another preshared key.
    await driver.set({ peers: [retireOp(key)] });
    state = await driver.get();
    const retired = state.peers.find((p) => p.publicKey === key);
    expect(retired?.allowedIps).toEqual([]);
    expect(retired?.presharedKey).not.toBe(psk);
    await driver.set({ peers: [{ publicKey: key, remove: true }] });
    state = await driver.get();
    expect(state.peers.find((p) => p.publicKey === key)).toBeUndefined();
  });
});
