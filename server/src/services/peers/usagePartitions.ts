import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/**
 * The hourly usage table's partitions, one per UTC day (migration 0030): created a few days ahead,
 * and dropped whole once their day is folded into peer_usage_daily. Rows for a day without its
 * partition sit in peer_usage_hourly_default; creating that day's partition moves them in first
 * (PostgreSQL refuses a partition whose rows are still in the default one).
 */
const DAY_MS = 86_400_000;
/** Advisory lock (class, object) that serializes partition changes between instances. */
const LOCK = sql`select pg_advisory_xact_lock(724102, 0)`;

const dayName = (day: Date) => `peer_usage_hourly_p${day.toISOString().slice(0, 10).replaceAll('-', '')}`;
const literal = (at: Date) => `'${at.toISOString()}'`;

async function exists(db: Pick<Db, 'execute'>, table: string): Promise<boolean> {
  const { rows } = await db.execute<{ t: string | null }>(sql`select to_regclass(${table})::text as t`);
  return rows[0]?.t != null;
}

/** Makes sure today's partition and the next `ahead` days' exist; returns how many were created. */
export async function ensureUsagePartitions(db: Db, now = new Date(), ahead = 2): Promise<number> {
  let created = 0;
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  for (let i = 0; i <= ahead; i++) {
    const from = new Date(today + i * DAY_MS);
    const to = new Date(from.getTime() + DAY_MS);
    const name = dayName(from);
    if (await exists(db, name)) continue;
    await db.transaction(async (tx) => {
      await tx.execute(LOCK);
      if (await exists(tx, name)) return;
      await tx.execute(
        sql.raw(`create table "${name}" (like peer_usage_hourly including defaults) with (fillfactor = 50)`),
      );
      await tx.execute(
        sql.raw(`with moved as (delete from peer_usage_hourly_default
          where hour >= ${literal(from)} and hour < ${literal(to)} returning *)
        insert into "${name}" select peer_id, server_id, hour, rx_bytes, tx_bytes from moved`),
      );
      await tx.execute(
        sql.raw(
          `alter table peer_usage_hourly attach partition "${name}" for values from (${literal(from)}) to (${literal(to)})`,
        ),
      );
      created++;
    });
  }
  return created;
}

/**
 * Folds every day partition that ends at or before `cutoff` into peer_usage_daily and drops it,
 * one day per transaction. Returns the hourly rows folded.
 */
export async function foldOldPartitions(db: Db, cutoff: Date): Promise<number> {
  const { rows } = await db.execute<{ name: string }>(sql`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = 'peer_usage_hourly'::regclass and c.relname ~ '^peer_usage_hourly_p[0-9]{8}$'
    order by c.relname`);
  let moved = 0;
  for (const { name } of rows) {
    const d = name.slice(-8);
    const day = new Date(`${d.slice(0, 4)}-${d.slice(4, 6)}-${d.slice(6, 8)}T00:00:00Z`);
    if (day.getTime() + DAY_MS > cutoff.getTime()) continue;
    moved += await db.transaction(async (tx) => {
      await tx.execute(LOCK);
      if (!(await exists(tx, name))) return 0;
      const folded = await tx.execute<{ n: number }>(
        sql.raw(`with upserted as (
          insert into peer_usage_daily (peer_id, server_id, day, rx_bytes, tx_bytes)
          select peer_id, (array_agg(server_id order by hour desc))[1], ${literal(day)}::timestamptz,
            sum(rx_bytes), sum(tx_bytes)
          from "${name}" group by peer_id
          on conflict (peer_id, day) do update set
            server_id = excluded.server_id,
            rx_bytes = peer_usage_daily.rx_bytes + excluded.rx_bytes,
            tx_bytes = peer_usage_daily.tx_bytes + excluded.tx_bytes
          returning 1)
        select (select count(*) from "${name}")::int as n`),
      );
      await tx.execute(sql.raw(`drop table "${name}"`));
      return Number(folded.rows[0]?.n ?? 0);
    });
  }
  return moved;
}
