#!/usr/bin/env node
/**
 * Start time and memory of the control plane: compiled (`node dist/main.js`, what `npm start` runs)
 * against the TypeScript loader it replaced (`tsx src/main.ts`), on the same embedded database.
 * `node scripts/measure-start.mjs [runs=5]` (builds server/dist first). Each run copies a database
 * made once beforehand (migrated, seeded), starts the server, and records:
 * - ready: wall time from spawn to the first 200 from /healthz;
 * - cpu: user+system CPU seconds of the whole process tree at that moment (less sensitive than wall
 *   time to other load on the machine);
 * - rss: resident memory of the whole process tree (tsx runs a second node process) after 20
 *   requests to /api/client/plans.
 * Runs alternate between the two so both see the same load; the medians are printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = join(ROOT, 'server');
const runs = Number(process.argv[2] ?? 5);
const TICK = 100; // clock ticks per second on Linux

spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'server'], { stdio: 'inherit' });

const variants = {
  compiled: [process.execPath, ['dist/main.js']],
  tsx: [join(ROOT, 'node_modules/.bin/tsx'), ['src/main.ts']],
};

function tree(pid) {
  const children = new Map();
  for (const p of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const ppid = Number(readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(p)]);
    } catch {
      // Gone meanwhile.
    }
  }
  const out = [];
  const walk = (p) => (out.push(p), (children.get(p) ?? []).forEach(walk));
  walk(pid);
  return out;
}
function usage(pid) {
  let rss = 0;
  let cpu = 0;
  for (const p of tree(pid)) {
    try {
      rss += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0) * 1024;
      const f = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      cpu += (Number(f[11]) + Number(f[12])) / TICK;
    } catch {
      // Gone meanwhile.
    }
  }
  return { rss, cpu };
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let port = 18200;

async function once(name, dataDir) {
  const [cmd, args] = variants[name];
  const p = port++;
  const started = performance.now();
  const child = spawn(cmd, args, {
    cwd: SERVER,
    env: { ...process.env, DATA_DIR: dataDir, PORT: String(p), LOG_LEVEL: 'warn', SEED_DEMO: 'true' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  let ready;
  for (;;) {
    const ok = await fetch(`http://127.0.0.1:${p}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (child.exitCode !== null) throw new Error(`${name} exited`);
    await sleep(25);
  }
  ready = (performance.now() - started) / 1000;
  const { cpu } = usage(child.pid);
  for (let i = 0; i < 20; i++)
    await fetch(`http://127.0.0.1:${p}/api/client/plans`).then((r) => r.arrayBuffer());
  const { rss } = usage(child.pid);
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  return { ready, cpu, rss };
}

const base = mkdtempSync(join(tmpdir(), 'vpn-measure-'));
await once('compiled', join(base, 'template')); // migrates and seeds once
const results = { compiled: [], tsx: [] };
for (let i = 0; i < runs; i++) {
  for (const name of i % 2 ? ['tsx', 'compiled'] : ['compiled', 'tsx']) {
    const dir = join(base, `${name}-${i}`);
    cpSync(join(base, 'template'), dir, { recursive: true });
    rmSync(join(dir, 'server.json'), { force: true });
    results[name].push(await once(name, dir));
  }
}
rmSync(base, { recursive: true, force: true });

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const row = (name) => {
  const r = results[name];
  return {
    variant: name,
    'ready (s)': median(r.map((x) => x.ready)).toFixed(2),
    'cpu to ready (s)': median(r.map((x) => x.cpu)).toFixed(2),
    'rss (MiB)': (median(r.map((x) => x.rss)) / 1048576).toFixed(0),
  };
};
console.log(
  `medians of ${runs} runs each (load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}):`,
);
console.table([row('compiled'), row('tsx')]);
