import { sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { AgentPeerStats, PeerUsage } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { isDeadlock } from '../../lib/errors.ts';
import { ONLINE_WINDOW } from '../fleet/serverView.ts';
import { foldOldPartitions } from './usagePartitions.ts';
import { pruneDepartures } from './departures.ts';

/** Hours stay hourly this long; the scheduler then folds them into days. */
export const HOURLY_DAYS = 30;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Peers per transaction while recording a report. */
const BATCH = 5000;
/** Hourly rows moved per statement while compacting. */
const COMPACT_BATCH = 20_000;

export const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
export const dayOf = (at: Date) => new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);

/** Rows of a raw query (node-postgres and PGlite both answer `{ rows }`). */
async function rowsOf<T extends Record<string, unknown>>(
  db: Pick<Db, 'execute'>,
  query: ReturnType<typeof sql>,
): Promise<T[]> {
  return (await db.execute<T>(query)).rows;
}

/**
 * Records an agent's stats report: each listed peer's delta is added to its hour (and its
 * server's), its counters, handshake and endpoint replace the stored ones (rows that did not
 * change are not written). A reading's delta, given the last one stored for the peer:
 * - no reading yet: the peer is new on the interface (its counters started at zero): all of it;
 * - a reading from another server or under another key: a new peer on that interface: all of it;
 * - a stored row without counters (migrated from the old scheme): nothing, the reading is a baseline;
 * - a counter lower than before: the interface restarted (agent, wireguard-go, a peer removed and
 *   added again): what it counted since, i.e. the new values;
 * - else the difference.
 * Stats of peers that are not on this server (any more) are ignored. Reports of one server are
 * serialized across instances (a replaced connection may still be finishing one), so a delta is
 * never taken twice.
 */
export async function recordStats(
  db: Db,
  serverId: number,
  stats: AgentPeerStats[],
  now = new Date(),
): Promise<void> {
  const hour = hourOf(now).toISOString();
  for (let i = 0; i < stats.length; i += BATCH) {
    const batch = stats.slice(i, i + BATCH);
    await retryUnprepared(db, (prepared) =>
      retryDeadlock(() =>
        db.transaction(async (tx) => {
          await tx.execute(reportLock(serverId, prepared));
          const statement = reportStatement(serverId, batch, now);
          if (prepared)
            await tx._.session
              .prepareQuery(dialect.sqlToQuery(statement), undefined, REPORT, false)
              .execute();
          else await tx.execute(statement);
          await countMovedTails(tx, serverId, batch, hour);
        }),
      ),
    );
  }
}

/**
 * The report statement runs as a named prepared statement: node-postgres prepares it once per
 * connection (its text never changes: every value is a parameter; PGlite ignores the name), and
 * PostgreSQL plans it once and runs that generic plan for every report. Parsing, analysing and
 * planning its ten CTEs anew for every report was ~1.5 ms a report, ~6 µs a reading of
 * bench:fleet's 250-reading reports (issue 33). The generic plan is forced (`plan_cache_mode`, for
 * the report's transaction only): left to choose, PostgreSQL keeps planning it for each report
 * where its custom plans look cheaper (small tables: the hour's partition known at planning). Its
 * plan is the custom plans' (the readings are one JSON parameter, estimated at 100 rows whatever
 * their number), the hour's partition chosen when it starts; it is planned again when a partition
 * is added or dropped, or the tables are analysed.
 */
const REPORT = 'vpn_record_stats_report';
const dialect = new PgDialect();

/**
 * A report's first statement: its server's report lock, and this transaction's settings in the
 * same round trip. JIT off: the report statement's estimated cost (ten CTEs, a JSON input guessed
 * at 100 rows) crosses PostgreSQL's jit_above_cost, and LLVM then compiled it at every report,
 * ~460 ms of CPU for a statement that runs in a few (bench:fleet at 1,000,000 peers: 583 µs per
 * reading, 3,756 of the statement's 4,600 s in JIT); a report reads a few hundred rows by their
 * indexes, compiling never pays (guard: usageJit.test.ts). Prepared: its generic plan (REPORT).
 */
