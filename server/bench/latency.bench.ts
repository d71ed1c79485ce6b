/**
 * `npm run bench:agent` (part 2): API call → websocket `success` latency with a real agent on a
 * wireguard-go interface carrying 10,000 peers (in a network namespace; needs root). Each sample is
 * one `regenerate` by a customer: the request, the change log, the delta to the agent, the UAPI
 * write, the ack, and the push back to the customer's socket.
 *
 * The embedded database (PGlite) by default, which runs every query on the server's own thread;
 * with `DATABASE_URL=postgres://…` PostgreSQL, as a production panel of this size runs it (a scratch
 * database is created beside it and dropped afterwards).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openDatabase } from '../src/db/client.ts';
import { customers, peers, planHistory, plans, servers } from '../src/db/schema.ts';
import {
  encrypt,
  generatePresharedKey,
  generateWireguardKeyPair,
  hashPassword,
  randomToken,
} from '../src/lib/crypto.ts';
import { ipv4FromIndex, FIRST_PEER_INDEX } from '../src/services/fleet/addresses.ts';
import { createServer } from '../src/services/fleet/servers.ts';
import { newMirrorToken } from '../src/services/peers/mirrorTokens.ts';
import { PushClient } from '../test/protocolAgent.ts';

const PEERS = Number(process.env.BENCH_PEERS ?? 10_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
/** Re-keys of other peers before sampling, printed apart (see below). */
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const AGENT_MAIN = new URL('../../agent/src/main.ts', import.meta.url).pathname;
const TSX = new URL('../../node_modules/.bin/tsx', import.meta.url).pathname;

if (process.getuid?.() !== 0 || spawnSync('sh', ['-c', 'command -v wireguard-go']).status !== 0) {
  console.log('latencia API → websocket: omitida (hace falta root y wireguard-go)');
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'vpn-latency-'));
const ns = `vlat${randomToken(3)
  .replace(/[^a-z0-9]/gi, '')
  .slice(0, 6)}`;
const iface = `wgl${randomToken(3)
  .replace(/[^a-z0-9]/gi, '')
  .slice(0, 6)}`;
