import { and, asc, eq, inArray, isNotNull, lte, sql, type SQL } from 'drizzle-orm';
import {
  RELAY_DEFAULTS,
  type AgentPeer,
  type AgentRelay,
  type AgentRelayRoom,
  type ServerDelta,
  type ServerSnapshot,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import type { Bus } from '../../realtime/bus.ts';
import { customers, peers, serverChanges, servers, type RoomChangeRecord } from '../../db/schema.ts';
import { decrypt } from '../../lib/crypto.ts';
import { getSiteSettings } from '../site/settings.ts';
import { SERVER_TUNNEL_ADDRESS } from './addresses.ts';
import { agentSpeed, withinData, withinGrace } from './peerSpeed.ts';
import type { ServerRow } from './servers.ts';
import { meshPeer, relayRooms, roomLinks } from './roomLinks.ts';
import { buildRoomDelta, roomDeltaReads, type RoomDeltaRead } from './roomDelta.ts';

export { meshPresharedKey, roomLinks } from './roomLinks.ts';

/**
 * Desired state, not commands (architecture decision 3): a request changes rows and records here,
 * per server, which peers to re-send and which keys to drop. Agents get a snapshot on connect and
 * these changes as deltas after it.
 */
export interface Change {
  serverId: number;
  upsertPeerIds?: number[];
  removeKeys?: string[];
  /** Everything changed (site switches, server settings, a room member's move): a full snapshot. */
  full?: boolean;
  /**
   * A room change on this server (issue 33, roomLinks.ts's roomChanges): a delta to agents whose
   * hello said `room_deltas`, a full snapshot to older ones.
   */
  rooms?: RoomChangeRecord;
}

export interface Revision {
  serverId: number;
  revision: number;
}

/** A recorded change's revision, with its server's row as the change left it (so callers need not read it again). */
export interface RecordedRevision extends Revision {
  server: ServerRow;
}

/**
 * Every server's agent gets a full snapshot: a site-wide switch that reaches the nodes changed
 * (discovery, issue 25).
 */
export async function resendAllServers(db: Db, bus: Bus): Promise<void> {
  const ids = await db.select({ id: servers.id }).from(servers);
  const revisions = await db.transaction((tx) =>
    recordChanges(
      tx,
      ids.map((s) => ({ serverId: s.id, full: true })),
    ),
  );
  for (const r of revisions)
    await bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
}

/** Records changes inside the caller's transaction; returns the new revision of each server. */
export async function recordChanges(tx: Db, changes: Change[]): Promise<RecordedRevision[]> {
  const out: RecordedRevision[] = [];
  // Same order for every caller, so two transactions never lock two servers crosswise.
  for (const change of [...changes].sort((a, b) => a.serverId - b.serverId)) {
    const [row] = await tx
      .update(servers)
      .set({ revision: sql`${servers.revision} + 1` })
      .where(eq(servers.id, change.serverId))
      .returning();
    if (!row) continue;
    await tx.insert(serverChanges).values({
      serverId: change.serverId,
      revision: row.revision,
      upsertPeerIds: change.upsertPeerIds ?? [],
      removeKeys: change.removeKeys ?? [],
      full: change.full ?? false,
      rooms: change.rooms ?? null,
    });
    out.push({ serverId: change.serverId, revision: row.revision, server: row });
  }
  return out;
}

/**
 * A peer belongs on its server's interface while it is active, not expired, within its data
 * allowance, and its owner's account
 * is not disabled (a manager's `PATCH /api/admin/customers/{id} {disabled}` takes every peer of the
 * customer off its server until re-enabled, without touching the peers' own switches).
 */
export const peerIsLive = () =>
  and(
    eq(peers.active, true),
    // Expired: off, after the plan's grace days at the reduced speed if it has any (issue 35).
    withinGrace(),
    // Out of data: off like an expired peer until a plan starts a new period (services/peers/allowance.ts),
    // unless its plan reduces the speed instead (issue 35, services/fleet/peerSpeed.ts).
    withinData(),
    // Its owner is not among the disabled accounts (index customers_disabled: a manager's switch,
    // few), rather than "its owner is active": a server's snapshot then hashes those few instead
    // of every customer (bench:fleet: a parallel scan of 600,000 customers per snapshot, issue 33;
    // guard: fleet/snapshotCost.test.ts). Not `in (select …)`: negated (buildDelta's stale peers)
    // an IN list cannot become a join and PostgreSQL hashed every customer for each delta
    // (120–650 ms at 300,000); NOT EXISTS is one probe of the small index per named peer.
    sql`not exists (select 1 from ${customers} where ${customers.id} = ${peers.customerId} and not ${customers.active})`,
  )!;

const liveOnServer = (serverId: number) => and(eq(peers.serverId, serverId), peerIsLive());

/** What a peer's desired state is made of: its keys and address, and its speed (issue 35). */
const agentColumns = {
  publicKey: peers.publicKey,
  presharedKeyEnc: peers.presharedKeyEnc,
  address: peers.address,
  speedDownKbit: peers.speedDownKbit,
  speedUpKbit: peers.speedUpKbit,
  reducedKbit: peers.reducedKbit,
  speedReducedAt: peers.speedReducedAt,
};
type PeerKeys = { [K in keyof typeof agentColumns]: (typeof peers.$inferSelect)[K] };

const toAgentPeer = (key: Buffer, p: PeerKeys): AgentPeer => ({
  public_key: p.publicKey,
  preshared_key: decrypt(key, p.presharedKeyEnc),
  allowed_ips: [`${p.address.replace(/\/\d+$/, '')}/32`],
  ...agentSpeed(p),
});

/**
 * The whole desired state of one server. The revision is read before the peers, so the peers are
 * at least that new; a change that lands in between is sent again as a delta (applying is idempotent).
 */
/** `key` decrypts keys at rest; `meshKey` derives the mesh links' preshared keys (Keys.mesh). */
export async function buildSnapshot(
  db: Db,
  server: ServerRow,
  key: Buffer,
  meshKey: Buffer,
): Promise<ServerSnapshot> {
  const [current] = await db
    .select({ revision: servers.revision })
    .from(servers)
    .where(eq(servers.id, server.id));
  const rows = await db
    .select(agentColumns)
    .from(peers)
    .where(liveOnServer(server.id))
    .orderBy(asc(peers.id));
  const rooms = await roomsForServer(db, server, meshKey);
  const site = await getSiteSettings(db);
  const relay: AgentRelay = {
    enabled: site.allow_discovery && server.allowDiscovery,
    rate_per_second: RELAY_DEFAULTS.rate_per_second,
    burst: RELAY_DEFAULTS.burst,
    room_rate_per_second: RELAY_DEFAULTS.room_rate_per_second,
    room_burst: RELAY_DEFAULTS.room_burst,
    max_bytes: RELAY_DEFAULTS.max_bytes,
    deny_ports: [...RELAY_DEFAULTS.deny_ports],
    rooms: site.allow_discovery && server.allowDiscovery ? rooms.relay : [],
  };
  return {
    type: 'snapshot',
    revision: current?.revision ?? server.revision,
    interface: {
      name: server.interfaceName,
      private_key: decrypt(key, server.privateKeyEnc),
      listen_port: server.port,
      address: SERVER_TUNNEL_ADDRESS,
      mtu: server.mtu,
      nat: true,
    },
    peers: [...rows.map((p) => toAgentPeer(key, p)), ...rooms.mesh],
    room_pairs: rooms.pairs,
    relay,
  };
}

/**
 * Rooms as one server must enforce them: every (local member, room mate) address pair in both
 * directions, and one mesh link per other server that hosts mates of local members, carrying
 * exactly those mates' addresses (architecture decision 5). `relay`: each room with a member here,
 * its members here and elsewhere (the discovery relay, issue 25).
 */
export async function roomsForServer(
  db: Db,
  server: ServerRow,
  meshKey: Buffer,
): Promise<{ pairs: [string, string][]; mesh: AgentPeer[]; relay: AgentRelayRoom[] }> {
  const locals = await db
    .select({ id: peers.id, roomId: peers.roomId, address: peers.address })
    .from(peers)
    .where(and(eq(peers.serverId, server.id), isNotNull(peers.roomId)));
  if (locals.length === 0) return { pairs: [], mesh: [], relay: [] };
  const roomIds = [...new Set(locals.map((l) => l.roomId!))];
  const members = await db
    .select({ id: peers.id, roomId: peers.roomId, address: peers.address, serverId: peers.serverId })
    .from(peers)
    .where(inArray(peers.roomId, roomIds));
  const { pairs, remote } = roomLinks(server.id, members);
  const others = remote.size
    ? await db
        .select()
        .from(servers)
        .where(inArray(servers.id, [...remote.keys()]))
    : [];
  const mesh = others.map((o) => meshPeer(meshKey, server.id, o, remote.get(o.id)!));
  return { pairs, mesh, relay: relayRooms(server.id, members) };
}

/**
 * buildDelta's one statement (issue 33): the log, the peers it names and, for an agent that applies
 * room deltas, the room reads (roomDelta.ts roomDeltaReads) together, one round trip whatever the
 * change. One row of JSON aggregates; every read after the log runs only when the log makes a delta.
 */
function deltaRead(serverId: number, after: number, withRooms: boolean): SQL {
  const rooms = withRooms ? roomDeltaReads(serverId) : null;
  return sql`
    with
    -- This server's log after the agent's revision, from server_changes' primary key.
    changes as materialized (
      select ${serverChanges.revision} as revision, ${serverChanges.upsertPeerIds} as upsert_peer_ids,
        ${serverChanges.removeKeys} as remove_keys, ${serverChanges.full} as is_full, ${serverChanges.rooms} as rooms
      from ${serverChanges}
      where ${serverChanges.serverId} = ${serverId} and ${serverChanges.revision} > ${after}),
    -- The newest revision (null: nothing new), and whether the log makes a delta: it reaches back to
    -- the revision after the agent's and no entry asks for a snapshot (a full change, or a room
    -- change for an agent that does not apply room deltas); else the agent gets a snapshot.
    log as (
      select max(revision) as last,
        min(revision) = ${after}::bigint + 1 and not bool_or(is_full${withRooms ? sql`` : sql` or rooms is not null`}) as delta
      from changes),
    -- The peers the log names, each with whether it is live here (one read, not one for the live and
    -- another for the stale; a stale one is removed by key), from peers' primary key.
    named as (
      select ${peers.id} as id, ${peers.publicKey} as public_key, ${peers.presharedKeyEnc} as preshared_key_enc,
        ${peers.address} as address, ${peers.speedDownKbit} as speed_down_kbit,
        ${peers.speedUpKbit} as speed_up_kbit, ${peers.reducedKbit} as reduced_kbit,
        ${peers.speedReducedAt} as speed_reduced_at, ${liveOnServer(serverId)} as live
      from ${peers}
      where ${peers.id} = any(array(select distinct unnest(upsert_peer_ids) from changes)) and (select delta from log))
    ${rooms ? sql`, ${rooms.ctes}` : sql``}
    select (select last from log) as last, (select delta from log) as delta,
      (select json_agg(json_build_object('remove_keys', remove_keys, 'rooms', rooms) order by revision)
       from changes where (select delta from log)) as changes,
      (select json_agg(named order by id) from named) as named
      ${rooms ? sql`, ${rooms.columns}` : sql``}`;
}

/**
 * The row deltaRead answers (JSON aggregates parsed by the driver; a null aggregate: no rows). The
 * room columns are there when the statement has the room reads (`withRooms`).
 */
type DeltaRow = {
  last: number | string | null;
  delta: boolean | null;
  changes: { remove_keys: string[]; rooms: RoomChangeRecord | null }[] | null;
  named:
    | {
        id: number;
        public_key: string;
        preshared_key_enc: string;
        address: string;
        speed_down_kbit: number | null;
        speed_up_kbit: number | null;
        reduced_kbit: number;
        speed_reduced_at: string | null;
        live: boolean | null;
      }[]
    | null;
} & RoomDeltaRead;

/**
 * One delta that brings an agent from `after` to the newest recorded revision, or 'resync' when the
 * log no longer reaches back that far (send a snapshot), or null when there is nothing new. A room
 * change is part of the delta when `rooms` is given (the agent said `room_deltas`), else a resync.
 * One statement whatever the change (deltaRead; guards: roomJoinCost.test.ts, scale.test.ts).
 */
export async function buildDelta(
  db: Db,
  serverId: number,
  after: number,
  key: Buffer,
  rooms?: { meshKey: Buffer },
): Promise<ServerDelta | 'resync' | null> {
  const {
    rows: [row],
  } = await db.execute<DeltaRow>(deltaRead(serverId, after, rooms !== undefined));
  if (!row || row.last === null) return null;
  if (!row.delta) return 'resync';
  const changes = row.changes ?? [];
  const named = (row.named ?? []).map((p) => ({
    live: p.live,
    publicKey: p.public_key,
    presharedKeyEnc: p.preshared_key_enc,
    address: p.address,
    speedDownKbit: p.speed_down_kbit,
    speedUpKbit: p.speed_up_kbit,
    reducedKbit: p.reduced_kbit,
    speedReducedAt: p.speed_reduced_at === null ? null : new Date(p.speed_reduced_at),
  }));
  const upsert = named.filter((p) => p.live === true).map((p) => toAgentPeer(key, p));
  const records = changes.flatMap((c) => (c.rooms ? [c.rooms] : []));
  const room = rooms && records.length ? buildRoomDelta(serverId, records, row, rooms.meshKey) : null;
  if (room) upsert.push(...room.meshUpsert);
  const kept = new Set(upsert.map((p) => p.public_key));
  // A peer named for upsert that is no longer live here (disabled, expired, moved) is removed by key.
  const stale = named.filter((p) => p.live === false);
  const remove = [
    ...new Set([
      ...changes.flatMap((c) => c.remove_keys),
      ...stale.map((s) => s.publicKey),
      ...(room?.meshRemove ?? []),
    ]),
  ].filter((k) => !kept.has(k));
  const delta: ServerDelta = { type: 'delta', revision: Number(row.last), upsert, remove };
  if (room) {
    delta.room_pairs_add = room.pairsAdd;
    delta.room_pairs_remove = room.pairsRemove;
    delta.relay_rooms = room.relayRooms;
    delta.relay_rooms_remove = room.relayRemove;
  }
  return delta;
}

/** Forgets log entries the agent has acknowledged (they are in every later snapshot). */
export async function pruneChanges(db: Db, serverId: number, acked: number): Promise<void> {
  await db
    .delete(serverChanges)
    .where(and(eq(serverChanges.serverId, serverId), lte(serverChanges.revision, acked)));
}
