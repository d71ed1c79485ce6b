/**
 * Issue 19: what the concurrent-use detector adds to the agent's stats pass at N peers, on the
 * benchmark's real wireguard-go interface, as ratios to the same pass without it in the same run.
 *
 * Two reconcilers read the same interface, one with the detector (as the agent runs) and one
 * without; their passes alternate so both see the same device and machine. Between rounds a UAPI
 * `set` moves the endpoints of some peers between two addresses (none, 1 % and 10 % of the peers:
 * the detector only ever sees peers whose endpoint changed). Per pass: CPU time of this process
 * (process.cpuUsage: parsing the answer, the diff against the last pass, the detector and its
 * `take`), and bytes allocated (heap growth plus what each GC during the pass freed, from
 * v8.GCProfiler). Retained: the detector's entries (heap after a GC, minus after clearing them),
 * against the whole heap.
 */
import { GCProfiler, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ServerSnapshot } from '@vpn/contracts/agent';
import { ConcurrentUseDetector } from '../src/concurrent.ts';
import { createLogger } from '../src/log.ts';
import { Reconciler, type ReconcilerBackend } from '../src/reconcile.ts';
import { UapiClient, type UapiPeerOp } from '../src/uapi.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const ROUNDS = Number(process.env.BENCH_CONCURRENT_ROUNDS ?? 6);

interface PassCost {
  cpuMs: number;
  allocBytes: number;
}

async function measure(pass: () => Promise<unknown>): Promise<PassCost> {
  const profiler = new GCProfiler();
  profiler.start();
  const heap0 = process.memoryUsage().heapUsed;
  const cpu0 = process.cpuUsage();
  await pass();
  const cpu = process.cpuUsage(cpu0);
  const heap1 = process.memoryUsage().heapUsed;
  const gcs = profiler.stop()?.statistics ?? [];
  const freed = gcs.reduce(
    (sum, g) =>
      sum + Math.max(0, g.beforeGC.heapStatistics.usedHeapSize - g.afterGC.heapStatistics.usedHeapSize),
    0,
  );
  return { cpuMs: (cpu.user + cpu.system) / 1000, allocBytes: heap1 - heap0 + freed };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const mb = (b: number) => `${(b / 1e6).toFixed(2)} MB`;

/** Endpoint of peer `i` on side A or B of its alternation (documentation and test networks). */
const endpointOf = (i: number, side: 0 | 1) =>
  side === 0
    ? `192.0.2.${(i % 250) + 1}:${20000 + (i % 20000)}`
    : `198.51.100.${(i % 250) + 1}:${40000 + (i % 20000)}`;

/** Runs the comparison; returns the summary line. */
export async function benchConcurrentUse(
  backend: ReconcilerBackend,
  snapshot: ServerSnapshot,
  socketPath: string,
): Promise<string> {
  const n = snapshot.peers.length;
  const log = createLogger('error');
  const detector = new ConcurrentUseDetector();
  const without = new Reconciler({ backend, log, firewall: false, repairIntervalMs: 0, healthIntervalMs: 0 });
  const withDetector = new Reconciler({
    backend,
    log,
    firewall: false,
    repairIntervalMs: 0,
    healthIntervalMs: 0,
    concurrent: detector,
  });
  await without.applySnapshot(snapshot);
  await withDetector.applySnapshot(snapshot);
  // First passes list every peer (a full report): not what the agent does most of its life.
  await without.collectStats(false);
  await withDetector.collectStats(false);
  const uapi = new UapiClient(socketPath, { keepAlive: true });
  console.log(`\n== concurrent-use detector, ${n.toLocaleString('en')} peers, stats pass (issue 19) ==`);
  const lines: string[] = [];
  let reported = 0;
  for (const share of [0, 0.01, 0.1]) {
    const moving = Math.round(n * share);
    const costs = { without: [] as PassCost[], with: [] as PassCost[] };
    for (let round = 0; round < ROUNDS; round++) {
      if (moving > 0) {
        const ops: UapiPeerOp[] = [];
        for (let i = 0; i < moving; i++)
          ops.push({
            publicKey: snapshot.peers[i]!.public_key,
            endpoint: endpointOf(i, (round % 2) as 0 | 1),
          });
        await uapi.set({ peers: ops });
      }
      const runs = [
        ['without', () => without.collectStats(true)],
        [
          'with',
          async () => {
            await withDetector.collectStats(true);
            reported += detector.take(Date.now()).length;
          },
        ],
      ] as const;
      // Alternating order: neither variant always runs first after the set.
      for (const [name, pass] of round % 2 === 0 ? runs : [...runs].reverse())
        costs[name].push(await measure(pass));
    }
    // The first round after a scenario change settles the previous one's endpoints: not counted.
    const cpu0 = mean(costs.without.slice(1).map((c) => c.cpuMs));
    const cpu1 = mean(costs.with.slice(1).map((c) => c.cpuMs));
    const alloc0 = mean(costs.without.slice(1).map((c) => c.allocBytes));
    const alloc1 = mean(costs.with.slice(1).map((c) => c.allocBytes));
    gc();
    const heapWith = process.memoryUsage().heapUsed;
    const followed = detector.size;
    detector.clear();
    gc();
    const heapWithout = process.memoryUsage().heapUsed;
    const retained = Math.max(0, heapWith - heapWithout);
    const label = `${(share * 100).toFixed(0)} % moving (${moving.toLocaleString('en')})`;
    console.log(
      `  ${label.padEnd(24)} CPU/pass ${cpu0.toFixed(1)} → ${cpu1.toFixed(1)} ms (${(cpu1 / cpu0).toFixed(3)}×) · allocated/pass ${mb(alloc0)} → ${mb(alloc1)} (${(alloc1 / alloc0).toFixed(3)}×) · detector follows ${followed.toLocaleString('en')} peers, retains ${mb(retained)} of a ${mb(heapWith)} heap (${(heapWith / heapWithout).toFixed(3)}×)`,
    );
    lines.push(
      `${(share * 100).toFixed(0)} %: CPU ${(cpu1 / cpu0).toFixed(2)}×, alloc ${(alloc1 / alloc0).toFixed(2)}×, heap ${(heapWith / heapWithout).toFixed(3)}×`,
    );
  }
  console.log(`  peers reported during the run: ${reported.toLocaleString('en')}`);
  uapi.close();
  await without.close();
  await withDetector.close();
  return `${n.toLocaleString('en')} peers, concurrent-use detector per stats pass: ${lines.join(' · ')}`;
}
