/**
 * A server's outage history (issue 34): the times its agent was away, for the Resumen charts.
 * One statement when an agent's connection closes and one at its hello, never per heartbeat.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { AGENT_OFFLINE_AFTER_MS } from './servers.ts';

/**
 * The agent's connection closed: the server is marked offline (only while `seenAt` is still what
 * this connection wrote, so a replaced socket closing late changes nothing) and an outage opens at
 * `at` unless one is open already. Returns whether the server was marked.
 */
export async function agentGone(db: Db, serverId: number, seenAt: Date, at: Date): Promise<boolean> {
  const { rows } = await db.execute<{ n: number }>(sql`
    with marked as (
      update servers set last_seen_at = null, disconnected_at = ${at.toISOString()}::timestamptz
      where id = ${serverId} and last_seen_at = ${seenAt.toISOString()}::timestamptz
      returning id
    ), opened as (
      insert into server_outages (server_id, started_at)
      select id, ${at.toISOString()}::timestamptz from marked
      on conflict (server_id) where ended_at is null do nothing
      returning 1
    )
    select (select count(*) from marked)::int as n`);
  return Number(rows[0]?.n ?? 0) > 0;
}

/**
 * The agent said hello at `at` (called after the hello marked it seen, so a late close of its
 * previous connection, which only matches the old last_seen_at, can no longer open one): the open
 * outage ends then. With none open but `lastSeen` (last_seen_at when this connection signed in)
 * older than the liveness window, its instance died without closing anything: the outage
 * [lastSeen, at] is recorded closed.
 */
export async function agentBack(db: Db, serverId: number, lastSeen: Date | null, at: Date): Promise<void> {
  const now = sql`${at.toISOString()}::timestamptz`;
  const crashed = lastSeen !== null && at.getTime() - lastSeen.getTime() >= AGENT_OFFLINE_AFTER_MS;
  await db.execute(sql`
    with closed as (
      update server_outages set ended_at = greatest(started_at, ${now})
      where server_id = ${serverId} and ended_at is null
      returning 1
    )
    insert into server_outages (server_id, started_at, ended_at)
    select ${serverId}, ${lastSeen?.toISOString() ?? null}::timestamptz, ${now}
    where ${crashed}::boolean and not exists (select 1 from closed)`);
}

/** Outages overlapping [from, to) per server, oldest first: one grouped query over the index. */
export async function outagesIn(
  db: Db,
  from: Date,
  to: Date,
): Promise<Map<number, { from: string; to: string | null }[]>> {
  const { rows } = await db.execute<{ server_id: number; started_at: string; ended_at: string | null }>(sql`
    select server_id,
      to_char(started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as started_at,
      to_char(ended_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ended_at
    from server_outages
    where started_at < ${to.toISOString()}::timestamptz
      and (ended_at is null or ended_at > ${from.toISOString()}::timestamptz)
    order by server_id, started_at`);
  const by = new Map<number, { from: string; to: string | null }[]>();
  for (const r of rows) {
    const id = Number(r.server_id);
    const list = by.get(id) ?? [];
    list.push({ from: r.started_at, to: r.ended_at });
    by.set(id, list);
  }
  return by;
}
