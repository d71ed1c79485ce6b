/**
 * `npm run bench`: HTTP throughput at 100 connections (autocannon), each route as a ratio to a
 * trivial route (`/healthz`) of the same server measured in the same run, so the numbers compare
 * across machines. Runs on embedded PGlite (or PostgreSQL with DATABASE_URL).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openDatabase } from '../src/db/client.ts';
import { customers } from '../src/db/schema.ts';
import { hashPassword, verifyPassword } from '../src/lib/crypto.ts';
import { seedDemoContent } from '../src/services/site/seed.ts';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 100);
const DURATION = Number(process.env.BENCH_SECONDS ?? 8);

const dir = mkdtempSync(join(tmpdir(), 'vpn-bench-'));
const config = loadConfig({ ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' });
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: join(dir, 'pglite') });
await migrateDatabase(database);
const unlimited = { max: 1e9, windowSeconds: 60 };
const { app, ctx } = await buildApp({
  config,
  database,
  logger: false,
  rateLimits: {
    loginPerIp: unlimited,
    loginPerUsername: unlimited,
    refreshPerIp: unlimited,
    registerPerIp: unlimited,
  },
});
await seedDemoContent(ctx.db, ctx.keys.encryption);
await ctx.db
  .insert(customers)
  .values({ username: 'bench', passwordHash: await hashPassword('clave-de-bench') })
  .onConflictDoNothing();
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

async function run(name: string, path: string, opts: Partial<autocannon.Options> = {}): Promise<number> {
  const result = await autocannon({
    url: base + path,
    connections: CONNECTIONS,
    duration: DURATION,
    ...opts,
  });
  const errors = result.errors + result.non2xx;
  console.log(
    `${name.padEnd(28)} ${result.requests.average.toFixed(0).padStart(7)} req/s  p50 ${result.latency.p50} ms  p99 ${result.latency.p99} ms${errors ? `  (${errors} errores)` : ''}`,
  );
  return result.requests.average;
}

console.log(`Banco HTTP: ${CONNECTIONS} conexiones, ${DURATION} s por ruta, ${database.kind}\n`);
const trivial = await run('GET /healthz (base)', '/healthz');
const plans = await run('GET /api/client/plans', '/api/client/plans');
// Every login costs one scrypt (32 MiB, ~90 ms of one core) by design: measure it longer.
const login = await run('POST /api/client/login', '/api/client/login', {
  duration: DURATION * 3,
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ username: 'bench', password: 'clave-de-bench' }),
});
// The floor for login: bare password checks, as many in flight as the thread pool runs.
const stored = await hashPassword('clave-de-bench');
let checks = 0;
const until = Date.now() + DURATION * 1000;
await Promise.all(
  Array.from({ length: 8 }, async () => {
    while (Date.now() < until) {
      await verifyPassword('clave-de-bench', stored);
      checks++;
    }
  }),
);
const scryptRate = checks / DURATION;
console.log(`${'scrypt verify (sin HTTP)'.padEnd(28)} ${scryptRate.toFixed(1).padStart(7)} /s`);

console.log('\nRatios frente a la ruta trivial del mismo servidor:');
console.log(`  plans / base = ${(plans / trivial).toFixed(3)}`);
console.log(`  login / base = ${(login / trivial).toFixed(4)}  (scrypt de 32 MiB por intento, a propósito)`);
console.log(
  `  login / scrypt sin HTTP = ${(login / scryptRate).toFixed(3)}  (1.0 = el login no añade coste al hash)`,
);

await app.close();
await database.close();
rmSync(dir, { recursive: true, force: true });