const reportLock = (serverId: number, prepared: boolean): SQL =>
  sql`select pg_advisory_xact_lock(724101, ${serverId}), set_config('jit', 'off', true)${
    prepared ? sql`, set_config('plan_cache_mode', 'force_generic_plan', true)` : sql``
  }`;
/**
 * Through a pooler in transaction mode that does not keep prepared statements (PgBouncer before
 * 1.21, or without `max_prepared_statements`), a connection's statement is not found on the next
 * server connection (26000), or one of another client is found there already (42P05): the batch,
 * whose transaction wrote nothing, runs again unprepared, and so does every later report through
 * that database handle.
 */
const unprepared = new WeakSet<Db>();
async function retryUnprepared(db: Db, run: (prepared: boolean) => Promise<void>): Promise<void> {
  if (unprepared.has(db)) return run(false);
  try {
    return await run(true);
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } } | null;
    const code = e?.code ?? e?.cause?.code;
    if (code !== '26000' && code !== '42P05') throw err;
    unprepared.add(db);
    return run(false);
  }
}

/**
 * The statement that stores one batch of a report (recordStats; exported for the test that reads
 * its plan). One statement per batch: the readings travel as one JSON parameter.
 */
export function reportStatement(serverId: number, batch: AgentPeerStats[], now: Date): SQL {
  const hour = hourOf(now).toISOString();
  const at = now.toISOString();
  const input = JSON.stringify(
    batch.map((s) => ({
      k: s.public_key,
      rx: s.rx_bytes,
      tx: s.tx_bytes,
      hs: s.latest_handshake || null,
      ep: s.endpoint,
      ...(s.final || s.since ? { f: true } : {}),
    })),
  );
  return sql`
  with input as (
    select * from jsonb_to_recordset(${input}::jsonb) as t(k text, rx bigint, tx bigint, hs bigint, ep text, f boolean)
  ), direct as (
    -- The peer this server carries with that key, read once (its id and its allowance).
    select i.*, p.id as pid, p.data_allowance is not null as plimited
    from input i left join peers p on p.public_key = i.k and p.server_id = ${serverId}
  ), matched as (
    select pid as id, plimited as limited, k, rx, tx, hs, ep, f from direct where pid is not null
    union all
    -- Else (L4) the peer whose last state this server reported under that key: a peer that has
    -- just moved away or changed its key, whose final counters the agent read before taking it
    -- off the interface; else (issue 33) the peer that was re-keyed away from that key here
    -- before any reading of it was stored: a pass read it just before the agent got the re-key,
    -- and the report reached the panel after the re-key's commit. Counted as that key's first
    -- reading (from zero) and stored, its last reading then counts from it (last readings
    -- themselves are countMovedTails's: several keys of one peer may leave in one frame). Not
    -- for a moved key (the same key now elsewhere): the new server's reading may be the stored
    -- one, and the last reading's since covers it.
    select p.id, p.data_allowance is not null, i.k, i.rx, i.tx, i.hs, i.ep, i.f
    from direct i join peers p on p.id = coalesce(
      (select s2.peer_id from peer_stats s2 where s2.server_id = ${serverId} and s2.public_key = i.k),
      (select dep.peer_id from peer_departures dep join peers p3 on p3.id = dep.peer_id
        where i.f is null and dep.server_id = ${serverId} and dep.public_key = i.k and p3.public_key <> i.k))
    where i.pid is null
  ), cur as (
    select m.id, m.limited, m.k, m.rx, m.tx, m.f,
      case when m.hs is null then null else to_timestamp(m.hs) end as hs, m.ep,
      s.peer_id is not null as stored, s.peer_id is not null and s.server_id = ${serverId} and s.public_key = m.k as same,
      s.rx_counter as s_rx, s.tx_counter as s_tx, s.latest_handshake as s_hs, s.endpoint as s_ep
    from matched m
    left join peer_stats s on s.peer_id = m.id
  ), d as (
    select *,
      case when not same then rx when s_rx is null or s_tx is null then 0
        when rx < s_rx or tx < s_tx then rx else rx - s_rx end as drx,
      case when not same then tx when s_rx is null or s_tx is null then 0
        when rx < s_rx or tx < s_tx then tx else tx - s_tx end as dtx
    from cur
  ), state as (
    -- A stored row is updated in place; an upsert would lock it first (a WAL record more per reading).
    update peer_stats ps set server_id = ${serverId}, public_key = d.k, rx_counter = d.rx,
      tx_counter = d.tx, latest_handshake = d.hs, endpoint = d.ep, reported_at = ${at}::timestamptz
    from d
    where d.stored and ps.peer_id = d.id and (not same or s_rx is distinct from rx
      or s_tx is distinct from tx or s_hs is distinct from hs or s_ep is distinct from ep)
    returning 1
  ), first_state as (
    insert into peer_stats as ps
      (peer_id, server_id, public_key, rx_counter, tx_counter, latest_handshake, endpoint, reported_at)
    select id, ${serverId}, k, rx, tx, hs, ep, ${at}::timestamptz from d where not d.stored
    on conflict (peer_id) do update set server_id = excluded.server_id,
      public_key = excluded.public_key, rx_counter = excluded.rx_counter,
      tx_counter = excluded.tx_counter, latest_handshake = excluded.latest_handshake,
      endpoint = excluded.endpoint, reported_at = excluded.reported_at
    returning 1
  ), departed as (
    -- A key with a reading stored here is counted from that reading on: its departure (a move
    -- or re-key, services/peers/departures.ts) no longer stands for unread traffic. Only
    -- first readings under a key and last ones look: a steady report never probes the table.
    delete from peer_departures dep using d
    where (not d.same or d.f) and dep.peer_id = d.id and dep.server_id = ${serverId} and dep.public_key = d.k
    returning 1
  ), hour_added as (
    -- The peer's hour so far, updated in place (see state); the hour's first reading inserts it.
    update peer_usage_hourly h set server_id = ${serverId},
      rx_bytes = h.rx_bytes + d.drx, tx_bytes = h.tx_bytes + d.dtx
    from d where h.peer_id = d.id and h.hour = ${hour}::timestamptz and (d.drx > 0 or d.dtx > 0)
    returning h.peer_id
  ), hourly as (
    insert into peer_usage_hourly as h (peer_id, server_id, hour, rx_bytes, tx_bytes)
    select id, ${serverId}, ${hour}::timestamptz, drx, dtx from d
    where (drx > 0 or dtx > 0) and id not in (select peer_id from hour_added)
    on conflict (peer_id, hour) do update set server_id = excluded.server_id,
      rx_bytes = h.rx_bytes + excluded.rx_bytes, tx_bytes = h.tx_bytes + excluded.tx_bytes
    returning 1
  ), allowance as (
    -- Traffic counts against the period's data allowance (services/peers/allowance.ts enforces it).
    update peers p set data_used = p.data_used + d.drx + d.dtx
    from d where d.limited and p.id = d.id and (d.drx > 0 or d.dtx > 0)
    returning 1
  ), per_server as (
    insert into server_usage_hourly as su (server_id, hour, rx_bytes, tx_bytes)
    select ${serverId}, ${hour}::timestamptz, sum(drx), sum(dtx) from d
    having sum(drx) > 0 or sum(dtx) > 0
    on conflict (server_id, hour) do update set
      rx_bytes = su.rx_bytes + excluded.rx_bytes, tx_bytes = su.tx_bytes + excluded.tx_bytes
    returning 1
  )
  select (select count(*) from state) + (select count(*) from first_state) + (select count(*) from hour_added)
    + (select count(*) from hourly) + (select count(*) from per_server)
    + (select count(*) from allowance) + (select count(*) from departed) as n`;
}

