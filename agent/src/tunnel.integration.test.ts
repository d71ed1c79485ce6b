/**
 * A real tunnel: the agent manages the server's wireguard-go in one namespace; two clients, each
 * with its own wireguard-go loaded from a generated config, reach the server and the "internet"
 * host through NAT, but never each other. Traffic is checked with small TCP servers (no ping
 * needed). Skipped with the reason in its title when not root or the tools are missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Agent } from './agent.ts';
import { silentLogger } from './log.ts';
import { startFakeControlPlane, type FakeControlPlane } from './testing/fakeControlPlane.ts';
import { genKeyPair, randomKey, type KeyPair } from './testing/keys.ts';
import { TestNet, nsExec, sh, uniqueName, wireguardSkipReason } from './testing/netns.ts';
import { ECHO_ADDRESS_SERVER as SERVER, tcpGet, tcpGetRetry } from './testing/tcp.ts';
import { withSecretFile } from './wgtool.ts';

const skip = wireguardSkipReason();
const title = `tunnel through the agent-managed server${skip ? ` — omitido: ${skip}` : ''}`;

describe.skipIf(skip !== null)(title, () => {
  const net = new TestNet();
  const token = randomKey();
  const server = genKeyPair();
  let cp: FakeControlPlane;
  let agent: Agent | null = null;
  let srv = '';
  let inet = '';
  const clients: { ns: string; iface: string; keys: KeyPair; psk: string; address: string; conf: string }[] =
    [];

  beforeAll(async () => {
    srv = net.addNamespace('tsrv');
    inet = net.addNamespace('tinet');
    const c1 = net.addNamespace('tc1');
    const c2 = net.addNamespace('tc2');
    const uplink = net.link(srv, '192.0.2.2/24', inet, '192.0.2.1/24').ifA;
    nsExec(srv, 'ip', ['route', 'add', 'default', 'via', '192.0.2.1']);
    net.link(srv, '198.51.100.1/30', c1, '198.51.100.2/30');
    net.link(srv, '198.51.100.5/30', c2, '198.51.100.6/30');
    const iface = net.track(uniqueName('wgs'));

    for (const [ns, address, endpoint] of [
      [c1, '10.64.0.2', '198.51.100.1'],
      [c2, '10.64.0.3', '198.51.100.5'],
    ] as const) {
      const { iface: ciface } = await net.startWireguardGo(ns, uniqueName('wgc'));
      const keys = genKeyPair();
      const psk = randomKey();
      // What a customer's `.conf` holds, minus the wg-quick lines (Address, DNS) that `wg setconf` refuses.
      const conf = `[Interface]\nPrivateKey = ${keys.privateKey}\n\n[Peer]\nPublicKey = ${server.publicKey}\nPresharedKey = ${psk}\nEndpoint = ${endpoint}:51820\nAllowedIPs = 10.64.0.0/10, 192.0.2.0/24\nPersistentKeepalive = 25\n`;
      nsExec(ns, 'ip', ['address', 'add', `${address}/32`, 'dev', ciface]);
      nsExec(ns, 'ip', ['link', 'set', ciface, 'mtu', '1380', 'up']);
      nsExec(ns, 'ip', ['route', 'add', '10.64.0.0/10', 'dev', ciface]);
      nsExec(ns, 'ip', ['route', 'add', '192.0.2.0/24', 'dev', ciface]);
      clients.push({ ns, iface: ciface, keys, psk, address, conf });
    }

    cp = await startFakeControlPlane({
      token,
      onConnect: (send) => {
        send({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: 1000 });
        send({
          type: 'snapshot',
          revision: 1,
          interface: {
            name: iface,
            private_key: server.privateKey,
            listen_port: 51820,
            address: '10.64.0.1/10',
            mtu: 1420,
            nat: true,
          },
          peers: clients.map((c) => ({
            public_key: c.keys.publicKey,
            preshared_key: c.psk,
            allowed_ips: [`${c.address}/32`],
          })),
        });
      },
    });
    agent = new Agent({
      url: cp.url,
      token,
      netns: srv,
      backend: 'auto',
      wireguardGo: 'wireguard-go',
      repairIntervalMs: 0,
      firewall: true,
      // The host is shut to the tunnel but for this port: its listener proves a client's tunnel works.
      hostTcpPorts: [7000],
      log: silentLogger,
    });
    agent.start();
    await cp.waitFor((m) => m.type === 'ack', { timeoutMs: 15_000 });
    // The default-route uplink was found by the agent itself (no --uplink).
    expect(nsExec(srv, 'nft', ['list', 'table', 'inet', `vpn_agent_${iface}`])).toContain(
      `oifname "${uplink}" masquerade`,
    );

    // Load the clients' configs once the server is up, so their first handshake is answered
    // (a lost one is retried only after WireGuard's 5 s rekey timeout).
    for (const c of clients)
      await withSecretFile(c.conf, async (file) => sh('wg', ['setconf', c.iface, file]));

    await net.startProcess(srv, process.execPath, ['-e', SERVER, '7000', '10.64.0.1']);
    // A port the operator did not open (an SSH, the agent's own): shut to the tunnel.
    await net.startProcess(srv, process.execPath, ['-e', SERVER, '7009']);
    await net.startProcess(inet, process.execPath, ['-e', SERVER, '7001']);
    await net.startProcess(c2, process.execPath, ['-e', SERVER, '7002']);
  });

  afterAll(async () => {
    await agent?.stop({ teardown: true }).catch(() => undefined);
    await cp?.close();
    await net.cleanup();
  });

  it("a client reaches the server's tunnel address 10.64.0.1 on an opened port, and nothing else of the host", async () => {
    expect(await tcpGetRetry(clients[0]!.ns, '10.64.0.1', 7000)).toBe('10.64.0.2');
    expect(await tcpGet(srv, '127.0.0.1', 7009)).toBe('127.0.0.1');
    expect(await tcpGet(clients[0]!.ns, '10.64.0.1', 7009, 1500)).toBeNull();
    const table = nsExec(srv, 'nft', ['list', 'table', 'inet', `vpn_agent_${agent!.backend.interfaceName}`]);
    const dropped = /counter packets (\d+) bytes \d+ drop comment "host protected from the tunnel"/.exec(
      table,
    );
    expect(Number(dropped?.[1])).toBeGreaterThan(0);
  });

  it('a client reaches the internet host, masqueraded behind the server uplink', async () => {
    expect(await tcpGetRetry(clients[0]!.ns, '192.0.2.1', 7001)).toBe('192.0.2.2');
  });

  it('a client never reaches another client, and the isolation rule is what drops it', async () => {
    // c2 has a working tunnel too (so the failure below is the firewall, not a dead peer).
    expect(await tcpGetRetry(clients[1]!.ns, '10.64.0.1', 7000)).toBe('10.64.0.3');
    expect(await tcpGet(clients[0]!.ns, '10.64.0.3', 7002, 1500)).toBeNull();
    const table = nsExec(srv, 'nft', ['list', 'table', 'inet', `vpn_agent_${agent!.backend.interfaceName}`]);
    const dropped = /counter packets (\d+) bytes \d+ drop comment "peer isolation"/.exec(table);
    expect(Number(dropped?.[1])).toBeGreaterThan(0);
  });

  it('reports the handshakes and traffic in stats', async () => {
    const key = clients[0]!.keys.publicKey;
    const stats = await cp.waitFor(
      (m) =>
        m.type === 'stats' &&
        m.peers.some((p) => p.public_key === key && p.latest_handshake > 0 && p.rx_bytes > 0),
      { timeoutMs: 5000 },
    );
    const mine =
      stats.message.type === 'stats' ? stats.message.peers.find((p) => p.public_key === key) : undefined;
    expect(mine?.endpoint).toMatch(/^198\.51\.100\.2:\d+$/);
  });
});
