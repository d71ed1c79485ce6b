/**
 * `npm run bench:usage`: how much the usage store grows per day at 50,000 peers whose agents report
 * every minute, against the old scheme (one row per peer per report, `peer_usage` of migration 0000)
 * measured in the same run on the same database. Embedded PGlite by default; PostgreSQL with
 * `DATABASE_URL=postgres://…` (a scratch database is created beside it and dropped afterwards).
 *
 * New scheme: real reports go through `recordStats` (the hub's code path). The first
 * USAGE_BENCH_FULL_MINUTES minutes (default 10) get a report every minute with every peer moving
 * traffic, so the in-place updates of an hour's row (and any bloat they leave) are measured; the
 * rest of the day gets one report per hour, which yields the same rows (one per peer per hour).
 * USAGE_BENCH_FULL_MINUTES=1440 simulates the whole day minute by minute (slow: 72 M readings).
 * Then 31 days later the scheduler's compaction folds the day into daily rows: the lasting growth.
 *
 * Old scheme: the same full-rate minutes are inserted as rows (one per peer per report, in bulk),
 * and their bytes per row scaled to the day's 1,440 reports: an extrapolation, and the output says
 * so (the new scheme's figures are measured rows of a whole simulated day).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import type { AgentPeerStats } from '@vpn/contracts';
import { migrateDatabase, openDatabase, type Database } from '../src/db/client.ts';
import { compactUsage, recordStats } from '../src/services/peers/usage.ts';

const PEERS = Number(process.env.USAGE_BENCH_PEERS ?? 50_000);
const SERVERS = Number(process.env.USAGE_BENCH_SERVERS ?? 10);
const FULL_MINUTES = Math.min(1440, Math.max(1, Number(process.env.USAGE_BENCH_FULL_MINUTES ?? 10)));
const H = 3_600_000;
const D = 24 * H;

const dir = mkdtempSync(join(tmpdir(), 'vpn-bench-usage-'));
let scratch: { admin: pg.Client; name: string } | null = null;
let databaseUrl: string | undefined;
if (process.env.DATABASE_URL) {
  const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await admin.connect();
  const name = `vpn_bench_usage_${process.pid}`;
  await admin.query(`create database ${name}`);
  scratch = { admin, name };
  const url = new URL(process.env.DATABASE_URL);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}
const database: Database = await openDatabase({ databaseUrl, dataDir: join(dir, 'pglite') });
await migrateDatabase(database);
const db = database.db;
const rows = async <T>(q: ReturnType<typeof sql>) => ((await db.execute(q)) as unknown as { rows: T[] }).rows;

/** Bytes of a table with its indexes, and its live rows. */
async function size(table: string): Promise<{ bytes: number; rows: number }> {
  const [r] = await rows<{ bytes: string; n: string }>(
    sql`select pg_total_relation_size(${table}::regclass)::text as bytes, (select count(*) from ${sql.raw(table)})::text as n`,
  );
  return { bytes: Number(r!.bytes), rows: Number(r!.n) };
}

const fmtN = (n: number) => Math.round(n).toLocaleString('es-ES');
const fmtB = (n: number) =>
  n >= 1e9
    ? `${(n / 1e9).toFixed(2)} GB`
    : n >= 1e6
      ? `${(n / 1e6).toFixed(1)} MB`
      : `${(n / 1e3).toFixed(1)} kB`;

// Fleet: SERVERS servers, PEERS peers spread over them (one customer owns them all: irrelevant here).
await db.execute(sql`
  insert into servers (name, host, ubication, public_key, private_key_enc, agent_token_hash)
  select 'Bench ' || i, 'vpn' || i || '.bench.example', 'X', md5('spk' || i), 'x', md5('tok' || i)
  from generate_series(1, ${SERVERS}) as i`);
await db.execute(sql`insert into customers (username, password_hash) values ('bench', 'x')`);
await db.execute(sql`
  insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
                     preshared_key_enc, mirror_token_enc, mirror_token_hash)
  select (select min(id) from customers), (select min(id) from servers) + i % ${SERVERS}, 'p' || i, i + 1,
         '10.64.0.0'::inet + (i + 1), encode(decode(md5('pk' || i) || md5('pk2' || i), 'hex'), 'base64'),
         'x', 'x', md5('mirror' || i), md5('mirror-hash' || i)
  from generate_series(1, ${PEERS}) as i`);
const fleet = await rows<{ id: number; server_id: number; public_key: string }>(
  sql`select id, server_id, public_key from peers order by id`,
);
const byServer = new Map<number, { key: string; i: number }[]>();
fleet.forEach((p, i) => {
  const list = byServer.get(p.server_id) ?? [];
  list.push({ key: p.public_key, i });
  byServer.set(p.server_id, list);
});

console.log(
  `Banco del almacén de uso (${database.kind}): ${fmtN(PEERS)} peers en ${SERVERS} servidores, un informe por minuto; ` +
    `${FULL_MINUTES} min simulados minuto a minuto, el resto del día una vez por hora\n`,
);

