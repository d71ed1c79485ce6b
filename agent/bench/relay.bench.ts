/**
 * `npm run bench:relay -w agent` (also run by the root `npm run bench`): what the game-discovery
 * relay (issue 25, src/relay/relay.ts) costs.
 *
 *  1. Cold start: 10,000 rooms of 4 members on one node, the whole table written by the agent's
 *     RelayTable (one `nft -f -` transaction), median of 3.
 *  2. One membership change (a fifth member joins one room) as a ratio to that full apply, and how
 *     much of the table the change's script names (rooms, lines).
 *  3. Relay cost per datagram at 1,000 datagrams/s through real wireguard-go: a member broadcasts to
 *     its room of two (one copy); the baseline, in the same run, is the same rate of unicast
 *     datagrams between the two members forwarded by the server (one datagram in, one out, like
 *     the relay). Cost = CPU time (user + system) of the server's wireguard-go process, where the
 *     TUN write runs the netdev ingress hook, per datagram.
 *
 * Needs root, nft and wireguard-go; everything lives in namespaces made here, removed at the end.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRunner } from '../src/exec.ts';
import {
  RelayTable,
  normalizeRelayRooms,
  renderRelayChange,
  type RelayRoom,
  type RelaySpec,
} from '../src/relay/relay.ts';
import { genKeyPair } from '../src/testing/keys.ts';
import { TestNet, nsExec, wireguardSkipReason } from '../src/testing/netns.ts';

const ROOMS = 10_000;
const RATE = 1_000;
const SECONDS = Number(process.env.BENCH_RELAY_SECONDS ?? 5);
const limits = {
  rate: 20,
  burst: 40,
  roomRate: 40,
  roomBurst: 80,
  maxBytes: 1400,
  denyPorts: [137, 138, 1900, 5353, 5355],
};

const ip = (n: number) => `10.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`;
function rooms(count: number): RelayRoom[] {
  return Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    local: [0, 1, 2, 3].map((k) => ip(4 * i + 2 + k)),
    remote: [],
  }));
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (n: number) => `${n.toFixed(1)} ms`;

async function applyCost(net: TestNet): Promise<void> {
  const ns = net.addNamespace('brl');
  const other = net.addNamespace('brlo');
  const { ifA } = net.link(ns, '192.0.2.2/24', other, '192.0.2.1/24');
  const spec = (list: RelayRoom[]): RelaySpec => ({
    iface: ifA,
    broadcasts: ['10.127.255.255'],
    limits,
    rooms: normalizeRelayRooms(list).rooms,
  });
  const full = spec(rooms(ROOMS));
  const colds: number[] = [];
  for (let round = 0; round < 3; round++) {
    nsExec(ns, 'nft', ['flush', 'ruleset']);
    const table = new RelayTable(createRunner(ns));
    const t0 = performance.now();
    await table.apply(full, { verify: true });
    colds.push(performance.now() - t0);
  }
  const table = new RelayTable(createRunner(ns), true);
  await table.apply(full, { verify: true });
  const changes: number[] = [];
  let script = '';
  for (let round = 0; round < 20; round++) {
    const list = rooms(ROOMS);
    const r = list[4999]!;
    // Round by round a fifth member joins room 5000, then leaves it again.
    const next = round % 2 === 0 ? [{ ...r, local: [...r.local, ip(4 * ROOMS + 10)] }] : [r];
    list[4999] = next[0]!;
    const desired = spec(list);
    const t0 = performance.now();
    await table.apply(desired, { verify: true });
    changes.push(performance.now() - t0);
    if (round === 0) script = renderRelayChange(full, spec(list));
  }
  const cold = median(colds);
  const change = median(changes);
  const fullLines = table.writes[0]![1].split('\n').length;
  const named = new Set(script.match(/room_\d+/g)).size;
  console.log(
    `\n1. cold start, ${ROOMS.toLocaleString('en')} rooms of 4: ${ms(cold)} (median of 3: ${colds.map(ms).join(', ')})`,
  );
  console.log(
    `   script: ${fullLines.toLocaleString('en')} lines, ${(table.writes[0]![1].length / 1e6).toFixed(1)} MB, one nft transaction`,
  );
  console.log(
    `2. one membership change: ${ms(change)} (median of 20) = ${(change / cold).toFixed(4)} of the cold apply`,
  );
  console.log(
    `   its script: ${script.trim().split('\n').length} lines naming ${named} room(s) of ${ROOMS.toLocaleString('en')}`,
  );
  nsExec(ns, 'nft', ['flush', 'ruleset']);
}

/** utime + stime of a process, in ms (clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

const SENDER = `
const dgram = require('node:dgram');
const [bind, dest, count, rate] = process.argv.slice(1);
const s = dgram.createSocket({ type: 'udp4', reuseAddr: true });
s.bind(40000, bind, () => {
  s.setBroadcast(true);
  const payload = Buffer.alloc(100, 97);
  const t0 = Date.now();
  let i = 0;
  const next = () => {
    while (i < Number(count) && Date.now() - t0 >= (i * 1000) / Number(rate)) { s.send(payload, 27015, dest); i++; }
    if (i < Number(count)) setTimeout(next, 1); else setTimeout(() => s.close(), 300);
  };
  next();
});`;

function send(ns: string, bind: string, dest: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      'ip',
      ['netns', 'exec', ns, process.execPath, '-e', SENDER, bind, dest, String(RATE * SECONDS), String(RATE)],
      {
        stdio: 'inherit',
      },
    );
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`sender exited ${code}`))));
  });
}

async function datagramCost(net: TestNet): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'relay-bench-'));
  try {
    const srv = net.addNamespace('brs');
    const a = net.addNamespace('bra');
    const b = net.addNamespace('brb');
    net.link(srv, '192.0.2.1/30', a, '192.0.2.2/30');
    net.link(srv, '192.0.2.5/30', b, '192.0.2.6/30');
    const keys = { s: genKeyPair(), a: genKeyPair(), b: genKeyPair() };
    for (const [k, v] of Object.entries(keys)) writeFileSync(join(dir, k), v.privateKey);
    const ws = await net.startWireguardGo(srv);
    const wa = await net.startWireguardGo(a);
    const wb = await net.startWireguardGo(b);
    const A = '10.64.0.2';
    const B = '10.64.0.3';
    nsExec(srv, 'wg', [
      'set',
      ws.iface,
      'private-key',
      join(dir, 's'),
      'listen-port',
      '51820',
      'peer',
      keys.a.publicKey,
      'allowed-ips',
      `${A}/32`,
      'peer',
      keys.b.publicKey,
      'allowed-ips',
      `${B}/32`,
    ]);
    for (const [ns, w, k, addr, ep] of [
      [a, wa, 'a', A, '192.0.2.1'],
      [b, wb, 'b', B, '192.0.2.5'],
    ] as const) {
      nsExec(ns, 'wg', [
        'set',
        w.iface,
        'private-key',
        join(dir, k),
        'peer',
        keys.s.publicKey,
        'allowed-ips',
        '0.0.0.0/0',
        'endpoint',
        `${ep}:51820`,
      ]);
      nsExec(ns, 'ip', ['address', 'add', `${addr}/32`, 'dev', w.iface]);
      nsExec(ns, 'ip', ['link', 'set', w.iface, 'up']);
      nsExec(ns, 'ip', ['route', 'add', 'default', 'dev', w.iface]);
    }
    nsExec(srv, 'ip', ['address', 'add', '10.64.0.1/10', 'dev', ws.iface]);
    nsExec(srv, 'ip', ['link', 'set', ws.iface, 'up']);
    nsExec(srv, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
    for (const ns of [a, b]) nsExec(ns, 'ping', ['-c', '1', '-W', '2', '10.64.0.1']);
    // Limits out of the way: the cost of relaying every datagram, not of dropping most of them.
    const table = new RelayTable(createRunner(srv));
    await table.apply(
      {
        iface: ws.iface,
        broadcasts: [],
        limits: { ...limits, rate: 100_000, burst: 100_000, roomRate: 100_000, roomBurst: 100_000 },
        rooms: [{ id: 1, local: [A, B], remote: [] }],
      },
      { verify: true },
    );
    const rxB = () =>
      (
        JSON.parse(nsExec(b, 'ip', ['-j', '-s', 'link', 'show', 'dev', wb.iface])) as {
          stats64: { rx: { packets: number } };
        }[]
      )[0]!.stats64.rx.packets;
    const run = async (dest: string) => {
      const before = { cpu: cpuMs(ws.pid), rx: rxB() };
      await send(a, A, dest);
      await new Promise((r) => setTimeout(r, 300));
      return { cpu: cpuMs(ws.pid) - before.cpu, got: rxB() - before.rx };
    };
    const forward: { cpu: number; got: number }[] = [];
    const relay: { cpu: number; got: number }[] = [];
    for (let round = 0; round < 3; round++) {
      forward.push(await run(B));
      relay.push(await run('255.255.255.255'));
    }
    const per = (xs: { cpu: number; got: number }[]) =>
      median(xs.map((x) => (x.cpu * 1000) / Math.max(1, x.got)));
    const f = per(forward);
    const r = per(relay);
    const sent = RATE * SECONDS;
    console.log(
      `3. ${RATE.toLocaleString('en')} datagrams/s for ${SECONDS} s (${sent.toLocaleString('en')} each run, 3 runs each, alternated):`,
    );
    console.log(
      `   unicast forwarded A→B (baseline): ${f.toFixed(1)} µs of the server's wireguard-go CPU per datagram; B got ${forward.map((x) => x.got).join(', ')}`,
    );
    console.log(
      `   broadcast relayed to B:           ${r.toFixed(1)} µs per datagram; B got ${relay.map((x) => x.got).join(', ')}`,
    );
    console.log(`   relay / forwarding: ${(r / f).toFixed(2)}`);
    await table.apply(null);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const skip = wireguardSkipReason();
  if (skip) {
    console.log(`bench:relay omitido: ${skip}`);
    return;
  }
  const net = new TestNet();
  try {
    console.log('Game-discovery relay (issue 25)');
    await applyCost(net);
    await datagramCost(net);
  } finally {
    await net.cleanup();
  }
}

await main();
