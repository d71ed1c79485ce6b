/**
 * bench:agent's per-peer speed figures (issue 35), with the agent's own Shaper in namespaces made
 * here (names with "spd"): a router namespace forwards between a sender and a sink over veth pairs,
 * its sink-side device shaped like a WireGuard interface (egress by destination, ingress through
 * the ifb device by source).
 *
 *  - cold apply of 10,000 shaped peers (both directions: ~60,000 tc lines in one batch);
 *  - one peer's speed change at 10,000 shaped peers (the delta path: one short `tc -batch`) against
 *    one raw `tc class change` command; target ≤ 3×;
 *  - CPU per forwarded packet of an unlimited flow, both ways (iperf3 UDP --bidir, CPU of both
 *    iperf3 processes, which carry the softirq work of forwarding, shaping included), with 10,000
 *    shaped peers vs none (no tc at all); target ≤ 1.2×. Needs iperf3, else omitted.
 */
import { spawnSync } from 'node:child_process';
import { createRunner } from '../src/exec.ts';
import { createLogger } from '../src/log.ts';
import type { TestNet } from '../src/testing/netns.ts';
import { Shaper } from '../src/shaping/shaper.ts';
import type { DesiredShaping } from '../src/shaping/model.ts';

const PEERS = 10_000;
const CHANGE_ROUNDS = 40;
const CPU_RUNS = 3;
const CPU_SECONDS = 4;

const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)] ?? NaN;
const load = () =>
  spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');

