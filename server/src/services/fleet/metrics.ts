import { asc, sql } from 'drizzle-orm';
import { fleetMsg, type AdminMetrics, type MetricsSeries } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, invoices, peers, servers } from '../../db/schema.ts';
import { badRequest } from '../../lib/errors.ts';
import { ONLINE_WINDOW } from './serverView.ts';
import { offlineSince } from './nodeHealth.ts';
import { outagesIn } from './outages.ts';
import { AGENT_OFFLINE_AFTER_MS, agentOnline, peerCountOfServer } from './servers.ts';

export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

/** Rows of a raw query (node-postgres and PGlite both answer `{ rows }`). */
async function rowsOf<T extends Record<string, unknown>>(
  db: Db,
  query: ReturnType<typeof sql>,
): Promise<T[]> {
  return (await db.execute<T>(query)).rows;
}

/** [from, to] as UTC days: defaults to the last 30 days; at most MAX_RANGE_DAYS; Spanish errors. */
export function resolveRange(from?: string, to?: string, now = new Date()): { from: string; to: string } {
  const parse = (s: string) => {
    const d = new Date(`${s}T00:00:00Z`);
    if (Number.isNaN(d.getTime()) || isoDay(d) !== s) throw badRequest(fleetMsg.rangeInvalid);
    return d;
  };
  const end = to ? parse(to) : new Date(`${isoDay(now)}T00:00:00Z`);
  const start = from ? parse(from) : new Date(end.getTime() - 29 * DAY_MS);
  if (start > end) throw badRequest(fleetMsg.rangeOrder);
  if ((end.getTime() - start.getTime()) / DAY_MS + 1 > MAX_RANGE_DAYS)
    throw badRequest(fleetMsg.rangeTooLong);
  return { from: isoDay(start), to: isoDay(end) };
}

/** The console's headline numbers (Resumen); revenue over the last 30 days only when asked for. */
export async function headlineMetrics(db: Db, withRevenue: boolean): Promise<AdminMetrics> {
  const [row] = await db
    .select({
      customers: sql<number>`(select count(*)::int from ${customers})`,
      peers: sql<number>`(select count(*)::int from ${peers})`,
      active: sql<number>`(select count(*)::int from ${peers} where active and (expires_at is null or expires_at > now()))`,
      servers: sql<number>`(select count(*)::int from ${servers})`,
      online: sql<number>`(select count(*)::int from ${servers} where last_seen_at > now() - (${AGENT_OFFLINE_AFTER_MS} * interval '1 millisecond'))`,
      paid: sql<number>`(select count(*)::int from ${invoices} where status = 'paid' and paid_at > now() - interval '30 days')`,
      revenue: sql<string>`(select coalesce(sum(amount), 0)::text from ${invoices} where status = 'paid' and paid_at > now() - interval '30 days')`,
      concurrent: sql<number>`(select count(*)::int from ${peers} where concurrent_use_seen_at is not null)`,
    })
    .from(sql`(select 1) as one`);
  return {
    customers: row!.customers,
    peers: row!.peers,
    active_peers: row!.active,
    servers: row!.servers,
    servers_online: row!.online,
    concurrent_use_peers: row!.concurrent,
    ...(withRevenue ? { invoices_paid_30d: row!.paid, revenue_usd_30d: Number(row!.revenue) } : {}),
  };
}

type DayRow = {
  day: string;
  revenue: string;
  new_customers: number;
  active_peers: number;
};

/**
 * The Resumen charts' series, one value per UTC day (generate_series gives days with nothing
 * their zero). Each series is one grouped pass over an indexed column, never a query per day:
 * - revenue: paid invoices by paid day;
 * - new customers: by creation day (customers_created index);
 * - active peers at the end of each day: peers whose validity covered it, from creation (+1) and
 *   expiry (−1) events summed up to that day. It follows plan periods, not the manual on/off
 *   switch, which keeps no history;
 * - per server: its agent's outage now (offline_since) and its outages overlapping the range
 *   (server_outages, one grouped query), peers now, peers online now (a handshake within 3 minutes, from agents' reports)
 *   and daily traffic (rx/tx) from server_usage_hourly.
 */
