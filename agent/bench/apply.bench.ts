/**
 * `npm run bench:agent -w agent`: what one peer change costs the agent on a wireguard-go interface
 * with 10,000 and 50,000 peers, against the alternatives (issue 3, item 7).
 *
 *  (a) the agent applying a one-peer delta: from the websocket frame's text (parse + validate) to
 *      the UAPI write answered, through the same `receive()` the socket handler calls;
 *  (b) one raw UAPI `set` of one peer over a fresh unix-socket connection;
 *  (c) a full `wg syncconf` of all peers plus the change (what wg-easy does for every change);
 *      also `wg set` of one peer (one process) and a full UAPI `get` for reference;
 *  cold convergence: the agent's reconcile of a 50,000-peer snapshot onto an empty interface vs a raw
 *      batched UAPI fill of the same peers;
 *  the real agent process: snapshot over the websocket → ack, delta → ack latency p50/p99, the RSS
 *      of wireguard-go, and the agent's memory over BENCH_AGENT_IDLE_MS (60 s) of stats only: its
 *      plateau (median after 30 s) and peaks against targets, with what it is made of (issue 33);
 *  the concurrent-use detector's cost per stats pass (issue 19, bench/concurrent.ts), as ratios to
 *      the pass without it (`BENCH_AGENT_ONLY=concurrent` runs only that, at 50,000 peers);
 *  per-peer speed (issue 35, bench/shaping.ts): cold apply of 10,000 shaped peers, one peer's speed
 *      change vs one raw tc command, CPU per forwarded packet with 10,000 shaped peers vs none
 *      (`BENCH_AGENT_ONLY=shaping` runs only that).
 *
 * Needs root and wireguard-go; everything lives in a namespace made here and is removed at the end.
 * Over 400 lines: each measurement and its baseline run in the same process, so they stay together.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { ServerToAgent, snapshotMessages, type AgentPeer, type ServerSnapshot } from '@vpn/contracts/agent';
import { Agent } from '../src/agent.ts';
import { createLogger } from '../src/log.ts';
import type { ApplyResult } from '../src/reconcile.ts';
import { startFakeControlPlane } from '../src/testing/fakeControlPlane.ts';
import { genKeyPair } from '../src/testing/keys.ts';
import { TestNet, uniqueName, wireguardSkipReason } from '../src/testing/netns.ts';
import { UapiClient, setRequestText, uapiSocketPath, type UapiPeerOp } from '../src/uapi.ts';
import { benchConcurrentUse } from './concurrent.ts';
import { benchShaping } from './shaping.ts';

const SIZES = [10_000, 50_000];
const ONE_PEER_ROUNDS = 200;
const SYNCCONF_ROUNDS = { 10_000: 5, 50_000: 3 } as Record<number, number>;
const FILL_BATCH = 5_000;
/** The agent process reports stats like in production (the control plane's STATS_INTERVAL_MS). */
const STATS_MS = Number(process.env.BENCH_AGENT_STATS_MS ?? 10_000);
/** Pause between two deltas of the agent process (ms): 100 deltas then span a stats pass or more. */
const DELTA_GAP_MS = Number(process.env.BENCH_AGENT_DELTA_GAP_MS ?? 150);
/** The environment of agent/deploy/vpn-agent.service (glibc's mmap threshold kept fixed). */
const AGENT_ENV = { MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' };
/** The agent's drift repair (a full read of the interface), seconds: production's 300 unless BENCH_AGENT_REPAIR_S. */
const REPAIR_S = Number(process.env.BENCH_AGENT_REPAIR_S ?? 300);
/** Node flags of the agent process, as in agent/deploy/vpn-agent.service (BENCH_AGENT_NODE_FLAGS to try others). */
const AGENT_NODE_FLAGS = (process.env.BENCH_AGENT_NODE_FLAGS ?? '--max-semi-space-size=1')
  .split(' ')
  .filter(Boolean);

const key = () => randomBytes(32).toString('base64');
const addr = (n: number) => `10.${64 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}/32`;
const makePeers = (count: number, offset = 2): AgentPeer[] =>
  Array.from({ length: count }, (_, i) => ({
    public_key: key(),
    preshared_key: key(),
    allowed_ips: [addr(i + offset)],
  }));

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { p50: q(0.5), p90: q(0.9), p99: q(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}
const ms = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(2) : v.toFixed(3)) + ' ms';
const line = (label: string, st: ReturnType<typeof stats>) =>
  console.log(
    `  ${label.padEnd(52)} p50 ${ms(st.p50).padStart(10)}  p90 ${ms(st.p90).padStart(10)}  p99 ${ms(st.p99).padStart(10)}`,
  );
const now = () => performance.now();

/** One raw UAPI request over a new connection: connect, write, wait for the closing empty line. */
function rawUapi(path: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    const chunks: Buffer[] = [];
    let tail = '';
    s.on('error', reject);
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      // Only the last bytes matter for framing; never re-scan the whole answer.
      tail = (tail + d.subarray(Math.max(0, d.length - 16)).toString()).slice(-16);
      if (tail.endsWith('\n\n')) {
        s.destroy();
        const out = Buffer.concat(chunks).toString();
        if (!out.endsWith('errno=0\n\n')) reject(new Error(out.slice(-40)));
        else resolve(out);
      }
    });
    s.write(text);
  });
}

