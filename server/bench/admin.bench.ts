/**
 * `npm run bench:admin`: the manager console's lists and searches at scale — 50,000 customers,
 * 100,000 peers and 100,000 invoices — each reported as p50/p99 latency and as a ratio of its p99
 * to a primary-key lookup behind the same authentication (`GET /api/admin/verify-token`) measured in
 * the same run. Embedded PGlite by default; PostgreSQL with `DATABASE_URL=postgres://…` (a scratch
 * database is created beside it for the run and dropped afterwards; nothing else is touched).
 *
 * Requests go through `app.inject` one after another (the console's pattern: one operator, one
 * request at a time), with the search text varied per request so no answer is a repeat.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { migrateDatabase, openDatabase } from '../src/db/client.ts';
import { managers } from '../src/db/schema.ts';
import { hashPassword } from '../src/lib/crypto.ts';
import { seedDemoContent } from '../src/services/site/seed.ts';
import { createServer } from '../src/services/fleet/servers.ts';

const CUSTOMERS = Number(process.env.BENCH_CUSTOMERS ?? 50_000);
const PEERS = Number(process.env.BENCH_PEERS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200);

const dir = mkdtempSync(join(tmpdir(), 'vpn-bench-admin-'));
let scratch: { admin: pg.Client; name: string } | null = null;
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `vpn_bench_admin_${process.pid}`;
  await admin.query(`create database ${name}`);
  scratch = { admin, name };
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}
const config = loadConfig({
  ...process.env,
  DATABASE_URL: databaseUrl,
  DATA_DIR: dir,
  LOG_LEVEL: 'silent',
  SEED_DEMO: 'false',
});
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: join(dir, 'pglite') });
await migrateDatabase(database);
const { app, ctx } = await buildApp({ config, database, logger: false, scheduler: false });
await app.ready();
const db = ctx.db;

const t0 = Date.now();
await seedDemoContent(db, ctx.keys.encryption);
const serverIds: number[] = [];
for (let i = 1; i <= 4; i++) {
  const { server } = await createServer(db, ctx.keys.encryption, {
    name: `Bench ${i}`,
    endpoint: `vpn${i}.bench.example:51820`,
    ubication: ['La Habana', 'Miami', 'Madrid', 'Ciudad de México'][i - 1]!,
    allow_partys: i % 2 === 1,
  });
  serverIds.push(server.id);
}
const hash = await hashPassword('clave-del-banco');
await db.execute(sql`
  insert into customers (username, password_hash, alias, email, email_verified, active, created_at)
  select 'cliente' || lpad(i::text, 6, '0'), ${hash},
         case when i % 3 = 0 then 'alias' || i end,
         case when i % 2 = 0 then 'correo' || i || '@ejemplo.cu' end,
         i % 2 = 0, i % 50 <> 0, now() - (i % 365) * interval '1 day'
  from generate_series(1, ${CUSTOMERS}) as i`);
const servers = `{${serverIds.join(',')}}`;
await db.execute(sql`
  insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
                     preshared_key_enc, mirror_token_enc, mirror_token_hash, active, expires_at, created_at)
  select 1 + (i % ${CUSTOMERS}), (${servers}::int[])[1 + i % 4], 'equipo-' || i, i + 1,
         '10.64.0.0'::inet + (i + 1),
         encode(decode(md5('pk' || i) || md5('pk2' || i), 'hex'), 'base64'),
         'x', 'x', md5('mirror' || i) || md5('m2' || i), md5('mh' || i),
         i % 10 <> 0, now() + ((i % 60) - 10) * interval '1 day', now() - (i % 300) * interval '1 day'
  from generate_series(1, ${PEERS}) as i`);
await db.execute(sql`
  insert into invoices (customer_id, operation, peer_id, plan_id, plan_name, amount, gateway, status,
                        remote_id, created_at)
  select 1 + (i % ${CUSTOMERS}), 'add_plan', 1 + (i % ${PEERS}), p.id, p.name, p.price,
         case when i % 2 = 0 then 'qvapay' else 'sandbox' end,
         (array['pending','paid','paid','paid','canceled','expired','failed'])[1 + i % 7],
         md5('remote' || i), now() - (i % 400) * interval '1 day'
  from generate_series(1, ${PEERS}) as i, lateral (select id, name, price from plans order by id limit 1) p`);
await db.execute(sql`analyze`);
await db
  .insert(managers)
  .values({ username: 'bench-owner', passwordHash: await hashPassword('clave-del-banco'), role: 'owner' });
const login = await app.inject({
  method: 'POST',
  url: '/api/admin/login',
  payload: { username: 'bench-owner', password: 'clave-del-banco' },
});
const headers = { authorization: `Bearer ${login.json<{ access: string }>().access}` };
console.log(
  `Banco de la consola (${database.kind}): ${CUSTOMERS.toLocaleString('es-ES')} clientes, ` +
    `${PEERS.toLocaleString('es-ES')} peers, ${PEERS.toLocaleString('es-ES')} facturas ` +
    `(datos creados en ${((Date.now() - t0) / 1000).toFixed(1)} s); ${REQUESTS} peticiones por caso\n`,
);

const rand = (n: number) => 1 + Math.floor(Math.random() * n);
interface Result {
  name: string;
  p50: number;
  p99: number;
  status: number;
}

async function measure(name: string, url: (i: number) => string): Promise<Result | null> {
  const probe = await app.inject({ method: 'GET', url: url(0), headers });
  if (probe.statusCode === 404) return null;
  if (probe.statusCode !== 200) {
    console.log(`${name.padEnd(46)} respuesta ${probe.statusCode}: ${probe.body.slice(0, 120)}`);
    return { name, p50: NaN, p99: NaN, status: probe.statusCode };
  }
  for (let i = 0; i < 10; i++) await app.inject({ method: 'GET', url: url(i), headers });
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const start = process.hrtime.bigint();
    const res = await app.inject({ method: 'GET', url: url(i), headers });
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (res.statusCode !== 200) throw new Error(`${name}: ${res.statusCode} ${res.body.slice(0, 200)}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { name, p50: at(0.5), p99: at(0.99), status: 200 };
}

const cases: [string, (i: number) => string][] = [
  ['clave primaria (verify-token, base)', () => '/api/admin/verify-token'],
  ['clientes: primera página', () => '/api/admin/customers'],
  ['clientes: página 1000', () => '/api/admin/customers?page=1000&page_size=25'],
  [
    'clientes: buscar usuario',
    () => `/api/admin/customers?q=cliente${String(rand(CUSTOMERS)).padStart(6, '0')}`,
  ],
  ['clientes: buscar fragmento de correo', () => `/api/admin/customers?q=correo${rand(9999)}@`],
  ['clientes: buscar alias', () => `/api/admin/customers?q=alias${rand(CUSTOMERS)}`],
  ['clientes: detalle', () => `/api/admin/customers/${rand(CUSTOMERS)}`],
  ['peers: primera página', () => '/api/admin/peers'],
  ['peers: buscar nombre', () => `/api/admin/peers?q=equipo-${rand(PEERS)}`],
  ['peers: buscar dueño', () => `/api/admin/peers?q=cliente${String(rand(CUSTOMERS)).padStart(6, '0')}`],
  ['peers: buscar dirección', () => `/api/admin/peers?q=10.64.${rand(250)}.${rand(250)}`],
  [
    'peers: por servidor y por vencer',
    () => `/api/admin/peers?server=${serverIds[rand(4) - 1]}&state=expiring`,
  ],
  ['peers: deshabilitados', () => '/api/admin/peers?state=disabled'],
  ['facturas: primera página', () => '/api/admin/invoices'],
  ['facturas: pagadas, QvaPay', () => '/api/admin/invoices?state=paid&gateway=qvapay'],
  [
    'facturas: buscar usuario',
    () => `/api/admin/invoices?q=cliente${String(rand(CUSTOMERS)).padStart(6, '0')}`,
  ],
  [
    'facturas: buscar id remoto',
    () => `/api/admin/invoices?q=${'0123456789abcdef'[rand(16) - 1]}${rand(9)}a`,
  ],
  ['salas: primera página', () => '/api/admin/partys'],
  ['auditoría: primera página', () => '/api/admin/audit'],
];

const results: Result[] = [];
for (const [name, url] of cases) {
  const r = await measure(name, url);
  if (!r) {
    console.log(`${name.padEnd(46)} (ruta no disponible)`);
    continue;
  }
  results.push(r);
  if (r.status === 200)
    console.log(
      `${name.padEnd(46)} p50 ${r.p50.toFixed(2).padStart(7)} ms   p99 ${r.p99.toFixed(2).padStart(7)} ms`,
    );
}
const base = results[0]!;
console.log('\np99 frente a la búsqueda por clave primaria del mismo servidor (1.0 = igual de rápida):');
for (const r of results.slice(1))
  if (r.status === 200) console.log(`  ${r.name.padEnd(44)} ${(r.p99 / base.p99).toFixed(2)}×`);

await app.close();
await database.close();
if (scratch) {
  await scratch.admin.query(`drop database if exists ${scratch.name} with (force)`);
  await scratch.admin.end();
}
rmSync(dir, { recursive: true, force: true });