// --- New scheme -------------------------------------------------------------------------------
const day0 = Date.UTC(2026, 0, 5);
let minuteReports = 0;
let readings = 0;
const t0 = Date.now();
/** Every peer moved ~20 kB down and ~2 kB up since the last report (counters only grow). */
async function report(minute: number): Promise<void> {
  const at = new Date(day0 + minute * 60_000);
  for (const [serverId, list] of byServer) {
    const stats: AgentPeerStats[] = list.map(({ key, i }) => ({
      public_key: key,
      rx_bytes: (minute + 1) * 20_000 + i,
      tx_bytes: (minute + 1) * 2_000 + i,
      latest_handshake: Math.floor(at.getTime() / 1000) - 30,
      endpoint: `198.51.100.${i % 250}:${10_000 + (i % 50_000)}`,
    }));
    await recordStats(db, serverId, stats, at);
    readings += stats.length;
  }
  minuteReports++;
}
for (let minute = 0; minute < 24 * 60; minute++) {
  if (minute < FULL_MINUTES || minute % 60 === 0) await report(minute);
}
const tookS = (Date.now() - t0) / 1000;
const hourly = await size('peer_usage_hourly');
const stats = await size('peer_stats');
const serverHourly = await size('server_usage_hourly');
// 31 days later the scheduler folds the day into daily rows.
const moved = await compactUsage(db, new Date(day0 + 31 * D));
const daily = await size('peer_usage_daily');
const hourlyAfter = await size('peer_usage_hourly');

// --- Old scheme (baseline) --------------------------------------------------------------------
await db.execute(sql`
  create table peer_usage_old (
    id bigserial primary key,
    peer_id integer not null references peers(id) on delete cascade,
    server_id integer not null references servers(id) on delete cascade,
    rx_bytes bigint not null, tx_bytes bigint not null,
    latest_handshake timestamp with time zone, endpoint text,
    sampled_at timestamp with time zone default now() not null)`);
await db.execute(sql`create index peer_usage_old_peer_time on peer_usage_old (peer_id, sampled_at)`);
await db.execute(sql`create index peer_usage_old_server_time on peer_usage_old (server_id, sampled_at)`);
const t1 = Date.now();
for (let m = 0; m < FULL_MINUTES; m++)
  await db.execute(sql`
    insert into peer_usage_old (peer_id, server_id, rx_bytes, tx_bytes, latest_handshake, endpoint, sampled_at)
    select id, server_id, 20000, 2000, ${new Date(day0 + m * 60_000).toISOString()}::timestamptz - interval '30 seconds',
           '198.51.100.' || (id % 250) || ':' || (10000 + id % 50000), ${new Date(day0 + m * 60_000).toISOString()}::timestamptz
    from peers`);
const old = await size('peer_usage_old');
const oldTookS = (Date.now() - t1) / 1000;
const oldRowsDay = PEERS * 24 * 60;
const oldBytesDay = (old.bytes / old.rows) * oldRowsDay;

console.log(
  `Esquema nuevo: ${fmtN(minuteReports)} informes de ${fmtN(PEERS)} peers (${fmtN(readings)} lecturas) en ${tookS.toFixed(0)} s ` +
    `(${fmtN(readings / tookS)} lecturas/s)`,
);
console.log(`Esquema antiguo: ${fmtN(old.rows)} filas insertadas en ${oldTookS.toFixed(0)} s\n`);
const line = (what: string, r: number, b: number, note: string) =>
  console.log(`${what.padEnd(44)} ${fmtN(r).padStart(12)} filas  ${fmtB(b).padStart(10)}   ${note}`);
console.log('Crecimiento por día simulado (tabla + índices):');
line(
  'antiguo: peer_usage (una fila por informe)',
  oldRowsDay,
  oldBytesDay,
  `para siempre (EXTRAPOLADO: ${FULL_MINUTES} min medidos ×${1440 / FULL_MINUTES})`,
);
line('nuevo: peer_usage_hourly', hourly.rows, hourly.bytes, '30 días, luego se pliega');
line(
  'nuevo: peer_usage_daily (tras 30 días)',
  daily.rows,
  daily.bytes,
  `para siempre (${fmtN(moved)} horas plegadas)`,
);
line('nuevo: server_usage_hourly', serverHourly.rows, serverHourly.bytes, 'para siempre');
line('nuevo: peer_stats (una fila por peer)', stats.rows, stats.bytes, 'fija, no crece');
const steady = daily.bytes + serverHourly.bytes;
console.log(
  `\nCon 30 días retenidos por hora: antiguo ${fmtB(oldBytesDay * 30)} por mes y creciendo (extrapolado); nuevo ${fmtB(hourly.bytes * 30)} ` +
    `en la ventana por hora, más ${fmtB(steady)} por día que se queda.`,
);
console.log(
  `Por día (el esquema antiguo, extrapolado de ${FULL_MINUTES} min medidos): filas ${fmtN(oldRowsDay)} → ${fmtN(hourly.rows)} (×${(oldRowsDay / hourly.rows).toFixed(0)} menos), ` +
    `bytes ${fmtB(oldBytesDay)} → ${fmtB(hourly.bytes)} (×${(oldBytesDay / hourly.bytes).toFixed(0)} menos); ` +
    `tras el plegado ${fmtB(steady)} por día (×${(oldBytesDay / steady).toFixed(0)} menos). Horas por plegar: ${hourlyAfter.rows}.`,
);

await database.close();
if (scratch) {
  await scratch.admin.query(`drop database if exists ${scratch.name} with (force)`);
  await scratch.admin.end();
}
rmSync(dir, { recursive: true, force: true });
