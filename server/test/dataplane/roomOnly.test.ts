/**
 * The room-only tunnel for real (issue 25, part 2): a client loads the `?scope=room` file the way
 * wg-quick does (one route per AllowedIPs entry, no DNS), with wireguard-go, the real agent and
 * nftables, in network namespaces, driven only through the public HTTP API. Room mates answer on
 * two servers, a mate who joins later answers without a new download, a non-mate does not, a game's
 * broadcast and multicast reach the mate through the agent's relay, and a ping to the internet host
 * leaves by the client's own uplink: an nftables counter in the client namespace, keyed by output
 * interface, says which way each packet went.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Fleet } from './fleet.ts';
import {
  INTERNET_HOST,
  dataplaneSkipReason,
  eventually,
  nsExec,
  sh,
  uniqueName,
  type Host,
  type Lab,
} from './network.ts';
import { Receiver } from './udp.ts';

const skip = dataplaneSkipReason();

describe.skipIf(skip !== null)(`room-only tunnel${skip ? ` (omitido: ${skip})` : ''}`, () => {
  const fleet = new Fleet({ prefix: 'dpq', settings: { allow_partys: true } });
  const { api, member, download, servers: srv } = fleet;
  let lab: Lab;
  let scratch: string;
  const receivers: Receiver[] = [];

  /**
   * Loads a `.conf` as wg-quick does for AllowedIPs without a `/0`: `Address` on the interface, one
   * `ip route add CIDR dev IFACE` per AllowedIPs entry (wg-quick's `add_route`), the rest to
   * `wg setconf`. The file must carry no DNS line (wg-quick would hand it to resolvconf).
   */
  async function loadLikeWgQuick(client: Host, conf: string): Promise<string> {
    expect(conf).not.toMatch(/^DNS\s*=/m);
    const { iface } = await lab.net.startWireguardGo(client.ns, uniqueName('dpro'));
    const field = (key: string) => new RegExp(`^${key} = (.+)$`, 'm').exec(conf)?.[1];
    const file = join(scratch, `${iface}.conf`);
    writeFileSync(
      file,
      conf
        .split('\n')
        .filter((l) => !/^(Address|MTU) = /.test(l))
        .join('\n'),
      { mode: 0o600 },
    );
    sh('wg', ['setconf', iface, file]);
    rmSync(file);
    sh('ip', ['-n', client.ns, 'address', 'add', field('Address')!, 'dev', iface]);
    sh('ip', ['-n', client.ns, 'link', 'set', iface, 'mtu', field('MTU') ?? '1420', 'up']);
    for (const cidr of field('AllowedIPs')!
      .split(',')
      .map((s) => s.trim())) {
      sh('ip', ['-n', client.ns, 'route', 'add', cidr, 'dev', iface]);
    }
    return iface;
  }

  /** Which interface the client's kernel picks for a destination (`ip route get`). */
  const routeDev = (ns: string, target: string) =>
    /\bdev (\S+)/.exec(sh('ip', ['-n', ns, 'route', 'get', target]))?.[1];

  /**
   * nftables counters in the client namespace, after routing (postrouting): for each destination
   * of interest, how many packets left through the tunnel and how many through the uplink.
   */
  function countByInterface(client: Host, tunnel: string) {
    const table = 'roomonly_probe';
    const targets = { internet: INTERNET_HOST, broadcast: '255.255.255.255', multicast: '224.0.2.60' };
    const rules = Object.entries(targets).flatMap(([name, address]) => [
      `add rule inet ${table} out oifname "${tunnel}" ip daddr ${address} counter comment "${name}-tunnel"`,
      `add rule inet ${table} out oifname "${client.iface}" ip daddr ${address} counter comment "${name}-uplink"`,
    ]);
    // `nft -f -` reads the rules from stdin.
    nsExec(
      client.ns,
      'nft',
      ['-f', '-'],
      [
        `add table inet ${table}`,
        `add chain inet ${table} out { type filter hook postrouting priority 0; policy accept; }`,
        ...rules,
      ].join('\n'),
    );
    return () => {
      const out = nsExec(client.ns, 'nft', ['list', 'table', 'inet', table]);
      const read = (comment: string) =>
        Number(new RegExp(`packets (\\d+) bytes \\d+ comment "${comment}"`).exec(out)?.[1] ?? NaN);
      return Object.fromEntries(
        Object.keys(targets).flatMap((name) => [
          [`${name}-tunnel`, read(`${name}-tunnel`)],
          [`${name}-uplink`, read(`${name}-uplink`)],
        ]),
      ) as Record<string, number>;
    };
  }

  /** One UDP datagram from the client namespace (a game's discovery announcement). */
  function sendUdp(ns: string, address: string, port: number): Promise<void> {
    const script = `const s=require('dgram').createSocket('udp4');s.bind(()=>{s.setBroadcast(true);s.send('descubrimiento',${port},'${address}',(e)=>{s.close();process.exit(e?1:0)})})`;
    return new Promise((resolve, reject) => {
      const child = spawn('ip', ['netns', 'exec', ns, process.execPath, '-e', script], { stdio: 'inherit' });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`udp send: ${code}`))));
    });
  }

  beforeAll(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'vpn-roomonly-'));
    ({ lab } = await fleet.start());
  });

  afterAll(async () => {
    for (const r of receivers) r.stop();
    await fleet.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('reaches the room mates on two servers, also one who joins later, and nothing else goes through the tunnel', async () => {
    const ana = await member('Ana Sala', srv[0]!.id);
    const luis = await member('Luis Sala', srv[1]!.id);
    const otro = await member('Otro Sala', srv[0]!.id);

    const created = await api('POST', '/api/client/network/partys', ana.access, {
      name: 'LAN solo sala',
      peer: ana.id,
    });
    expect(created.statusCode, created.body).toBe(201);
    const password = created.json<{ password: string }>().password;
    const join = (who: { access: string; id: number }) =>
      api('PATCH', '/api/client/network/partys', who.access, {
        operation: 'join',
        name: 'LAN solo sala',
        password,
        peer: who.id,
      });
    expect((await join(luis)).statusCode).toBe(200);

    // Ana uses the room-only file; Luis and the outsider the normal one.
    const ca = lab.host('dpqa', '198.51.100.81');
    const cb = lab.host('dpqb', '198.51.100.82');
    const co = lab.host('dpqo', '198.51.100.83');
    const roomConf = await download(ana.access, ana.id, '?scope=room');
    const tunnel = await loadLikeWgQuick(ca, roomConf);
    await lab.loadClientConf(cb, await download(luis.access, luis.id));
    await lab.loadClientConf(co, await download(otro.access, otro.id));

    // The client's kernel: the room and discovery into the tunnel, the internet host by the uplink.
    expect(routeDev(ca.ns, luis.address)).toBe(tunnel);
    expect(routeDev(ca.ns, '255.255.255.255')).toBe(tunnel);
    expect(routeDev(ca.ns, '224.0.2.60')).toBe(tunnel);
    expect(routeDev(ca.ns, INTERNET_HOST)).toBe(ca.iface);

    const counters = countByInterface(ca, tunnel);
    expect(await lab.reaches(ca.ns, luis.address, 30_000)).toBe(true);
    expect(await lab.reaches(cb.ns, ana.address)).toBe(true);
    // The pool route opens nothing: a fleet address outside the room stays unreachable.
    expect(await lab.ping(ca.ns, otro.address, 2)).toBe(false);

    // The internet host answers, and not one of those packets entered the tunnel.
    expect(await lab.ping(ca.ns, INTERNET_HOST, 3)).toBe(true);
    const afterPing = counters();
    expect(afterPing['internet-uplink']).toBeGreaterThanOrEqual(1);
    expect(afterPing['internet-tunnel']).toBe(0);

    // Discovery (Minecraft Bedrock's broadcast, Minecraft Java's multicast), sent as a game does
    // (no bound address), enters the tunnel and reaches the mate on the other server, from Ana.
    const luisGame = new Receiver(cb.ns, [19132, 4445]);
    receivers.push(luisGame);
    await luisGame.ready;
    await sendUdp(ca.ns, '255.255.255.255', 19132);
    await sendUdp(ca.ns, '224.0.2.60', 4445);
    await eventually(
      () => [19132, 4445].every((port) => luisGame.got.some((d) => d.port === port)),
      20_000,
      'descubrimiento recibido por el compañero',
    );
    expect(luisGame.got.map((d) => [d.port, d.from, d.text]).sort()).toEqual([
      [19132, ana.address, 'descubrimiento'],
      [4445, ana.address, 'descubrimiento'],
    ]);
    // (At least one: the kernel also loops a broadcast back to the host through postrouting.)
    const afterDiscovery = counters();
    expect(afterDiscovery['broadcast-tunnel']).toBeGreaterThanOrEqual(1);
    expect(afterDiscovery['broadcast-uplink']).toBe(0);
    expect(afterDiscovery['multicast-tunnel']).toBeGreaterThanOrEqual(1);
    expect(afterDiscovery['multicast-uplink']).toBe(0);

    // A mate who joins now is reached with the same file (no new download).
    const nora = await member('Nora Sala', srv[1]!.id);
    expect((await join(nora)).statusCode).toBe(200);
    const cn = lab.host('dpqn', '198.51.100.84');
    await lab.loadClientConf(cn, await download(nora.access, nora.id));
    expect(await download(ana.access, ana.id, '?scope=room')).toBe(roomConf);
    expect(await lab.reaches(ca.ns, nora.address, 30_000)).toBe(true);
  });
});
