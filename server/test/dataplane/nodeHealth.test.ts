/**
 * Issue 34 on the real data plane: the node health the console shows for a server (Servidores'
 * list, and the `admin_server_health` push that updates it) says what the node itself says —
 * `wg show` for its peers, handshakes and bytes, /proc for its load and memory — within one stats
 * interval. The figures are bracketed: read from the node before a report is made and after it
 * arrived, the report's counters lie between the two readings (they only grow).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminServer, NodeHealth } from '@vpn/contracts';
import { PushClient } from '../protocolAgent.ts';
import { Fleet } from './fleet.ts';
import { dataplaneSkipReason, eventually, sh, type Lab } from './network.ts';

const skip = dataplaneSkipReason();
const STATS_MS = 2000;

/** What `wg show` says of an interface: peers, handshakes in the last 3 minutes, summed bytes. */
function wgShow(iface: string) {
  const lines = (args: string[]) =>
    sh('wg', ['show', iface, ...args])
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
  const now = Date.now() / 1000;
  const handshakes = lines(['latest-handshakes']).filter(
    ([, at]) => Number(at) > 0 && now - Number(at) < 180,
  );
  const transfer = lines(['transfer']);
  return {
    peers: lines(['peers']).length,
    handshakes: handshakes.length,
    rx: transfer.reduce((sum, [, rx]) => sum + Number(rx), 0),
    tx: transfer.reduce((sum, [, , tx]) => sum + Number(tx), 0),
  };
}

describe.skipIf(skip !== null)(`node health${skip ? ` (omitido: ${skip})` : ''}`, () => {
  const fleet = new Fleet({ prefix: 'co', app: { statsIntervalMs: STATS_MS } });
  let lab: Lab;

  beforeAll(async () => {
    ({ lab } = await fleet.start());
  });
  afterAll(() => fleet.close());

  it("matches the node's own wg show and /proc within one stats interval", async () => {
    const [server] = fleet.servers;
    const iface = server!.iface;
    // Two customers whose clients connect and send traffic, and one peer nobody uses.
    const clients = [];
    for (const [i, address] of ['198.51.100.41', '198.51.100.42'].entries()) {
      const c = await fleet.customer();
      const id = await fleet.grantPeer(c.username, server!.id, `Nodo ${i}`);
      clients.push({ host: lab.host(`coc${i}`, address), conf: await fleet.download(c.access, id) });
    }
    const idle = await fleet.customer();
    await fleet.grantPeer(idle.username, server!.id, 'Sin usar');
    await eventually(() => lab.peersOn(iface).length >= 3, 20_000, 'peers en la interfaz');
    for (const { host, conf } of clients) {
      await lab.loadClientConf(host, conf);
      expect(await lab.reaches(host.ns, '10.64.0.1')).toBe(true);
    }

    const push = await PushClient.connect(fleet.base, fleet.admin);
    try {
      const before = wgShow(iface);
      const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).map(Number);
      const memTotal =
        Number(/^MemTotal:\s+(\d+) kB/m.exec(readFileSync('/proc/meminfo', 'utf8'))![1]) * 1024;
      const since = push.messages.length;
      // The second report after the reading: its stats pass began after it.
      const reports = () =>
        push.messages
          .slice(since)
          .filter((m) => m.type === 'admin_server_health' && m.server_id === server!.id);
      await eventually(() => reports().length >= 2, 6 * STATS_MS, 'dos informes de salud');
      const after = wgShow(iface);
      const pushed = reports()[1]!.health as NodeHealth;
      const listed = (await fleet.api('GET', '/api/admin/servers', fleet.admin))
        .json<{ results: AdminServer[] }>()
        .results.find((s) => s.id === server!.id)!;
      // The list shows what the last push said (or a newer report, bracketed the same way).
      const shown = listed.health!;

      for (const h of [pushed, shown]) {
        expect(h.peers).toBe(after.peers);
        expect(after.peers).toBeGreaterThanOrEqual(3);
        expect(h.handshakes_3m).toBe(2);
        expect(h.handshakes_3m).toBe(after.handshakes);
        expect(h.rx_bytes).toBeGreaterThanOrEqual(before.rx);
        expect(h.tx_bytes).toBeGreaterThanOrEqual(before.tx);
        expect(h.rx_bytes).toBeGreaterThan(0);
        expect(h.tx_bytes).toBeGreaterThan(0);
        expect(h.rx_rate).not.toBeNull();
        expect(h.memory!.total).toBe(memTotal);
        expect(h.memory!.available).toBeLessThanOrEqual(memTotal);
        expect(h.cpu).toBeGreaterThanOrEqual(0);
        expect(h.cpu).toBeLessThanOrEqual(100);
        // The load moves slowly: within a few seconds of our own reading.
        for (const [i, value] of h.load!.entries()) expect(Math.abs(value - load[i]!)).toBeLessThan(2);
      }
      expect(pushed.rx_bytes).toBeLessThanOrEqual(after.rx);
      expect(pushed.tx_bytes).toBeLessThanOrEqual(after.tx);
      console.log(
        `wg show: ${after.peers} peers, ${after.handshakes} con handshake, rx ${before.rx}…${after.rx}, tx ${before.tx}…${after.tx}; ` +
          `informado: ${pushed.peers} peers, ${pushed.handshakes_3m}, rx ${pushed.rx_bytes}, tx ${pushed.tx_bytes}, ` +
          `carga ${pushed.load?.join(' ')}, CPU ${pushed.cpu} %`,
      );
    } finally {
      push.close();
    }
  });
});