function rssKb(pid: number): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const get = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN);
  return { rss: get('VmRSS'), hwm: get('VmHWM') };
}
const mb = (kb: number) => `${(kb / 1024).toFixed(1)} MB`;

function renderConf(privateKey: string, port: number, peers: AgentPeer[]): string {
  const parts = [`[Interface]\nPrivateKey = ${privateKey}\nListenPort = ${port}\n`];
  for (const p of peers)
    parts.push(
      `[Peer]\nPublicKey = ${p.public_key}\nPresharedKey = ${p.preshared_key}\n` +
        (p.allowed_ips.length > 0 ? `AllowedIPs = ${p.allowed_ips.join(', ')}\n` : ''),
    );
  return parts.join('\n');
}

const net = new TestNet();
const extraPids: number[] = [];
const tmp = mkdtempSync(join(tmpdir(), 'agent-bench-'));
const results: string[] = [];
/** Lines of `results` that name a target; each ends in OK or MISSED. */
const verdict = (ok: boolean) => (ok ? 'OK' : 'MISSED');
let agentProc: ChildProcess | null = null;

async function cleanup() {
  if (agentProc && agentProc.exitCode === null) agentProc.kill('SIGKILL');
  await net.cleanup(extraPids);
  rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => void cleanup().then(() => process.exit(130)));
// Bounded: whatever happens, clean up and stop after 12 minutes (8 before the per-peer speed part,
// whose cold apply of 10,000 shaped peers takes over a minute on a busy machine).
const WATCHDOG = setTimeout(() => {
  console.error('bench:agent: límite de 12 minutos superado');
  void cleanup().then(() => process.exit(1));
}, 12 * 60_000);
WATCHDOG.unref();

async function rawFill(
  ns: string,
  peers: AgentPeer[],
  privateKey: string,
): Promise<{ ms: number; daemonRss: number }> {
  const { iface, pid } = await net.startWireguardGo(ns, uniqueName('wgr'));
  const sock = uapiSocketPath(iface);
  await rawUapi(sock, setRequestText({ privateKey, listenPort: 0 }));
  const t0 = now();
  // One connection, transactions of FILL_BATCH peers: the fastest plain way to load a device.
  const client = new UapiClient(sock, { keepAlive: true });
  for (let i = 0; i < peers.length; i += FILL_BATCH) {
    await client.set({
      peers: peers.slice(i, i + FILL_BATCH).map((p): UapiPeerOp => ({
        publicKey: p.public_key,
        presharedKey: p.preshared_key,
        replaceAllowedIps: true,
        allowedIps: p.allowed_ips,
      })),
    });
  }
  const elapsed = now() - t0;
  client.close();
  const daemonRss = rssKb(pid).rss;
  process.kill(pid, 'SIGTERM');
  return { ms: elapsed, daemonRss };
}

