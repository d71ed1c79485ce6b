/**
 * `npm run bench:agent-stats -w agent`: the agent's memory at 50,000 peers while it reports stats,
 * with every peer's counters changing between reports (the busiest a server gets) against none
 * changing (the same process, just before). The real wireguard-go cannot be driven to move 50,000
 * peers' counters here, so the parent serves a FakeDevice on a UAPI socket and bumps its counters;
 * the child is the compiled reconciler and connection (bench/stats-child.mjs) with the production
 * node flags, talking to a fake control plane that answers heartbeats like the hub. No root needed.
 *
 * Knobs: BENCH_STATS_PEERS (50,000), BENCH_STATS_MS (10,000, as in production), BENCH_STATS_PHASE_MS
 * (60,000 per phase), BENCH_AGENT_NODE_FLAGS and MALLOC_MMAP_THRESHOLD_ (as in
 * agent/deploy/vpn-agent.service).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { snapshotMessages, type AgentPeer, type ServerSnapshot } from '@vpn/contracts/agent';
import { startFakeControlPlane } from '../src/testing/fakeControlPlane.ts';
import { FakeDevice, startFakeUapiServer } from '../src/testing/fakeWg.ts';

const PEERS = Number(process.env.BENCH_STATS_PEERS ?? 50_000);
const STATS_MS = Number(process.env.BENCH_STATS_MS ?? 10_000);
const PHASE_MS = Number(process.env.BENCH_STATS_PHASE_MS ?? 60_000);
const NODE_FLAGS = (process.env.BENCH_AGENT_NODE_FLAGS ?? '--max-semi-space-size=1')
  .split(' ')
  .filter(Boolean);

const key = () => randomBytes(32).toString('base64');
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;
const rssKb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function main(): Promise<void> {
  const agentDir = new URL('..', import.meta.url).pathname;
  spawnSync(process.execPath, [join(agentDir, '../scripts/build.mjs'), '--if-stale', 'agent'], {
    stdio: 'inherit',
  });
  const dir = mkdtempSync(join(tmpdir(), 'stats-bench-'));
  const device = new FakeDevice();
  const uapi = await startFakeUapiServer(join(dir, 'wgbench.sock'), device);
  const token = key();
  const peers: AgentPeer[] = Array.from({ length: PEERS }, (_, i) => ({
    public_key: key(),
    preshared_key: key(),
    allowed_ips: [`10.${64 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}/32`],
  }));
  const cp = await startFakeControlPlane({
    token,
    answerHeartbeats: true,
    onConnect: (send) => {
      send({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: STATS_MS });
      // In parts, as the hub sends it to an agent whose hello offers to assemble them.
      const whole: ServerSnapshot = {
        type: 'snapshot',
        revision: 1,
        interface: {
          name: 'wgbench',
          private_key: key(),
          listen_port: 51820,
          address: '10.64.0.1/10',
          mtu: 1420,
          nat: true,
        },
        peers,
      };
      for (const m of snapshotMessages(whole)) send(m);
    },
  });
  const child = spawn(
    process.execPath,
    [...NODE_FLAGS, join(agentDir, 'bench/stats-child.mjs'), cp.url, token, join(dir, 'wgbench.sock')],
    // The environment of agent/deploy/vpn-agent.service.
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' },
    },
  );
  try {
    console.log(
      `agent stats memory · node ${process.version} · ${PEERS.toLocaleString('en')} peers · stats every ${STATS_MS / 1000} s · flags ${NODE_FLAGS.join(' ')}`,
    );
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 1, { timeoutMs: 120_000 });
    const phase = async (label: string, bump: boolean) => {
      const from = cp.received.length;
      const samples: number[] = [];
      let round = 0;
      const bumper = bump
        ? setInterval(() => {
            round++;
            const now = Math.floor(Date.now() / 1000);
            let i = 0;
            for (const p of device.peers.values()) {
              p.rx += 1_000 + ((i * 7919 + round) % 50_000);
              p.tx += 500 + ((i * 104_729 + round) % 20_000);
              p.handshake = now;
              p.endpoint = `198.51.${(i >> 8) & 255}.${i & 255}:${20_000 + (i % 40_000)}`;
              i++;
            }
          }, STATS_MS)
        : null;
      for (let waited = 0; waited < PHASE_MS; waited += 5_000) {
        await sleep(5_000);
        samples.push(rssKb(child.pid!));
      }
      if (bumper) clearInterval(bumper);
      const reports = cp.received.slice(from).filter((r) => r.message.type === 'stats');
      const reported = reports.reduce(
        (n, r) => n + (r.message.type === 'stats' ? r.message.peers.length : 0),
        0,
      );
      const bytes = reports.reduce((n, r) => n + r.bytes, 0);
      const last = samples[samples.length - 1]!;
      console.log(
        `  ${label.padEnd(34)} RSS every 5 s: ${samples.map((k) => (k / 1024).toFixed(0)).join(' ')} MB · last ${mb(last)}, max ${mb(Math.max(...samples))} · ${reported.toLocaleString('en')} peer readings in ${(bytes / 1048576).toFixed(1)} MB of stats messages`,
      );
      return { last, max: Math.max(...samples) };
    };
    const quiet = await phase('no counter changes', false);
    const busy = await phase('every peer changes every pass', true);
    console.log('\nSummary');
    console.log(`  at rest, no changes:        ${mb(quiet.last)} (max ${mb(quiet.max)})`);
    console.log(
      `  every peer changing:        ${mb(busy.last)} (max ${mb(busy.max)}) · ×${(busy.max / quiet.max).toFixed(2)} of at rest`,
    );
  } finally {
    child.kill('SIGTERM');
    await cp.close();
    await uapi.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
