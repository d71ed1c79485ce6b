/**
 * Issue 25, for real: LAN games find each other across a room. Real wireguard-go, the real agent
 * and nftables in network namespaces, driven only through the public HTTP API. A member's
 * broadcast and multicast datagrams reach each other member (on its own server and on the other
 * one, through the mesh link) as unicast from the sender's tunnel address and port; nobody outside
 * the room, and not the sender, gets anything; a flood is held to the stated limit; the switches in
 * Ajustes and per server turn it off.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_DEFAULTS } from '@vpn/contracts';
import { Fleet } from './fleet.ts';
import { dataplaneSkipReason, eventually, nsExec, type Host, type Lab } from './network.ts';
import { Receiver, sendTogether, sendUdp } from './udp.ts';

const skip = dataplaneSkipReason();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(skip !== null)(`game discovery in rooms${skip ? ` (omitido: ${skip})` : ''}`, () => {
  const fleet = new Fleet({ prefix: 'dd', app: { statsIntervalMs: 1000 }, settings: { allow_partys: true } });
  const { api, member, download, servers: srv } = fleet;
  let lab: Lab;
  let admin: string;
  /** Ana (server 1) sends; Bea (server 1) and Luis (server 2) are her room mates; Otro (server 1) is in no room. */
  const c: Record<'ana' | 'bea' | 'luis' | 'otro', { host: Host; addr: string; iface: string }> = {} as never;
  const receivers: Receiver[] = [];

  async function serverRelay(id: number) {
    const res = await api('GET', '/api/admin/servers', admin);
    const s = res
      .json<{
        results: { id: number; relay: { active: boolean | null; relayed: number; dropped: number } }[];
      }>()
      .results.find((r) => r.id === id)!;
    return s.relay;
  }

  beforeAll(async () => {
    ({ lab, admin } = await fleet.start());
    const people = [
      ['ana', 0, '198.51.100.81'],
      ['bea', 0, '198.51.100.82'],
      ['luis', 1, '198.51.100.83'],
      ['otro', 0, '198.51.100.84'],
    ] as const;
    const access: Record<string, string> = {};
    const ids: Record<string, number> = {};
    for (const [name, server, address] of people) {
      const m = await member(`${name} DD`, srv[server]!.id, `PC ${name}`);
      access[name] = m.access;
      ids[name] = m.id;
      const conf = await download(m.access, m.id);
      const host = lab.host(`dd${name}`, address);
      const iface = await lab.loadClientConf(host, conf);
      c[name] = { host, addr: /^Address = ([\d.]+)\//m.exec(conf)![1]!, iface };
    }
    // Every client has a session with its server (a server sends nothing to a peer without one).
    for (const name of ['ana', 'bea', 'luis', 'otro'] as const)
      expect(await lab.reaches(c[name].host.ns, '10.64.0.1')).toBe(true);
    const room = await api('POST', '/api/client/network/partys', access.ana!, {
      name: 'LAN Juegos',
      peer: ids.ana,
    });
    expect(room.statusCode, room.body).toBe(201);
    for (const name of ['bea', 'luis'] as const) {
      const join = await api('PATCH', '/api/client/network/partys', access[name]!, {
        operation: 'join',
        name: 'LAN Juegos',
        password: room.json().password,
        peer: ids[name],
      });
      expect(join.statusCode, join.body).toBe(200);
    }
    // The room is live on both servers (the mesh link and the pairs), so the relay rules are too.
    expect(await lab.reaches(c.ana.host.ns, c.luis.addr, 30_000)).toBe(true);
    expect(await lab.reaches(c.ana.host.ns, c.bea.addr, 30_000)).toBe(true);
    expect(await lab.reaches(c.luis.host.ns, c.ana.addr, 30_000)).toBe(true);
  });

  afterAll(async () => {
    for (const r of receivers) r.stop();
    await fleet.close();
  });

  /** Packets the client's tunnel interface received from its server (decrypted). */
  function tunnelRx(name: keyof typeof c): number {
    const out = nsExec(c[name].host.ns, 'ip', ['-j', '-s', 'link', 'show', 'dev', c[name].iface]);
    return (JSON.parse(out) as { stats64: { rx: { packets: number } } }[])[0]!.stats64.rx.packets;
  }

  /** What a client received from others (a host also gets its own limited broadcasts, locally). */
  const fromOthers = (name: keyof typeof c, r: Receiver) => r.got.filter((d) => d.from !== c[name].addr);

  async function listenAll(ports: number[]) {
    const out = {
      ana: new Receiver(c.ana.host.ns, ports),
      bea: new Receiver(c.bea.host.ns, ports),
      luis: new Receiver(c.luis.host.ns, ports),
      otro: new Receiver(c.otro.host.ns, ports),
    };
    receivers.push(...Object.values(out));
    await Promise.all(Object.values(out).map((r) => r.ready));
    return out;
  }

  it('broadcast and multicast reach each mate, on both servers, as the sender; nobody else', async () => {
    const rx = await listenAll([27015, 19132, 4445, 5353]);
    const sends = [
      { dest: '255.255.255.255', dport: 27015, tag: 'cs' },
      { dest: '255.255.255.255', dport: 19132, tag: 'bedrock' },
      { dest: '224.0.2.60', dport: 4445, tag: 'java' },
      // mDNS is operating-system chatter: never relayed.
      { dest: '224.0.0.251', dport: 5353, tag: 'mdns' },
    ];
    const anaRx = tunnelRx('ana');
    for (const [i, s] of sends.entries())
      await sendUdp(c.ana.host.ns, { bind: c.ana.addr, sport: 40000 + i, count: 3, perSecond: 10, ...s });
    await eventually(
      async () => rx.luis.tagged('java').length === 3,
      10_000,
      'multicast en el otro servidor',
    ).catch((err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify({ luis: rx.luis.got, bea: rx.bea.got, ana: rx.ana.got })}`,
      );
    });
    await sleep(500);
    for (const [i, s] of sends.slice(0, 3).entries())
      for (const mate of [rx.luis, rx.bea]) {
        const got = mate.tagged(s.tag);
        expect(got.map((d) => d.text)).toEqual([`${s.tag} 0`, `${s.tag} 1`, `${s.tag} 2`]);
        for (const d of got) {
          expect(d.from).toBe(c.ana.addr);
          expect(d.fromPort).toBe(40000 + i);
          expect(d.port).toBe(s.dport);
        }
      }
    expect(rx.luis.tagged('mdns')).toEqual([]);
    expect(rx.bea.tagged('mdns')).toEqual([]);
    // In no room: nothing. The sender: nothing back through its tunnel (its own host loops its
    // limited broadcasts back to its sockets, as on any LAN; that never crosses the tunnel).
    expect(rx.otro.got).toEqual([]);
    expect(fromOthers('ana', rx.ana)).toEqual([]);
    expect(tunnelRx('ana')).toBe(anaRx);
    // A mate's game answers by unicast straight to the sender's address and port.
    const answer = new Receiver(c.ana.host.ns, [40000]);
    receivers.push(answer);
    await answer.ready;
    await sendUdp(c.luis.host.ns, {
      bind: c.luis.addr,
      sport: 27015,
      dest: c.ana.addr,
      dport: 40000,
      count: 1,
      perSecond: 10,
      tag: 'reply',
    });
    await eventually(async () => answer.tagged('reply').length === 1, 10_000, 'respuesta unicast');
    for (const r of [...Object.values(rx), answer]) r.stop();
  });

  it('a flood of 1,000 datagrams/s reaches a mate at no more than the limit; the metric counts it', async () => {
    // A fresh sender address is not needed: the limit is per sender, and the sender's bucket refills
    // at the rate (the previous test used 9 datagrams of it well over 2 seconds ago).
    await sleep(2500);
    const rx = await listenAll([27016]);
    const flood = await sendTogether([
      {
        ns: c.ana.host.ns,
        bind: c.ana.addr,
        sport: 40010,
        dest: '255.255.255.255',
        dport: 27016,
        count: 3000,
        perSecond: 1000,
        tag: 'flood',
      },
    ]);
    await flood.done;
    // At least the burst reaches each mate (waited for, not slept: a starved tunnel delivers late).
    await eventually(
      () => [rx.luis, rx.bea].every((r) => r.tagged('flood').length > RELAY_DEFAULTS.burst / 2),
      20_000,
      'la ráfaga de la inundación en cada compañero',
    );
    // Whatever arrived was relayed between the go and now: the time the sender's limit had to refill.
    const got = { luis: rx.luis.tagged('flood').length, bea: rx.bea.tagged('flood').length };
    const span = (Date.now() - flood.started) / 1000;
    const limit = RELAY_DEFAULTS.burst + RELAY_DEFAULTS.rate_per_second * span;
    expect(got.luis, JSON.stringify({ got, span, limit })).toBeLessThanOrEqual(limit);
    expect(got.bea, JSON.stringify({ got, span, limit })).toBeLessThanOrEqual(limit);
    expect(rx.otro.got).toEqual([]);
    // The server's metric: relayed what passed, dropped the flood's excess (the agent reports every
    // second). Not all 3,000 need reach the relay: on a loaded machine the sender's wireguard-go and
    // the tun queues shed some before the server's ingress, and those are not the relay's to count
    // (a clean CI run saw fewer than 3,000 - 120 dropped). Without the limit nothing is dropped, so
    // more than half the flood dropped still fails a relay that does not count, or does not limit.
    await eventually(
      async () => {
        const r = await serverRelay(srv[0]!.id);
        return r.active === true && r.dropped >= 3000 / 2 && r.relayed >= got.luis;
      },
      15_000,
      'contadores del relé',
    );
    expect((await serverRelay(srv[1]!.id)).active).toBe(true);
    for (const r of Object.values(rx)) r.stop();
  });

  it('switched off for the server, then for the whole site: nothing is relayed', async () => {
    const off = await api('PATCH', `/api/admin/servers/${srv[0]!.id}`, admin, { allow_discovery: false });
    expect(off.statusCode, off.body).toBe(200);
    expect(off.json().allow_discovery).toBe(false);
    await eventually(async () => (await serverRelay(srv[0]!.id)).active === false, 20_000, 'relé apagado');
    const rx = await listenAll([27017]);
    await sendUdp(c.ana.host.ns, {
      bind: c.ana.addr,
      sport: 40020,
      dest: '255.255.255.255',
      dport: 27017,
      count: 3,
      perSecond: 10,
      tag: 'off',
    });
    // The room itself still works: unicast between mates goes through.
    expect(await lab.reaches(c.ana.host.ns, c.luis.addr)).toBe(true);
    await sleep(1000);
    expect(rx.luis.got).toEqual([]);
    expect(rx.bea.got).toEqual([]);
    expect(rx.otro.got).toEqual([]);

    expect(
      (await api('PATCH', `/api/admin/servers/${srv[0]!.id}`, admin, { allow_discovery: true })).statusCode,
    ).toBe(200);
    await eventually(async () => (await serverRelay(srv[0]!.id)).active === true, 20_000, 'relé encendido');
    const site = await api('PATCH', '/api/admin/settings', admin, { allow_discovery: false });
    expect(site.statusCode, site.body).toBe(200);
    expect(site.json().allow_discovery).toBe(false);
    await eventually(
      async () =>
        (await serverRelay(srv[0]!.id)).active === false && (await serverRelay(srv[1]!.id)).active === false,
      20_000,
      'relé apagado en todo el sitio',
    );
    await sendUdp(c.ana.host.ns, {
      bind: c.ana.addr,
      sport: 40021,
      dest: '224.0.2.60',
      dport: 27017,
      count: 3,
      perSecond: 10,
      tag: 'off',
    });
    await sendUdp(c.luis.host.ns, {
      bind: c.luis.addr,
      sport: 40022,
      dest: '255.255.255.255',
      dport: 27017,
      count: 3,
      perSecond: 10,
      tag: 'off',
    });
    await sleep(1000);
    expect({
      ana: fromOthers('ana', rx.ana),
      bea: fromOthers('bea', rx.bea),
      luis: fromOthers('luis', rx.luis),
      otro: fromOthers('otro', rx.otro),
    }).toEqual({ ana: [], bea: [], luis: [], otro: [] });
    for (const r of Object.values(rx)) r.stop();
    await api('PATCH', '/api/admin/settings', admin, { allow_discovery: true });
  });
});