export async function metricsSeries(
  db: Db,
  range: { from: string; to: string },
  withRevenue: boolean,
): Promise<MetricsSeries> {
  const { from, to } = range;
  const days = sql`generate_series(${from}::date, ${to}::date, interval '1 day')`;
  const rows = await rowsOf<DayRow>(
    db,
    sql`
    with d as (select g::date as day from ${days} as g),
    rev as (
      select (paid_at at time zone 'UTC')::date as day, sum(amount) as amount from invoices
      where status = 'paid' and paid_at >= ${from}::date and paid_at < ${to}::date + 1
      group by 1),
    cus as (
      select (created_at at time zone 'UTC')::date as day, count(*)::int as n from customers
      where created_at >= ${from}::date and created_at < ${to}::date + 1
      group by 1),
    ev as (
      select (created_at at time zone 'UTC')::date as day, count(*)::int as n from peers
      where created_at < ${to}::date + 1 group by 1
      union all
      select (expires_at at time zone 'UTC')::date, -count(*)::int from peers
      where expires_at < ${to}::date + 1 group by 1),
    evd as (select day, sum(n)::int as n from ev group by day),
    base as (select coalesce(sum(n), 0)::int as n from evd where day < ${from}::date)
    select to_char(d.day, 'YYYY-MM-DD') as day,
      coalesce(rev.amount, 0)::text as revenue,
      coalesce(cus.n, 0)::int as new_customers,
      ((select n from base) + coalesce(sum(coalesce(evd.n, 0)) over (order by d.day), 0))::int as active_peers
    from d
    left join rev on rev.day = d.day
    left join cus on cus.day = d.day
    left join evd on evd.day = d.day
    order by d.day`,
  );
  const dayIndex = new Map(rows.map((r, i) => [r.day, i]));

  const serverRows = await db
    .select({
      server: servers,
      peers: peerCountOfServer,
    })
    .from(servers)
    .orderBy(asc(servers.id));
  const online = await rowsOf<{ server_id: number; n: number }>(
    db,
    sql`
    select server_id, count(*)::int as n from peer_stats
    where latest_handshake > now() - ${ONLINE_WINDOW}
    group by server_id`,
  );
  const traffic = await rowsOf<{ server_id: number; day: string; rx: string; tx: string }>(
    db,
    sql`
    select server_id, to_char((hour at time zone 'UTC')::date, 'YYYY-MM-DD') as day,
      sum(rx_bytes)::text as rx, sum(tx_bytes)::text as tx
    from server_usage_hourly
    where hour >= (${from}::date)::timestamp at time zone 'UTC'
      and hour < (${to}::date + 1)::timestamp at time zone 'UTC'
    group by 1, 2`,
  );
  // Every outage overlapping the range, grouped by server in one query (issue 34).
  const outages = await outagesIn(
    db,
    new Date(`${from}T00:00:00Z`),
    new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS),
  );
  const onlineBy = new Map(online.map((r) => [Number(r.server_id), Number(r.n)]));

  return {
    from,
    to,
    days: rows.map((r) => r.day),
    ...(withRevenue ? { revenue_usd: rows.map((r) => Number(r.revenue)) } : {}),
    new_customers: rows.map((r) => Number(r.new_customers)),
    active_peers: rows.map((r) => Number(r.active_peers)),
    servers: serverRows.map(({ server, peers }) => {
      const rx = rows.map(() => 0);
      const tx = rows.map(() => 0);
      for (const t of traffic) {
        if (Number(t.server_id) !== server.id) continue;
        const i = dayIndex.get(t.day);
        if (i === undefined) continue;
        rx[i] = Number(t.rx);
        tx[i] = Number(t.tx);
      }
      return {
        id: server.id,
        name: server.name,
        agent_online: agentOnline(server),
        offline_since: offlineSince(server),
        outages: outages.get(server.id) ?? [],
        peers,
        online_peers: onlineBy.get(server.id) ?? 0,
        rx_bytes: rx,
        tx_bytes: tx,
      };
    }),
  };
}