function ns(name: string, file: string, args: string[]): string {
  const r = spawnSync('ip', ['netns', 'exec', name, file, ...args], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** `10.64.0.2`…: the shaped peers' addresses (the sender is 10.64.0.1, never shaped). */
const address = (i: number) => `10.64.${(i + 2) >> 8}.${(i + 2) & 255}`;

function desired(rate: number): DesiredShaping {
  const d: DesiredShaping = new Map();
  for (let i = 0; i < PEERS; i++) d.set(address(i), { down: rate, up: rate });
  return d;
}

/** One iperf3 UDP --bidir run; CPU seconds of both ends per packet forwarded (µs). */
function cpuPerPacket(sender: string, sink: string): number {
  const server = spawnSync('ip', ['netns', 'exec', sink, 'iperf3', '-s', '-1', '-D', '-p', '5399'], {
    encoding: 'utf8',
  });
  if (server.status !== 0) throw new Error(`iperf3 -s: ${server.stderr}`);
  const args = ['netns', 'exec', sender, 'iperf3', '-c', '192.0.2.2', '-p', '5399', '-u', '--bidir'];
  args.push('-b', '40M', '-l', '1200', '-t', String(CPU_SECONDS), '-J');
  // The daemon listens a moment after it detaches: a refused connection is tried again.
  let r = spawnSync('ip', args, { encoding: 'utf8' });
  for (let attempt = 0; attempt < 50 && !r.stdout.includes('cpu_utilization_percent'); attempt++) {
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    r = spawnSync('ip', args, { encoding: 'utf8' });
  }
  const j = JSON.parse(r.stdout) as {
    end: {
      sum_sent: { packets: number };
      sum_sent_bidir_reverse?: { packets: number };
      cpu_utilization_percent: { host_total: number; remote_total: number };
    };
  };
  const packets = j.end.sum_sent.packets + (j.end.sum_sent_bidir_reverse?.packets ?? 0);
  const cpu =
    ((j.end.cpu_utilization_percent.host_total + j.end.cpu_utilization_percent.remote_total) / 100) *
    CPU_SECONDS;
  return (cpu / packets) * 1e6;
}

export async function benchShaping(
  net: TestNet,
  results: string[],
  verdict: (ok: boolean) => string,
): Promise<void> {
  console.log(`\nper-peer speed (issue 35) · ${PEERS} shaped peers · load ${load()}`);
  const router = net.addNamespace('spdbr');
  const sender = net.addNamespace('spdbs');
  const sink = net.addNamespace('spdbk');
  const link = (a: string, aIf: string, aAddr: string, b: string, bIf: string, bAddr: string) => {
    spawnSync('ip', ['link', 'add', aIf, 'netns', a, 'type', 'veth', 'peer', 'name', bIf, 'netns', b]);
    ns(a, 'ip', ['addr', 'add', aAddr, 'dev', aIf]);
    ns(b, 'ip', ['addr', 'add', bAddr, 'dev', bIf]);
    ns(a, 'ip', ['link', 'set', aIf, 'up']);
    ns(b, 'ip', ['link', 'set', bIf, 'up']);
  };
  link(sender, 'spds0', '10.64.0.1/16', router, 'spdr0', '10.64.255.254/16');
  link(router, 'spdr1', '192.0.2.1/24', sink, 'spdk0', '192.0.2.2/24');
  ns(sender, 'ip', ['route', 'add', 'default', 'via', '10.64.255.254']);
  ns(sink, 'ip', ['route', 'add', '10.64.0.0/10', 'via', '192.0.2.1']);
  ns(router, 'sysctl', ['-qw', 'net.ipv4.ip_forward=1']);
  const iface = 'spdr1';
  const runner = createRunner(router);
  const shaper = new Shaper(runner, createLogger('warn'));

  const iperf = spawnSync('sh', ['-c', 'command -v iperf3'], { stdio: 'ignore' }).status === 0;
  const none: number[] = [];
  if (iperf) for (let i = 0; i < CPU_RUNS; i++) none.push(cpuPerPacket(sender, sink));

  const t0 = performance.now();
  const cold = await shaper.converge(iface, desired(2000));
  const coldMs = performance.now() - t0;
  console.log(
    `  cold apply: ${cold.shaped} shaped directions, ${cold.lines} tc lines, ${(coldMs / 1000).toFixed(2)} s`,
  );
  results.push(
    `shaping cold apply of ${PEERS} peers (both ways, ${cold.lines} tc lines): ${(coldMs / 1000).toFixed(2)} s (load ${load()})`,
  );

  const change: number[] = [];
  const raw: number[] = [];
  for (let i = 0; i < CHANGE_ROUNDS; i++) {
    const rate = i % 2 === 0 ? 256 : 2000;
    let t = performance.now();
    const r = await shaper.update(iface, new Map([[address(i * 97), { down: rate, up: rate }]]));
    change.push(performance.now() - t);
    if (r === 'converge') throw new Error('el shaper perdió su estado');
    t = performance.now();
    await runner.run('tc', [
      'class',
      'change',
      'dev',
      iface,
      'parent',
      '1:',
      'classid',
      '1:2',
      'htb',
      'rate',
      `${rate}kbit`,
    ]);
    raw.push(performance.now() - t);
  }
  const ratio = median(change) / median(raw);
  console.log(
    `  one peer's speed change: p50 ${median(change).toFixed(2)} ms vs one raw tc command ${median(raw).toFixed(2)} ms (${ratio.toFixed(2)}×)`,
  );
  results.push(
    `shaping: one peer's speed change at ${PEERS} shaped peers ${median(change).toFixed(2)} ms vs one raw tc ${median(raw).toFixed(2)} ms = ${ratio.toFixed(2)}× (target ≤ 3×) ${verdict(ratio <= 3)}`,
  );

  if (iperf) {
    const shaped: number[] = [];
    for (let i = 0; i < CPU_RUNS; i++) shaped.push(cpuPerPacket(sender, sink));
    const cpuRatio = median(shaped) / median(none);
    console.log(
      `  CPU per forwarded packet: ${median(none).toFixed(2)} µs without shaping, ${median(shaped).toFixed(2)} µs with ${PEERS} shaped peers (${cpuRatio.toFixed(2)}×)`,
    );
    results.push(
      `shaping: CPU per forwarded packet with ${PEERS} shaped peers ${median(shaped).toFixed(2)} µs vs none ${median(none).toFixed(2)} µs = ${cpuRatio.toFixed(2)}× (target ≤ 1.2×; load ${load()}) ${verdict(cpuRatio <= 1.2)}`,
    );
  } else results.push('shaping: CPU per forwarded packet omitted (falta iperf3)');
  await shaper.remove(iface);
}
