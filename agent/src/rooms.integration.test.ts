/**
 * Rooms (Salas) on real wireguard-go: two VPN servers, each run by its own agent and fake control
 * plane, linked by a mesh peer (endpoint = the other server's address, allowed IPs = the remote
 * room member), with `room_pairs` in their firewalls. Clients are wireguard-go interfaces set up
 * with `wg` like a customer's `.conf`. Skipped with the reason in its title when not root or the
 * tools are missing.
 *
 *   cA1 10.64.0.2 ─┐                                           ┌─ cB1 10.64.1.2
 *   cA2 10.64.0.3 ─┼─ server A (10.64.0.1) ══ mesh ══ server B (10.64.1.1)
 *   cA3 10.64.0.4 ─┘   192.0.2.1:51820   192.0.2.2:51821
 *
 * Rooms: {cA1, cB1} across the servers, {cA1, cA2} on server A; cA3 is in none.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentPeer, ServerSnapshot } from '@vpn/contracts/agent';
import { Agent } from './agent.ts';
import { silentLogger } from './log.ts';
import { startFakeControlPlane, type FakeControlPlane } from './testing/fakeControlPlane.ts';
import { genKeyPair, randomKey, type KeyPair } from './testing/keys.ts';
import { TestNet, nsExec, sh, uniqueName, wireguardSkipReason } from './testing/netns.ts';
import { ECHO_ADDRESS_SERVER, tcpGet, tcpGetRetry } from './testing/tcp.ts';
import { withSecretFile } from './wgtool.ts';

const skip = wireguardSkipReason();
const title = `rooms across two agent-managed servers${skip ? ` — omitido: ${skip}` : ''}`;

interface Client {
  ns: string;
  iface: string;
  keys: KeyPair;
  psk: string;
  address: string;
}

interface Server {
  name: 'A' | 'B';
  ns: string;
  iface: string;
  keys: KeyPair;
  port: number;
  /** Tunnel address with the pool's prefix. */
  address: string;
  /** Its address on the link between the servers (what the other one dials). */
  wan: string;
  uplink: string;
  clients: Client[];
  cp: FakeControlPlane | null;
  agent: Agent | null;
  revision: number;
  roomPairs: [string, string][];
}