interface ColdRun {
  agent: Agent;
  iface: string;
  daemonPid: number;
  ms: number;
  result: ApplyResult;
  rssKb: number;
}

/**
 * Cold convergence by the agent: the interface is brought up empty first (as on a first start),
 * then the N-peer snapshot is reconciled: get (empty) + diff + one transaction.
 */
async function agentCold(ns: string, server: { privateKey: string }, peers: AgentPeer[]): Promise<ColdRun> {
  const iface = net.track(uniqueName('wgb'));
  const agent = new Agent({
    url: 'http://127.0.0.1:9',
    token: 'bench',
    netns: ns,
    uplink: 'lo',
    backend: 'wireguard-go',
    wireguardGo: 'wireguard-go',
    repairIntervalMs: 0,
    healthIntervalMs: 0,
    firewall: true,
    log: createLogger('error'),
  });
  const snap = snapshotOf(iface, server.privateKey);
  await agent.reconciler.applySnapshot(snap(1, []));
  const daemonPid = agent.backend.daemonPid ?? 0;
  extraPids.push(daemonPid);
  const t0 = now();
  const result = await agent.reconciler.applySnapshot(snap(2, peers));
  const elapsed = now() - t0;
  if (result?.added !== peers.length)
    throw new Error(`se esperaban ${peers.length} altas, hubo ${result?.added}`);
  return { agent, iface, daemonPid, ms: elapsed, result, rssKb: rssKb(daemonPid).rss };
}

/** Each agent interface gets its own port: several live side by side in one namespace. */
let nextPort = 51820;
const snapshotOf =
  (iface: string, privateKey: string, port = nextPort++) =>
  (revision: number, list: AgentPeer[]): ServerSnapshot => ({
    type: 'snapshot',
    revision,
    interface: {
      name: iface,
      private_key: privateKey,
      listen_port: port,
      address: '10.64.0.1/10',
      mtu: 1420,
      nat: true,
    },
    peers: list,
  });

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

