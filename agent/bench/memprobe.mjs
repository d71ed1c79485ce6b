/**
 * Loaded into the agent process by bench/apply.bench.ts (`node --import`): every
 * BENCH_AGENT_MEMPROBE_MS (1,000) it appends one JSON line of the process's memory to the file named
 * by BENCH_AGENT_MEMPROBE — process.memoryUsage() and V8's heap spaces, in bytes — so the bench can
 * say what the RSS is made of, over time, not just how large it is. Nothing else in the agent sees it.
 */
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics } from 'node:v8';

const file = process.env.BENCH_AGENT_MEMPROBE;
if (file) {
  const every = Number(process.env.BENCH_AGENT_MEMPROBE_MS ?? 1000);
  const t0 = Date.now();
  const sample = () => {
    const m = process.memoryUsage();
    const spaces = {};
    for (const s of getHeapSpaceStatistics())
      spaces[s.space_name.replace(/_space$/, '')] = [s.space_used_size, s.space_size];
    appendFileSync(
      file,
      JSON.stringify({
        t: Date.now() - t0,
        rss: m.rss,
        heapTotal: m.heapTotal,
        heapUsed: m.heapUsed,
        external: m.external,
        arrayBuffers: m.arrayBuffers,
        spaces,
      }) + '\n',
    );
  };
  setInterval(sample, every).unref();
}