/** Attempts of one report batch that PostgreSQL picked as a deadlock's victim. */
const DEADLOCK_ATTEMPTS = 3;

/**
 * Runs a report's transaction again when PostgreSQL broke a deadlock by aborting it (40P01): its
 * row locks on `peers` (data_used) are taken in the join's order, so a statement that updates many
 * peers at once (the scheduler's expiry, an operator's SQL) can cross it. The aborted transaction
 * wrote nothing, so running it again counts each reading once; without it the batch was lost, and a
 * key's final reading (one that is never sent again) with it.
 */
async function retryDeadlock(run: () => Promise<void>): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await run();
    } catch (err) {
      if (attempt >= DEADLOCK_ATTEMPTS || !isDeadlock(err)) throw err;
    }
  }
}

/**
 * The last report of a key that left this server, when the statement above could not match it:
 * - moved (issue 24): the peer's new server reported it first, so the stored reading is that
 *   server's. The agent sent the key's counters at its previous read (`since`); what it carried
 *   since is added. A last report without `since` has nothing to count against: ignored.
 * - re-keyed (issue 33): the peer changed its key again before any stats pass read this one (two
 *   re-keys within one interval), so no reading of it was ever stored: its counters started at zero
 *   on this interface, all of it is added (less `since` if the agent had one).
 * Added to the peer's hour, its allowance and this server's hour; the stored reading is left as is.
 * Only a key that did leave this server counts (a `peer_departures` row, written by every move and
 * re-key; issue 31), and only once: the row is consumed. A key this server still carries, or whose
 * last reading here is stored, was counted above and is left alone here.
 */
