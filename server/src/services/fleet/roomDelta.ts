import { asc, inArray, sql, type SQL } from 'drizzle-orm';
import type { AgentPeer, AgentRelayRoom } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, roomLinks, rooms, servers, settings, type RoomChangeRecord } from '../../db/schema.ts';
import { DEFAULT_SITE_SETTINGS } from '../site/settings.ts';
import { meshPeer, relayRooms, roomChanges, type RoomMember } from './roomLinks.ts';

/** The room part of a delta (contracts: ServerDelta's room fields), mesh links apart. */
export interface RoomDelta {
  pairsAdd: [string, string][];
  pairsRemove: [string, string][];
  relayRooms: AgentRelayRoom[];
  relayRemove: number[];
  meshUpsert: AgentPeer[];
  meshRemove: string[];
}

/** What roomDeltaReads' columns bring back (one row, JSON aggregates parsed by the driver). */
export type RoomDeltaRead = {
  /** Whether this server relays now: the site's switch and its own (null: no such server). */
  relays: boolean | null;
  /** The touched rooms' members, while it relays (null: none). */
  members: { id: number; room_id: number; address: string; server_id: number }[] | null;
  /** Each touched mesh link's other end, with the mates it must carry for this server (null: none). */
  links: { id: number; public_key: string; host: string; port: number; mates: string[] }[] | null;
};

/**
 * The room reads of a delta (issue 33), as CTEs and select columns for buildDelta's one statement
 * (desiredState.ts deltaRead): they read the room records of its `changes` CTE (this server's log
 * after the agent's revision) and run only when its `log` CTE says the log makes a delta. The
 * touched rooms' relay entries and the touched mesh links are read as they are now, whole, from
 * room_links' indexes (migration 0040), never a page of `peers`; no more statements whatever the
 * number of rooms and links (guard: roomJoinCost.test.ts).
 */
export function roomDeltaReads(serverId: number): { ctes: SQL; columns: SQL } {
  const ctes = sql`
    -- The rooms whose relay entry the records touched.
    touched_rooms as (
      select distinct r.id::int as id
      from changes cross join lateral jsonb_array_elements_text(changes.rooms -> 'rooms') r(id)
      where changes.rooms is not null and (select delta from log)),
    -- The other servers whose mesh link from this one the records touched.
    touched_links as (
      select distinct m.id::int as id
      from changes cross join lateral jsonb_array_elements_text(changes.rooms -> 'mesh') m(id)
      where changes.rooms is not null and (select delta from log) and m.id::int <> ${serverId}),
    -- Whether this server relays (issue 25): its own switch and the site's, read as readSiteSettings
    -- reads it (a JSON boolean, else the default), here rather than from getSiteSettings' copy,
    -- which is up to a second old on another instance and a statement of its own when it expired.
    relay_on as (
      select ${servers.allowDiscovery} and coalesce(
        (select ${settings.value}::boolean from ${settings}
         where ${settings.key} = 'allow_discovery' and jsonb_typeof(${settings.value}) = 'boolean'),
        ${DEFAULT_SITE_SETTINGS.allow_discovery}::boolean) as relays
      from ${servers} where ${servers.id} = ${serverId}),
    -- The touched rooms' members, only while it relays (a switch records a full change: a snapshot).
    relay_members as (
      select ${roomLinks.peerId} as id, ${roomLinks.roomId} as room_id, ${roomLinks.address} as address,
        ${roomLinks.serverId} as server_id
      from ${roomLinks}
      where ${roomLinks.roomId} = any(array(select id from touched_rooms)) and (select relays from relay_on)),
    -- This server's rooms, read once for every link (index-only: room_links_server_room).
    here as materialized (
      select distinct ${roomLinks.roomId} as room_id from ${roomLinks} where ${roomLinks.serverId} = ${serverId}),
    -- Each touched link's other end (a deleted server has none) with the mates it must carry for
    -- this server: its members of this server's rooms (none: the link goes). Per link, a subquery
    -- on its own server id, so each reads that server's index range only (index-only); one scan of
    -- every touched server at once (server_id = any of a list the planner cannot see) was planned as
    -- a sequential scan of room_links. Before issue 33's room_links, a link read a page of peers per
    -- mate; mates joined to the servers row by row were probed one by one (4,000 buffers).
    links as (
      select ${servers.id} as id, ${servers.publicKey} as public_key, ${servers.host} as host,
        ${servers.port} as port,
        array(select host(o.address) from ${roomLinks} o
              where o.server_id = ${servers.id} and o.room_id in (select room_id from here)) as mates
      from ${servers}
      where ${servers.id} = any(array(select id from touched_links)))`;
  const columns = sql`
    (select relays from relay_on) as relays,
    (select json_agg(relay_members) from relay_members) as members,
    (select json_agg(links) from links) as links`;
  return { ctes, columns };
}