spawnSync('ip', ['netns', 'add', ns]);
spawnSync('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);

const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' });
let scratch: { admin: pg.Client; name: string } | null = null;
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `vpn_bench_latency_${process.pid}`;
  await admin.query(`create database ${name}`);
  scratch = { admin, name };
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}
const database = await openDatabase({ databaseUrl, dataDir: join(dir, 'pglite') });
await migrateDatabase(database);
const unlimited = { max: 1e9, windowSeconds: 60 };
const { app, ctx } = await buildApp({
  config,
  database,
  logger: false,
  scheduler: false,
  rateLimits: { loginPerIp: unlimited, loginPerUsername: unlimited },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
let agent: ReturnType<typeof spawn> | undefined;

try {
  const { server, agentToken } = await createServer(ctx.db, ctx.keys.encryption, {
    name: 'Bench',
    endpoint: '192.0.2.1:51820',
    ubication: 'Lab',
    interface_name: iface,
  });
  const [plan] = await ctx.db
    .insert(plans)
    .values({ name: 'Bench', description: 'x', price: '1.00', validity: '30 days' })
    .returning();
  const [owner] = await ctx.db
    .insert(customers)
    .values({ username: 'bench', passwordHash: await hashPassword('clave-de-bench') })
    .returning();
  console.log(`Creando ${PEERS} peers…`);
  for (let i = 0; i < PEERS; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, PEERS - i) }, (_, k) => {
      const keys = generateWireguardKeyPair();
      const index = FIRST_PEER_INDEX + i + k;
      return {
        customerId: owner!.id,
        serverId: server.id,
        name: `peer-${index}`,
        addressIndex: index,
        address: ipv4FromIndex(index),
        publicKey: keys.publicKey,
        privateKeyEnc: encrypt(ctx.keys.encryption, keys.privateKey),
        presharedKeyEnc: encrypt(ctx.keys.encryption, generatePresharedKey()),
        ...(({ token: _token, ...stored }) => stored)(newMirrorToken(ctx.keys.encryption)),
        expiresAt: sql`now() + interval '30 days'`,
        manualPayment: true,
      };
    });
    const inserted = await ctx.db.insert(peers).values(rows).returning({ id: peers.id });
    await ctx.db.insert(planHistory).values(
      inserted.map((p) => ({
        peerId: p.id,
        planId: plan!.id,
        planName: 'Bench',
        planPrice: '1.00',
        validity: '30 days',
      })),
    );
  }

  const coldStart = performance.now();
  agent = spawn(
    TSX,
    [
      AGENT_MAIN,
      '--url',
      base,
      '--netns',
      ns,
      '--state-dir',
      join(dir, 'agent'),
      '--log-level',
      'error',
      '--no-firewall',
    ],
    {
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, AGENT_TOKEN: agentToken },
    },
  );
  const acked = async () => {
    const [row] = await ctx.db
      .select({ acked: servers.ackedRevision, revision: servers.revision, seen: servers.lastSeenAt })
      .from(servers);
    return row!.seen !== null && row!.acked >= row!.revision;
  };
  const wgCount = () =>
    spawnSync('wg', ['show', iface, 'peers'], { encoding: 'utf8' }).stdout.split('\n').filter(Boolean).length;
  while (!(await acked()) || wgCount() < PEERS) {
    if (performance.now() - coldStart > 300_000) throw new Error('el agente no convergió');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(
    `convergencia en frío de ${PEERS} peers (agente real, arranque incluido): ${((performance.now() - coldStart) / 1000).toFixed(2)} s`,
  );

  // The agent's first report after the snapshot lists every peer (10,000 readings stored in two
  // statements of 5,000, each holding PGlite's one thread for hundreds of milliseconds): a cold
  // start's cost, once per connection, not the steady state measured here. Sampling during it put
  // its stores into the tail (p99 139–164 ms in the runs of issue 33). Wait for it to be stored.
  const storedFirst = async () =>
    Number(
      (await ctx.db.execute<{ n: number }>(sql`select count(*)::int as n from peer_stats`)).rows[0]?.n ?? 0,
    );
  const reportStart = performance.now();
  while ((await storedFirst()) < PEERS) {
    if (performance.now() - reportStart > 120_000) throw new Error('el primer informe no llegó');
    await new Promise((r) => setTimeout(r, 200));
  }
  console.log(
    `primer informe completo guardado ${((performance.now() - coldStart) / 1000).toFixed(1)} s tras el arranque`,
  );

  const login = await app.inject({
    method: 'POST',
    url: '/api/client/login',
    payload: { username: 'bench', password: 'clave-de-bench' },
  });
  const { access } = login.json<{ access: string }>();
  const push = await PushClient.connect(base, access);
  const all = (
    await ctx.db
      .select({ id: peers.id })
      .from(peers)
      .limit(SAMPLES + WARMUP)
  ).map((p) => p.id);
  const ids = all.slice(0, SAMPLES);
  /** One re-key: the PATCH's answer and the `success` push, in ms from the request. */
  const rekey = async (id: number) => {
    const before = push.messages.length;
    const start = performance.now();
    const res = await fetch(`${base}/api/client/accounts/peers/${id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${access}` },
      body: JSON.stringify({ operation: 'regenerate' }),
    });
    if (res.status !== 200) throw new Error(`PATCH ${res.status}`);
    const patch = performance.now() - start;
    while (!push.messages.slice(before).some((m) => m.type === 'success' && m.peer_id === id)) {
      await new Promise((r) => setImmediate(r));
    }
    return { start, patch, total: performance.now() - start };
  };
  // The first re-keys of a process run its code paths for the first time (the JIT, the route's
  // validation, PGlite's caches of each table and index touched): the first one or two took
  // 120–400 ms in every run of issue 33 while the rest ran at 20–50 ms, and with 200 samples p99
  // is the second slowest. A once-per-process cost, like the first report above: measured here on
  // other peers, printed, and not sampled.
  const warm: number[] = [];
  for (const id of all.slice(SAMPLES)) warm.push((await rekey(id)).total);
  if (warm.length)
    console.log(
      `calentamiento: ${warm.length} re-keys de otros peers antes de medir (no cuentan): ${warm.map((ms) => ms.toFixed(0)).join(', ')} ms`,
    );
  const latencies: number[] = [];
  const patchTimes: number[] = [];
  /** Per sample, success − PATCH answer: the delta, the agent's write, its ack and the push. */
  const afterAnswer: number[] = [];
  /** When each sample started, ms since sampling began (the slowest are printed with it). */
  const startedAt: number[] = [];
  const t0 = performance.now();
  for (const id of ids) {
    const { start, patch, total } = await rekey(id);
    startedAt.push(start - t0);
    patchTimes.push(patch);
    latencies.push(total);
    afterAnswer.push(total - patch);
  }
  const slowest = latencies
    .map((ms, i) => ({ ms, at: startedAt[i]!, patch: patchTimes[i]! }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 4);
  console.log(
    `  (las más lentas: ${slowest.map((s) => `${s.ms.toFixed(0)} ms a los ${(s.at / 1000).toFixed(1)} s, PATCH ${s.patch.toFixed(0)} ms`).join('; ')}; informes de estadísticas cada 10 s)`,
  );
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  patchTimes.sort((a, b) => a - b);
  afterAnswer.sort((a, b) => a - b);
  console.log(
    `  (tras la respuesta HTTP hasta el success — delta, escritura del agente, ack, push: p50 ${afterAnswer[Math.floor(afterAnswer.length / 2)]!.toFixed(1)} ms, p99 ${afterAnswer[Math.floor(afterAnswer.length * 0.99)]!.toFixed(1)} ms)`,
  );
  console.log(
    `  (respuesta HTTP del PATCH: p50 ${patchTimes[Math.floor(patchTimes.length / 2)]!.toFixed(1)} ms, p99 ${patchTimes[Math.floor(patchTimes.length * 0.99)]!.toFixed(1)} ms)`,
  );
  const met = q(0.99) <= 100;
  console.log(
    `API → websocket success con ${PEERS} peers (${SAMPLES} muestras, ${database.kind === 'postgres' ? 'PostgreSQL' : 'PGlite'}): p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms (objetivo p99 ≤ 100 ms) ${met ? 'OK' : 'MISSED'}`,
  );
  if (!met) {
    console.error('bench:latency: MISSED: p99 API → websocket success por encima de 100 ms');
    process.exitCode = 1;
  }
  const rss = (pid: number) =>
    Number(
      /VmRSS:\s+(\d+)/.exec(spawnSync('cat', [`/proc/${pid}/status`], { encoding: 'utf8' }).stdout)?.[1] ?? 0,
    ) / 1024;
  const wgPid = Number(
    spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' })
      .stdout.trim()
      .split('\n')[0],
  );
  console.log(
    `memoria: plano de control ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB, wireguard-go ${rss(wgPid).toFixed(0)} MiB`,
  );
  push.close();
} finally {
  if (agent && agent.exitCode === null) {
    await new Promise<void>((r) => {
      agent!.once('exit', () => r());
      agent!.kill('SIGTERM');
    });
  }
  for (const pid of spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' })
    .stdout.split('\n')
    .filter(Boolean))
    process.kill(Number(pid), 'SIGTERM');
  await app.close();
  await database.close();
  if (scratch) {
    await scratch.admin.query(`drop database if exists ${scratch.name} with (force)`);
    await scratch.admin.end();
  }
  spawnSync('ip', ['netns', 'del', ns]);
  rmSync(`/var/run/wireguard/${iface}.sock`, { force: true });
  rmSync(dir, { recursive: true, force: true });
}