async function countMovedTails(
  tx: Pick<Db, 'execute'>,
  serverId: number,
  batch: AgentPeerStats[],
  hour: string,
): Promise<void> {
  const finals = batch.filter((s) => s.since || s.final);
  if (finals.length === 0) return;
  const input = JSON.stringify(
    finals.map((s) => ({
      k: s.public_key,
      rx: s.rx_bytes,
      tx: s.tx_bytes,
      srx: s.since?.rx_bytes ?? null,
      stx: s.since?.tx_bytes ?? null,
    })),
  );
  await tx.execute(sql`
    with input as (
      select * from jsonb_to_recordset(${input}::jsonb) as t(k text, rx bigint, tx bigint, srx bigint, stx bigint)
    ), d as (
      select p.id, p.data_allowance is not null as limited, i.k,
        case when i.srx is null or i.rx < i.srx or i.tx < i.stx then i.rx else i.rx - i.srx end as drx,
        case when i.srx is null or i.rx < i.srx or i.tx < i.stx then i.tx else i.tx - i.stx end as dtx
      from input i
      -- Only a key that did leave this server (issue 31): a compromised node must not raise
      -- another peer's data_used by naming its key.
      join peer_departures dep on dep.server_id = ${serverId} and dep.public_key = i.k
      join peers p on p.id = dep.peer_id
      where not exists (select 1 from peer_stats s where s.server_id = ${serverId} and s.public_key = i.k)
        and ((p.public_key = i.k and p.server_id is distinct from ${serverId} and i.srx is not null)
          or p.public_key <> i.k)
    ), consumed as (
      delete from peer_departures dep using d
      where dep.peer_id = d.id and dep.server_id = ${serverId} and dep.public_key = d.k
      returning 1
    ), per_peer as (
      -- Several keys of one peer can leave in one pass (quick re-keys): one row per peer, since
      -- an upsert or update reaches a row once per statement.
      select id, bool_or(limited) as limited, sum(drx) as drx, sum(dtx) as dtx from d group by id
    ), hourly as (
      insert into peer_usage_hourly as h (peer_id, server_id, hour, rx_bytes, tx_bytes)
      select id, ${serverId}, ${hour}::timestamptz, drx, dtx from per_peer where drx > 0 or dtx > 0
      on conflict (peer_id, hour) do update set
        rx_bytes = h.rx_bytes + excluded.rx_bytes, tx_bytes = h.tx_bytes + excluded.tx_bytes
      returning 1
    ), allowance as (
      update peers p set data_used = p.data_used + g.drx + g.dtx
      from per_peer g where g.limited and p.id = g.id and (g.drx > 0 or g.dtx > 0)
      returning 1
    ), per_server as (
      insert into server_usage_hourly as su (server_id, hour, rx_bytes, tx_bytes)
      select ${serverId}, ${hour}::timestamptz, sum(drx), sum(dtx) from d
      having sum(drx) > 0 or sum(dtx) > 0
      on conflict (server_id, hour) do update set
        rx_bytes = su.rx_bytes + excluded.rx_bytes, tx_bytes = su.tx_bytes + excluded.tx_bytes
      returning 1
    )
    select (select count(*) from hourly) + (select count(*) from allowance)
      + (select count(*) from per_server) + (select count(*) from consumed) as n`);
}