async function benchSize(n: number): Promise<void> {
  console.log(`\n== ${n.toLocaleString('en')} peers ==`);
  const ns = net.addNamespace('vbench');
  const server = genKeyPair();
  const peers = makePeers(n);

  // Cold convergence, twice each, in alternating order (raw, agent, agent, raw): fills are noisy
  // on a small machine. The first agent-filled interface is kept for the measurements below.
  const coldRaw: number[] = [];
  const coldAgent: number[] = [];
  let rawRss = 0;
  let kept: ColdRun | null = null;
  for (const what of ['raw', 'agent', 'agent', 'raw'] as const) {
    if (what === 'raw') {
      const r = await rawFill(ns, peers, server.privateKey);
      coldRaw.push(r.ms);
      rawRss = r.daemonRss;
    } else {
      const run = await agentCold(ns, server, peers);
      coldAgent.push(run.ms);
      if (!kept) kept = run;
      else await run.agent.stop({ teardown: true });
    }
  }
  if (!kept) throw new Error('sin interfaz');
  const { agent, iface, daemonPid, result: res } = kept;
  const coldMs = mean(coldAgent);
  const rawMs = mean(coldRaw);
  const bigText = JSON.stringify(snapshotOf(iface, server.privateKey)(2, peers));
  let t0 = now();
  ServerToAgent.parse(JSON.parse(bigText));
  const parseMs = now() - t0;
  t0 = now();
  const again = await agent.reconciler.repair();
  const repairMs = now() - t0;
  if (again?.added !== 0 || again.updated !== 0 || again.removed !== 0)
    throw new Error('la segunda pasada cambió algo');

  const sock = uapiSocketPath(iface);
  // Reference: one full UAPI get.
  const getSamples: number[] = [];
  const parsedGetSamples: number[] = [];
  for (let i = 0; i < 3; i++) {
    t0 = now();
    await rawUapi(sock, 'get=1\n\n');
    getSamples.push(now() - t0);
    t0 = now();
    await new UapiClient(sock, { keepAlive: false }).get();
    parsedGetSamples.push(now() - t0);
  }

  // (a) vs (b), interleaved so both see the same device and machine state.
  const a: number[] = [];
  const b: number[] = [];
  const fresh: number[] = [];
  const reused: number[] = [];
  const freshClient = new UapiClient(sock, { keepAlive: false });
  const reusedClient = new UapiClient(sock, { keepAlive: true });
  let revision = 2;
  let next = n + 10;
  const send = () => {};
  for (let i = 0; i < ONE_PEER_ROUNDS; i++) {
    const pa = makePeers(1, next++)[0]!;
    const pb = makePeers(1, next++)[0]!;
    const add = i % 2 === 0;
    // (a) the delta exactly as the websocket delivers it.
    const text = JSON.stringify({
      type: 'delta',
      revision: ++revision,
      upsert: add ? [pa] : [],
      remove: add ? [] : [lastA],
    });
    t0 = now();
    await agent.connection.receive(text, send);
    a.push(now() - t0);
    if (add) lastA = pa.public_key;
    // (b) the raw set over a fresh connection.
    const op: UapiPeerOp = add
      ? {
          publicKey: pb.public_key,
          presharedKey: pb.preshared_key,
          replaceAllowedIps: true,
          allowedIps: pb.allowed_ips,
        }
      : { publicKey: lastB, remove: true };
    const rawText = setRequestText({ peers: [op] });
    t0 = now();
    await rawUapi(sock, rawText);
    b.push(now() - t0);
    if (add) lastB = pb.public_key;
    // The client alone, both connection strategies (why the agent keeps its connection).
    const pc = makePeers(1, next++)[0]!;
    const opc: UapiPeerOp = {
      publicKey: pc.public_key,
      presharedKey: pc.preshared_key,
      replaceAllowedIps: true,
      allowedIps: pc.allowed_ips,
    };
    t0 = now();
    await freshClient.set({ peers: [opc] });
    fresh.push(now() - t0);
    t0 = now();
    await reusedClient.set({ peers: [{ publicKey: pc.public_key, remove: true }] });
    reused.push(now() - t0);
  }
  reusedClient.close();
  // The stats pass that runs every 10 s in production reads the keys the removals retired and
  // deletes them (issue 24); here it runs once, so (c) starts from the same peers as before.
  await agent.reconciler.collectStats(true);
  await agent.reconciler.repair();

  // `wg set` of one peer: one process, keys of a public nature only.
  const wgSet: number[] = [];
  for (let i = 0; i < 10; i++) {
    const p = makePeers(1, next++)[0]!;
    t0 = now();
    spawnSync('wg', ['set', iface, 'peer', p.public_key, 'allowed-ips', p.allowed_ips[0]!]);
    wgSet.push(now() - t0);
    spawnSync('wg', ['set', iface, 'peer', p.public_key, 'remove']);
  }

  // (c) full syncconf of all peers plus one change (conf file written before the clock starts).
  const sync: number[] = [];
  const current = (await new UapiClient(sock, { keepAlive: false }).get()).peers.map((p): AgentPeer => ({
    public_key: p.publicKey,
    preshared_key: p.presharedKey ?? key(),
    allowed_ips: p.allowedIps,
  }));
  const confDir = mkdtempSync(join(tmp, 'conf-'));
  for (let i = 0; i < (SYNCCONF_ROUNDS[n] ?? 3); i++) {
    const list = [...current, makePeers(1, next++)[0]!];
    const file = join(confDir, 'wg.conf');
    writeFileSync(
      file,
      renderConf(
        server.privateKey,
        (await new UapiClient(sock, { keepAlive: false }).get()).listenPort,
        list,
      ),
      {
        mode: 0o600,
      },
    );
    t0 = now();
    const r = spawnSync('wg', ['syncconf', iface, file]);
    sync.push(now() - t0);
    if (r.status !== 0) throw new Error(`wg syncconf falló: ${r.stderr.toString()}`);
  }
  rmSync(confDir, { recursive: true, force: true });

  const sa = stats(a);
  const sb = stats(b);
  const sc = stats(sync);
  line('(a) agent: delta frame → UAPI write done', sa);
  line('(b) raw UAPI set of one peer, fresh socket', sb);
  line('    UapiClient one-peer set, fresh connection', stats(fresh));
  line('    UapiClient one-peer set, kept connection (agent)', stats(reused));
  line('    `wg set` of one peer (one process)', stats(wgSet));
  line('(c) `wg syncconf` of all peers + one change', sc);
  line('    full UAPI get, raw bytes (reference)', stats(getSamples));
  line('    full UAPI get, parsed by UapiClient', stats(parsedGetSamples));
  console.log(`  cold convergence, raw batched fill (${FILL_BATCH}/set):   ${coldRaw.map(ms).join(', ')}`);
  const tm = res.timings;
  console.log(
    `  cold convergence, agent reconcile of the snapshot:  ${coldAgent.map(ms).join(', ')}` +
      (tm
        ? ` (interface+nft ${ms(tm.prepare)}, get ${ms(tm.read)}, diff ${ms(tm.diff)}, set ${ms(tm.write)})`
        : ''),
  );
  console.log(
    `    + parse and validate the ${(bigText.length / 1e6).toFixed(1)} MB snapshot frame:   ${ms(parseMs)}`,
  );
  const rt = again.timings;
  console.log(
    `  second reconcile (nothing to do):                   ${ms(repairMs)}` +
      (rt ? ` (interface+nft ${ms(rt.prepare)}, get ${ms(rt.read)}, diff ${ms(rt.diff)})` : ''),
  );
  const wgRss = rssKb(daemonPid);
  console.log(
    `  wireguard-go RSS after the fill: agent ${mb(kept.rssKb)}, raw ${mb(rawRss)}; after all runs above (syncconf included) ${mb(wgRss.rss)} (peak ${mb(wgRss.hwm)})`,
  );
  const r1 = sa.p50 / sb.p50;
  const r2 = sc.p50 / sa.p50;
  const r3 = coldMs / rawMs;
  console.log(
    `  ratios: (a)/(b) = ${r1.toFixed(2)}× (target ≤ 3) · (c)/(a) = ${r2.toFixed(0)}× (target ≥ 100) · cold agent/raw = ${r3.toFixed(2)}× (target ≤ 1.5)`,
  );
  results.push(
    `${n.toLocaleString('en')} peers: (a)/(b) ${r1.toFixed(2)}× ${verdict(r1 <= 3)} · (c)/(a) ${r2.toFixed(0)}× ${verdict(r2 >= 100)} · cold ${r3.toFixed(2)}× ${verdict(r3 <= 1.5)}`,
  );
  results.push(await concurrentOn(kept, server.privateKey, peers));
  await agent.stop({ teardown: true });
}