/**
 * Room changes recorded for one server (oldest first) as one delta (issue 33), from what
 * roomDeltaReads read. Pairs are the records' net effect in order (a later record wins over an
 * earlier one for the same pair); the touched rooms' relay entries and the touched mesh links are
 * sent as they are now, whole: each is a function of the current members, so sending today's is
 * exact and idempotent.
 */
export function buildRoomDelta(
  serverId: number,
  records: readonly RoomChangeRecord[],
  read: RoomDeltaRead,
  meshKey: Buffer,
): RoomDelta {
  const pairs = new Map<string, { pair: [string, string]; add: boolean }>();
  for (const r of records) {
    for (const pair of r.remove) pairs.set(`${pair[0]}>${pair[1]}`, { pair, add: false });
    for (const pair of r.add) pairs.set(`${pair[0]}>${pair[1]}`, { pair, add: true });
  }
  const out: RoomDelta = {
    pairsAdd: [],
    pairsRemove: [],
    relayRooms: [],
    relayRemove: [],
    meshUpsert: [],
    meshRemove: [],
  };
  for (const { pair, add } of pairs.values()) (add ? out.pairsAdd : out.pairsRemove).push(pair);
  const roomIds = [...new Set(records.flatMap((r) => r.rooms))].sort((a, b) => a - b);
  // The relay's rooms only while it is on (a switch records a full change: a snapshot).
  if (roomIds.length && read.relays) {
    const members: RoomMember[] = (read.members ?? []).map((m) => ({
      id: m.id,
      roomId: m.room_id,
      address: m.address,
      serverId: m.server_id,
    }));
    out.relayRooms = relayRooms(serverId, members);
    const kept = new Set(out.relayRooms.map((r) => r.id));
    out.relayRemove = roomIds.filter((id) => !kept.has(id));
  }
  for (const link of [...(read.links ?? [])].sort((x, y) => x.id - y.id)) {
    if (link.mates.length === 0) out.meshRemove.push(link.public_key);
    else
      out.meshUpsert.push(
        meshPeer(
          meshKey,
          serverId,
          { id: link.id, publicKey: link.public_key, host: link.host, port: link.port },
          link.mates.map((m) => `${m}/32`),
        ),
      );
  }
  return out;
}

/**
 * Locks rooms' rows in id order, as a membership change locks its room (rooms/rooms.ts): a move of
 * a member and a join, leave or deletion of its room queue, so each records its pairs from the
 * other's committed members, never from members the other is changing.
 */
export async function lockRooms(tx: Db, roomIds: readonly number[]): Promise<void> {
  if (roomIds.length === 0) return;
  await tx
    .select({ id: rooms.id })
    .from(rooms)
    .where(inArray(rooms.id, [...roomIds]))
    .orderBy(asc(rooms.id))
    .for('update');
}

/**
 * What moving room members to other servers does to their rooms (issue 33): for each server that
 * hosts a member of those rooms before or after, one record (each room's roomChanges, merged; a
 * pair belongs to one room, so the merge is a union). Called after the move's update, under
 * lockRooms: the rooms' members now are `after`, and `before` is the same with the moved peers on
 * the server they left. Reads only those rooms' members, never the servers' other rooms.
 */
export async function roomMoveChanges(
  tx: Db,
  moved: readonly { id: number; roomId: number | null; fromServerId: number }[],
): Promise<Map<number, RoomChangeRecord>> {
  const from = new Map(moved.filter((m) => m.roomId !== null).map((m) => [m.id, m.fromServerId]));
  const out = new Map<number, RoomChangeRecord>();
  if (from.size === 0) return out;
  const roomIds = [...new Set(moved.flatMap((m) => (m.roomId === null ? [] : [m.roomId])))];
  const members: RoomMember[] = await tx
    .select({ id: peers.id, roomId: peers.roomId, address: peers.address, serverId: peers.serverId })
    .from(peers)
    .where(inArray(peers.roomId, roomIds));
  const byRoom = new Map<number, RoomMember[]>();
  for (const m of members) {
    const list = byRoom.get(m.roomId!);
    if (list) list.push(m);
    else byRoom.set(m.roomId!, [m]);
  }
  for (const [roomId, after] of [...byRoom].sort(([a], [b]) => a - b)) {
    const before = after.map((m) => (from.has(m.id) ? { ...m, serverId: from.get(m.id)! } : m));
    for (const [serverId, r] of roomChanges(roomId, before, after)) {
      const acc = out.get(serverId);
      if (!acc) out.set(serverId, r);
      else {
        acc.add.push(...r.add);
        acc.remove.push(...r.remove);
        acc.rooms.push(...r.rooms);
        acc.mesh = [...new Set([...acc.mesh, ...r.mesh])].sort((a, b) => a - b);
      }
    }
  }
  return out;
}