/**
 * Folds hourly rows of days older than HOURLY_DAYS into daily rows, and forgets departures too old to
 * wait for their last reading (departures.ts). Whole day partitions are
 * folded and dropped (usagePartitions.ts); what is left (rows in the default partition) moves in
 * batches, each one statement (delete … returning into an upsert): concurrent runs on several
 * instances cannot move an hour twice. Returns the hourly rows moved.
 */
export async function compactUsage(db: Db, now = new Date()): Promise<number> {
  const cutoff = dayOf(new Date(now.getTime() - HOURLY_DAYS * DAY_MS));
  await pruneDepartures(db);
  let moved = await foldOldPartitions(db, cutoff);
  for (;;) {
    const [row] = await rowsOf<{ n: number }>(
      db,
      sql`
      with moved as (
        delete from peer_usage_hourly where (peer_id, hour) in (
          select peer_id, hour from peer_usage_hourly where hour < ${cutoff.toISOString()}::timestamptz
          limit ${COMPACT_BATCH}
        )
        returning *
      ), upserted as (
        insert into peer_usage_daily (peer_id, server_id, day, rx_bytes, tx_bytes)
        select peer_id, (array_agg(server_id order by hour desc))[1], date_trunc('day', hour, 'UTC'),
          sum(rx_bytes), sum(tx_bytes)
        from moved group by peer_id, date_trunc('day', hour, 'UTC')
        on conflict (peer_id, day) do update set
          server_id = excluded.server_id,
          rx_bytes = peer_usage_daily.rx_bytes + excluded.rx_bytes,
          tx_bytes = peer_usage_daily.tx_bytes + excluded.tx_bytes
        returning 1
      )
      select (select count(*) from moved)::int as n`,
    );
    const n = Number(row?.n ?? 0);
    moved += n;
    if (n < COMPACT_BATCH) return moved;
  }
}

/** A peer's traffic since `from` (hours in full; days older than the hourly window from their day). */
export async function usageSince(
  db: Db,
  peerIds: number[],
  from: Date,
): Promise<Map<number, { rx: number; tx: number }>> {
  const out = new Map<number, { rx: number; tx: number }>();
  if (peerIds.length === 0) return out;
  const ids = sql.join(
    peerIds.map((id) => sql`${id}`),
    sql`, `,
  );
  const rows = await rowsOf<{ peer_id: number; rx: string; tx: string }>(
    db,
    sql`
    select peer_id, sum(rx_bytes)::text as rx, sum(tx_bytes)::text as tx from (
      select peer_id, rx_bytes, tx_bytes from peer_usage_hourly
      where peer_id in (${ids}) and hour >= ${hourOf(from).toISOString()}::timestamptz
      union all
      select peer_id, rx_bytes, tx_bytes from peer_usage_daily
      where peer_id in (${ids}) and day >= ${dayOf(from).toISOString()}::timestamptz
    ) u group by peer_id`,
  );
  for (const r of rows) out.set(Number(r.peer_id), { rx: Number(r.rx), tx: Number(r.tx) });
  return out;
}