/** The concurrent-use detector's cost on an agent-filled interface (its own port kept). */
async function concurrentOn(run: ColdRun, privateKey: string, peers: AgentPeer[]): Promise<string> {
  const sock = uapiSocketPath(run.iface);
  const port = (await new UapiClient(sock, { keepAlive: false }).get()).listenPort;
  return benchConcurrentUse(run.agent.backend, snapshotOf(run.iface, privateKey, port)(2, peers), sock);
}
let lastA = '';
let lastB = '';

/** The steady RSS target (issue 3), on the plateau: the median of the samples after PLATEAU_FROM_MS. */
const RSS_TARGET_MB = 100;
/**
 * The peak of the process's life: the cold start (a 50,000-peer snapshot assembled from its 5,000-peer
 * parts, then the first stats report, which names every peer) may pass the steady target by 20 % —
 * a transient of a few seconds, once per connection, that a host sized for the target absorbs in its
 * page cache. Before issue 33's fix that peak was 108–140 MB.
 */
const RSS_PEAK_TARGET_MB = 120;
/** Samples before this much of stats-only time are the approach, not the plateau. */
const PLATEAU_FROM_MS = 30_000;

interface Probe {
  t: number;
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, [used: number, size: number]>;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0
    ? NaN
    : s.length % 2
      ? s[(s.length - 1) >> 1]!
      : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)}`;

/**
 * The agent's memory while it only reports stats, as it does most of its life: VmRSS every second
 * for `idleMs`; the plateau is the median of the samples after PLATEAU_FROM_MS (one sample says how
 * far the collector had got at that instant, which a loaded machine delays), the peaks are the
 * window's highest sample and the life's VmHWM. The breakdown is the probe's (bench/memprobe.mjs)
 * median over the same window: V8's heap (old space used/committed), external memory (Buffers),
 * and the rest (Node itself, code, malloc).
 */
async function idleMemory(pid: number, probeFile: string, idleMs: number): Promise<string[]> {
  const samples: { at: number; rss: number }[] = [];
  const start = now();
  for (let waited = 1_000; waited <= idleMs; waited += 1_000) {
    await new Promise((r) => setTimeout(r, Math.max(0, start + waited - now())));
    samples.push({ at: now() - start, rss: rssKb(pid).rss });
  }
  const window = samples.filter((x) => x.at >= Math.min(PLATEAU_FROM_MS, idleMs / 2));
  const plateau = median(window.map((x) => x.rss));
  const windowMax = Math.max(...window.map((x) => x.rss));
  const life = rssKb(pid).hwm;
  const every5 = samples.filter((_, i) => i % 5 === 4).map((x) => (x.rss / 1024).toFixed(0));
  console.log(`  agent RSS every 5 s over ${idleMs / 1000} s of stats only: ${every5.join(' ')} MB`);
  // The probe's lines of the same window (its clock is the agent's; the window is the last part).
  const probes = readFileSync(probeFile, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Probe);
  const lastT = probes[probes.length - 1]?.t ?? 0;
  const inWindow = probes.filter((p) => p.t >= lastT - (window.length - 1) * 1_000);
  const med = (f: (p: Probe) => number) => median(inWindow.map(f));
  const old = (p: Probe) => p.spaces.old ?? [0, 0];
  const heapTotal = med((p) => p.heapTotal);
  const external = med((p) => p.external);
  console.log(
    `  plateau (median of ${window.length} samples, ${Math.round(window[0]!.at / 1000)}–${Math.round(idleMs / 1000)} s): ` +
      `RSS ${mb(plateau)} = V8 heap ${mib(heapTotal)} MB (used ${mib(med((p) => p.heapUsed))}; old space ` +
      `${mib(med((p) => old(p)[0]))} used of ${mib(med((p) => old(p)[1]))}, large objects ` +
      `${mib(med((p) => p.spaces.large_object?.[1] ?? 0))}) + external ${mib(external)} MB (Buffers ` +
      `${mib(med((p) => p.arrayBuffers))}) + the rest (Node, code, malloc) ${mib(plateau * 1024 - heapTotal - external)} MB`,
  );
  // Where the life's peak was, to the probe's second: its highest sample and what it held.
  const top = probes.reduce((a, b) => (b.rss > a.rss ? b : a));
  console.log(
    `  peak: in the window ${mb(windowMax)}, of the process's life (VmHWM) ${mb(life)}; the probe's highest ` +
      `sample ${mib(top.rss)} MB at ${(top.t / 1000).toFixed(0)} s of ${(lastT / 1000).toFixed(0)} (heap ${mib(top.heapTotal)}, ` +
      `old space ${mib((top.spaces.old ?? [0, 0])[0])} used of ${mib((top.spaces.old ?? [0, 0])[1])}, external ${mib(top.external)} MB)`,
  );
  return [
    `agent RSS plateau after ${Math.round(window[0]!.at / 1000)} s of stats every ${STATS_MS / 1000} s: ${mb(plateau)} (window max ${mb(windowMax)}; target ≤ ${RSS_TARGET_MB} MB) ${verdict(plateau <= RSS_TARGET_MB * 1024)}`,
    `agent RSS peak of its life: ${mb(life)} (target ≤ ${RSS_PEAK_TARGET_MB} MB, the cold start) ${verdict(life <= RSS_PEAK_TARGET_MB * 1024)}`,
  ];
}

/** The real agent process against a fake control plane: end-to-end latencies and memory. */
async function benchProcess(n: number): Promise<void> {
  console.log(`\n== agent process, ${n.toLocaleString('en')} peers over the websocket ==`);
  const ns = net.addNamespace('vbproc');
  const iface = net.track(uniqueName('wgp'));
  const server = genKeyPair();
  const peers = makePeers(n);
  const token = key();
  const cp = await startFakeControlPlane({
    token,
    // Like the real hub; unanswered, the agent would reconnect every 45 s and be sent the whole
    // snapshot again.
    answerHeartbeats: true,
    onConnect: (sendMsg) => {
      sendMsg({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: STATS_MS });
      // In parts, as the hub sends it to an agent whose hello offers to assemble them.
      const whole: ServerSnapshot = {
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
        peers,
      };
      for (const m of snapshotMessages(whole)) sendMsg(m);
    },
  });
  const probeFile = join(tmp, 'memprobe.jsonl');
  try {
    const t0 = now();
    // The production runtime: compiled JavaScript (`npm start` / the systemd unit), not tsx.
    agentProc = spawn(
      process.execPath,
      [
        ...AGENT_NODE_FLAGS,
        // Its memory, by kind, every second (bench/memprobe.mjs): what the RSS is made of.
        ...['--import', './bench/memprobe.mjs'],
        'dist/main.js',
        ...['--netns', ns, '--uplink', 'lo', '--log-level', 'error'],
        ...['--repair-interval', String(REPAIR_S)],
      ],
      {
        cwd: new URL('..', import.meta.url).pathname,
        env: {
          PATH: process.env.PATH,
          AGENT_URL: cp.url,
          AGENT_TOKEN: token,
          ...AGENT_ENV,
          BENCH_AGENT_MEMPROBE: probeFile,
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    await cp.waitFor((m) => m.type === 'ack' && m.revision === 1, { timeoutMs: 120_000 });
    console.log(
      `  process start → snapshot acked (spawn, connect, parse, wireguard-go, fill): ${ms(now() - t0)}`,
    );
    const lat: number[] = [];
    let next = n + 10;
    // Paced over more than one stats interval, so some deltas meet a stats pass (a full UAPI read),
    // as they do in production, and the p99 says what that costs them.
    const t2 = now();
    for (let r = 2; r < 102; r++) {
      const p = makePeers(1, next++)[0]!;
      const from = cp.received.length;
      const t1 = now();
      cp.send({ type: 'delta', revision: r, upsert: [p], remove: [] });
      await cp.waitFor((m) => m.type === 'ack' && m.revision === r, { from });
      lat.push(now() - t1);
      if (DELTA_GAP_MS > 0) await new Promise((resolve) => setTimeout(resolve, DELTA_GAP_MS));
    }
    const spanS = ((now() - t2) / 1000).toFixed(1);
    line(`delta sent → ack received (websocket, 100 over ${spanS} s)`, stats(lat));
    const wgPid = Number(
      spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' })
        .stdout.trim()
        .split('\n')[0],
    );
    if (wgPid) extraPids.push(wgPid);
    const agentMem = rssKb(agentProc.pid!);
    const wgMem = wgPid ? rssKb(wgPid) : { rss: NaN, hwm: NaN };
    console.log(
      `  agent RSS ${mb(agentMem.rss)} (peak ${mb(agentMem.hwm)}) · wireguard-go RSS ${mb(wgMem.rss)} (peak ${mb(wgMem.hwm)})`,
    );
    results.push(
      `agent process at ${n.toLocaleString('en')} peers: delta→ack p99 ${ms(stats(lat).p99)}, agent RSS ${mb(agentMem.rss)}, wireguard-go RSS ${mb(wgMem.rss)}`,
    );
    const idleMs = Number(process.env.BENCH_AGENT_IDLE_MS ?? 60_000);
    if (idleMs > 0) results.push(...(await idleMemory(agentProc.pid!, probeFile, idleMs)));
    if (process.env.BENCH_AGENT_HEAPSNAPSHOT === '1') {
      // With --heapsnapshot-signal=SIGUSR2 in BENCH_AGENT_NODE_FLAGS: a .heapsnapshot in agent/.
      agentProc.kill('SIGUSR2');
      await new Promise((r) => setTimeout(r, 15_000));
    }
    const exited = new Promise((r) => agentProc!.once('exit', r));
    agentProc.kill('SIGTERM');
    await exited;
  } finally {
    await cp.close();
  }
}

async function main(): Promise<number> {
  const skip = wireguardSkipReason();
  if (skip) {
    console.log(`bench:agent omitido: ${skip}`);
    return 0;
  }
  console.log(
    `agent apply benchmark · node ${process.version} · ${ONE_PEER_ROUNDS} one-peer rounds per size`,
  );
  try {
    if (process.env.BENCH_AGENT_ONLY === 'concurrent') {
      const ns = net.addNamespace('vbench');
      const server = genKeyPair();
      const peers = makePeers(Number(process.env.BENCH_AGENT_PEERS ?? 50_000));
      const run = await agentCold(ns, server, peers);
      results.push(await concurrentOn(run, server.privateKey, peers));
      await run.agent.stop({ teardown: true });
      console.log('\nSummary');
      for (const r of results) console.log(`  ${r}`);
      return summarize();
    }
    if (process.env.BENCH_AGENT_ONLY === 'shaping') {
      await benchShaping(net, results, verdict);
      console.log('\nSummary');
      for (const r of results) console.log(`  ${r}`);
      return summarize();
    }
    if (process.env.BENCH_AGENT_ONLY_PROCESS !== '1') for (const n of SIZES) await benchSize(n);
    if (process.env.BENCH_AGENT_ONLY_PROCESS !== '1') await benchShaping(net, results, verdict);
    spawnSync(
      process.execPath,
      [new URL('../../scripts/build.mjs', import.meta.url).pathname, '--if-stale', 'agent'],
      {
        stdio: 'inherit',
      },
    );
    await benchProcess(Number(process.env.BENCH_AGENT_PEERS ?? 50_000));
  } finally {
    await cleanup();
  }
  console.log('\nSummary');
  for (const r of results) console.log(`  ${r}`);
  return summarize();
}

/** The last line says whether every target was met; any MISSED makes the exit code 1. */
function summarize(): number {
  const missed = results.filter((r) => /\bMISSED\b/.test(r));
  if (missed.length === 0) {
    console.log('\nbench:agent: every target met');
    return 0;
  }
  console.error(`\nbench:agent: MISSED ${missed.length} target line(s):`);
  for (const r of missed) console.error(`  ${r}`);
  return 1;
}

main().then(
  (code) => process.exit(code),
  async (err: unknown) => {
    console.error(err);
    await cleanup();
    process.exit(1);
  },
);