describe.skipIf(skip !== null)(title, () => {
  const net = new TestNet();
  const token = randomKey();
  /** Both ends of the mesh link use the same preshared key. */
  const meshPsk = randomKey();
  const servers: Server[] = [];
  const pids: number[] = [];
  const [A1, A2, A3, B1] = ['10.64.0.2', '10.64.0.3', '10.64.0.4', '10.64.1.2'];
  const byAddress = new Map<string, Client>();
  const client = (address: string): Client => {
    const c = byAddress.get(address);
    if (!c) throw new Error(`sin cliente ${address}`);
    return c;
  };
  const server = (name: 'A' | 'B'): Server => {
    const s = servers.find((x) => x.name === name);
    if (!s) throw new Error(`sin servidor ${name}`);
    return s;
  };

  /** Customers of `s`, then the mesh link to the other server carrying the remote room member. */
  const snapshot = (s: Server): ServerSnapshot => {
    const other = server(s.name === 'A' ? 'B' : 'A');
    const mesh: AgentPeer = {
      public_key: other.keys.publicKey,
      preshared_key: meshPsk,
      allowed_ips: [`${s.name === 'A' ? B1 : A1}/32`],
      endpoint: `${other.wan}:${other.port}`,
      persistent_keepalive: 25,
    };
    return {
      type: 'snapshot',
      revision: s.revision,
      interface: {
        name: s.iface,
        private_key: s.keys.privateKey,
        listen_port: s.port,
        address: s.address,
        mtu: 1420,
        nat: true,
      },
      peers: [
        ...s.clients.map((c) => ({
          public_key: c.keys.publicKey,
          preshared_key: c.psk,
          allowed_ips: [`${c.address}/32`],
        })),
        mesh,
      ],
      room_pairs: s.roomPairs,
    };
  };

  const acked = (s: Server, revision: number) =>
    s.cp?.waitFor((m) => m.type === 'ack' && m.revision === revision, { timeoutMs: 15_000 });

  beforeAll(async () => {
    const nsA = net.addNamespace('rsa');
    const nsB = net.addNamespace('rsb');
    const wan = net.link(nsA, '192.0.2.1/24', nsB, '192.0.2.2/24');
    const keysA = genKeyPair();
    const keysB = genKeyPair();
    const base = { cp: null, agent: null, revision: 1 };
    servers.push(
      {
        ...base,
        name: 'A',
        ns: nsA,
        iface: net.track(uniqueName('wgra')),
        keys: keysA,
        port: 51820,
        address: '10.64.0.1/10',
        wan: '192.0.2.1',
        uplink: wan.ifA,
        clients: [],
        roomPairs: [
          [A1, B1],
          [B1, A1],
          [A1, A2],
          [A2, A1],
        ],
      },
      {
        ...base,
        name: 'B',
        ns: nsB,
        iface: net.track(uniqueName('wgrb')),
        keys: keysB,
        port: 51821,
        address: '10.64.1.1/10',
        wan: '192.0.2.2',
        uplink: wan.ifB,
        clients: [],
        roomPairs: [
          [A1, B1],
          [B1, A1],
        ],
      },
    );

    // Clients: a namespace each, a veth to their server, wireguard-go (configured later).
    let subnet = 0;
    const confs: { c: Client; conf: string }[] = [];
    for (const [s, address] of [
      [server('A'), A1],
      [server('A'), A2],
      [server('A'), A3],
      [server('B'), B1],
    ] as const) {
      const ns = net.addNamespace('rc');
      const srvSide = `198.51.100.${subnet * 4 + 1}`;
      net.link(s.ns, `${srvSide}/30`, ns, `198.51.100.${subnet * 4 + 2}/30`);
      subnet++;
      const { iface } = await net.startWireguardGo(ns, uniqueName('wgrc'));
      const c: Client = { ns, iface, keys: genKeyPair(), psk: randomKey(), address };
      nsExec(ns, 'ip', ['address', 'add', `${address}/32`, 'dev', iface]);
      nsExec(ns, 'ip', ['link', 'set', iface, 'mtu', '1380', 'up']);
      nsExec(ns, 'ip', ['route', 'add', '10.64.0.0/10', 'dev', iface]);
      s.clients.push(c);
      byAddress.set(address, c);
      confs.push({
        c,
        conf: `[Interface]\nPrivateKey = ${c.keys.privateKey}\n\n[Peer]\nPublicKey = ${s.keys.publicKey}\nPresharedKey = ${c.psk}\nEndpoint = ${srvSide}:${s.port}\nAllowedIPs = 10.64.0.0/10\nPersistentKeepalive = 25\n`,
      });
    }

    for (const s of servers) {
      s.cp = await startFakeControlPlane({
        token,
        onConnect: (send) => {
          send({ type: 'welcome', protocol: 1, server_id: s.name === 'A' ? 1 : 2, stats_interval_ms: 1000 });
          send(snapshot(s));
        },
      });
      s.agent = new Agent({
        url: s.cp.url,
        token,
        netns: s.ns,
        uplink: s.uplink,
        backend: 'auto',
        wireguardGo: 'wireguard-go',
        repairIntervalMs: 0,
        firewall: true,
        // The host is shut to the tunnel but for this port: its listener proves a client's tunnel works.
        hostTcpPorts: [7000],
        log: silentLogger,
      });
      s.agent.start();
    }
    await Promise.all(servers.map((s) => acked(s, 1)));

    // Clients connect once their server is up (a lost first handshake is retried only after 5 s).
    for (const { c, conf } of confs)
      await withSecretFile(conf, async (file) => sh('wg', ['setconf', c.iface, file]));

    await net.startProcess(server('A').ns, process.execPath, [
      '-e',
      ECHO_ADDRESS_SERVER,
      '7000',
      '10.64.0.1',
    ]);
    for (const [address, port] of [
      [A1, 7001],
      [A2, 7002],
      [B1, 7003],
    ] as const)
      await net.startProcess(client(address).ns, process.execPath, ['-e', ECHO_ADDRESS_SERVER, String(port)]);
  });

  afterAll(async () => {
    for (const s of servers) {
      const pid = s.agent?.backend.daemonPid;
      if (pid) pids.push(pid);
      await s.agent?.stop({ teardown: true }).catch(() => undefined);
      await s.cp?.close();
    }
    await net.cleanup(pids);
  });

  it('configures the mesh link with its endpoint and keepalive, and the pairs in the firewall', () => {
    const a = server('A');
    const b = server('B');
    const dump = sh('wg', ['show', a.iface, 'dump']);
    const line = dump.split('\n').find((l) => l.startsWith(b.keys.publicKey));
    const [, psk, endpoint, ips, , , , keepalive] = (line ?? '').split('\t');
    expect({ psk, endpoint, ips, keepalive }).toEqual({
      psk: meshPsk,
      endpoint: '192.0.2.2:51821',
      ips: `${B1}/32`,
      keepalive: '25',
    });
    const set = nsExec(a.ns, 'nft', ['list', 'set', 'inet', `vpn_agent_${a.iface}`, 'room_pairs']);
    for (const [x, y] of a.roomPairs) expect(set).toContain(`${x} . ${y}`);
  });

  it('a client reaches its room mate on the other server, unmasqueraded, both ways', async () => {
    expect(await tcpGetRetry(client(A1).ns, B1, 7003, 8)).toBe(A1);
    expect(await tcpGetRetry(client(B1).ns, A1, 7001)).toBe(B1);
    // The link handshook over the servers' own addresses.
    const b = server('B');
    const hs = sh('wg', ['show', server('A').iface, 'latest-handshakes']);
    expect(
      Number(
        hs
          .split('\n')
          .find((l) => l.startsWith(b.keys.publicKey))
          ?.split('\t')[1],
      ),
    ).toBeGreaterThan(0);
  });

  it('two clients of one server in the same room reach each other; a third one reaches neither', async () => {
    expect(await tcpGetRetry(client(A1).ns, A2, 7002)).toBe(A1);
    expect(await tcpGetRetry(client(A2).ns, A1, 7001)).toBe(A2);
    // cA3's tunnel works (the failures below are the firewall, not a dead peer).
    expect(await tcpGetRetry(client(A3).ns, '10.64.0.1', 7000)).toBe(A3);
    expect(await tcpGet(client(A3).ns, A2, 7002, 1500)).toBeNull();
    expect(await tcpGet(client(A3).ns, A1, 7001, 1500)).toBeNull();
    expect(await tcpGet(client(A3).ns, B1, 7003, 1500)).toBeNull();
  });

  it('with room_pairs empty in a new snapshot, the traffic is dropped again (the link stays)', async () => {
    for (const s of servers) {
      s.revision = 2;
      s.roomPairs = [];
      s.cp?.send(snapshot(s));
    }
    await Promise.all(servers.map((s) => acked(s, 2)));
    const a = server('A');
    expect(nsExec(a.ns, 'nft', ['list', 'set', 'inet', `vpn_agent_${a.iface}`, 'room_pairs'])).not.toContain(
      'elements',
    );
    expect(sh('wg', ['show', a.iface, 'peers'])).toContain(server('B').keys.publicKey);
    expect(await tcpGet(client(A1).ns, B1, 7003, 1500)).toBeNull();
    expect(await tcpGet(client(B1).ns, A1, 7001, 1500)).toBeNull();
    expect(await tcpGet(client(A1).ns, A2, 7002, 1500)).toBeNull();
    // Still connected to its server: only peer-to-peer is cut.
    expect(await tcpGetRetry(client(A1).ns, '10.64.0.1', 7000)).toBe(A1);
  });
});