/** A peer's traffic per UTC day for the `days` days ending today (oldest first, zeros included). */
export async function dailyUsage(
  db: Db,
  peerId: number,
  days = 30,
  now = new Date(),
): Promise<{ day: string; rx: number; tx: number }[]> {
  const first = dayOf(new Date(now.getTime() - (days - 1) * DAY_MS));
  const rows = await rowsOf<{ day: string; rx: string; tx: string }>(
    db,
    sql`
    select to_char(d at time zone 'UTC', 'YYYY-MM-DD') as day, sum(rx_bytes)::text as rx, sum(tx_bytes)::text as tx from (
      select date_trunc('day', hour, 'UTC') as d, rx_bytes, tx_bytes from peer_usage_hourly
      where peer_id = ${peerId} and hour >= ${first.toISOString()}::timestamptz
      union all
      select day, rx_bytes, tx_bytes from peer_usage_daily
      where peer_id = ${peerId} and day >= ${first.toISOString()}::timestamptz
    ) u group by 1`,
  );
  const byDay = new Map(rows.map((r) => [r.day, r]));
  const out: { day: string; rx: number; tx: number }[] = [];
  for (let i = 0; i < days; i++) {
    const day = new Date(first.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    const r = byDay.get(day);
    out.push({ day, rx: Number(r?.rx ?? 0), tx: Number(r?.tx ?? 0) });
  }
  return out;
}

/**
 * A peer's current period: where it began (its latest plan grant — purchase, renewal, manual
 * grant — else its creation; a renewal starts a new period and a new allowance), its traffic since
 * then from the customer's side (upload = the server's rx), its allowance in bytes (`total`,
 * 0 = unlimited) and what it used of it (services/peers/allowance.ts).
 */
export async function periodUsage(
  db: Db,
  peerId: number,
): Promise<{ since: Date; upload: number; download: number; total: number; used: number }> {
  const [row] = await rowsOf<{
    at: string | Date | null;
    allowance: string | number | null;
    used: string | number | null;
  }>(
    db,
    sql`select coalesce((select max(created_at) from plan_history where peer_id = p.id), p.created_at) as at,
      p.data_allowance as allowance, p.data_used as used
      from peers p where p.id = ${peerId}`,
  );
  const since = row?.at ? new Date(row.at) : new Date(0);
  const u = (await usageSince(db, [peerId], since)).get(peerId);
  const total = row?.allowance == null ? 0 : Number(row.allowance);
  return {
    since,
    upload: u?.rx ?? 0,
    download: u?.tx ?? 0,
    total,
    used: total ? Math.min(Number(row!.used), total) : 0,
  };
}

/** The peer details' usage: online, last handshake, the current period and the last 30 days. */
export async function peerUsage(db: Db, peerId: number, now = new Date()): Promise<PeerUsage> {
  // One after another: the console's peer detail also runs inside a transaction (one connection).
  const [state] = await rowsOf<{ hs: string | Date | null; online: boolean }>(
    db,
    sql`select latest_handshake as hs, coalesce(latest_handshake > now() - ${ONLINE_WINDOW}, false) as online
      from peer_stats where peer_id = ${peerId}`,
  );
  const period = await periodUsage(db, peerId);
  const days = await dailyUsage(db, peerId, 30, now);
  return {
    online: state?.online ?? false,
    last_handshake: state?.hs ? new Date(state.hs).toISOString() : null,
    period: {
      since: period.since.toISOString(),
      upload: period.upload,
      download: period.download,
      allowance: period.total || null,
      used: period.used,
    },
    days_from: days[0]!.day,
    upload: days.map((d) => d.rx),
    download: days.map((d) => d.tx),
  };
}
