import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/**
 * A departure is kept this long at most, waiting for its last reading: sent at the next stats pass,
 * or when the old server's agent, away meanwhile, reconnects and drops the key.
 */
const KEPT_FOR = '7 days';
/** And at most this many per peer and server (a peer re-keyed over and over while its agent is away). */
const KEPT_PER_SERVER = 16;

/**
 * Where moved and re-keyed peers' keys left from, with the key each had there: the old server's last
 * report of that key (its `since` tail) is counted only if the key did leave that server (issue 31,
 * services/peers/usage.ts), and once (the row is consumed). Every departure is kept until then
 * (issue 33): of three re-keys within one stats interval, the middle key's last reading needs its
 * own row. Bounded: a peer's older departures from that server beyond the latest
 * KEPT_PER_SERVER, or older than KEPT_FOR, go in the same statement; pruneDepartures forgets the
 * rest of those older than KEPT_FOR.
 */
export async function recordDepartures(
  tx: Db,
  fromServerId: number,
  moved: { id: number; publicKey: string }[],
) {
  if (moved.length === 0) return;
  const rows = sql.join(
    moved.map((m) => sql`(${m.id}::int, ${fromServerId}::int, ${m.publicKey}::text)`),
    sql`, `,
  );
  await tx.execute(sql`
    with added as (
      insert into peer_departures (peer_id, server_id, public_key) values ${rows}
      on conflict (peer_id, server_id, public_key) do update set left_at = now()
      returning peer_id, public_key
    )
    delete from peer_departures d
    where d.server_id = ${fromServerId} and d.peer_id in (select peer_id from added)
      and (d.peer_id, d.public_key) not in (select peer_id, public_key from added)
      and (d.left_at < now() - ${KEPT_FOR}::interval
        or (select count(*) from peer_departures n where n.peer_id = d.peer_id
          and n.server_id = d.server_id and n.left_at >= d.left_at and n.public_key <> d.public_key)
          >= ${KEPT_PER_SERVER - 1})`);
}

/** Forgets departures older than KEPT_FOR (services/peers/usage.ts's hourly compaction runs it). */
export async function pruneDepartures(db: Pick<Db, 'execute'>): Promise<void> {
  await db.execute(sql`delete from peer_departures where left_at < now() - ${KEPT_FOR}::interval`);
}
