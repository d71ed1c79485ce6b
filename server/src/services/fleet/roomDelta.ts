import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { AgentPeer, AgentRelayRoom } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, roomLinks, rooms, servers, type RoomChangeRecord } from '../../db/schema.ts';
import { getSiteSettings } from '../site/settings.ts';
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

/**
 * Room changes recorded for one server (oldest first) as one delta (issue 33). Pairs are the
 * records' net effect in order (a later record wins over an earlier one for the same pair); the
 * touched rooms' relay entries and the touched mesh links are read as they are now, whole: each is
 * a function of the current members, so sending today's is exact and idempotent. Reads the touched
 * rooms' members and, for the touched mesh links, the rooms the two servers share, all from
 * room_links' indexes (migration 0040), never a page of `peers`; two statements whatever the
 * number of links (guard: roomJoinCost.test.ts).
 */
export async function buildRoomDelta(
  db: Db,
  serverId: number,
  records: readonly RoomChangeRecord[],
  meshKey: Buffer,
): Promise<RoomDelta> {
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
  const meshIds = [...new Set(records.flatMap((r) => r.mesh))].filter((o) => o !== serverId);
  // The relay's rooms only while it is on (a switch records a full change: a snapshot). The
  // server's switch and the touched rooms' members in one statement: no member rows when it is off.
  if (roomIds.length && (await getSiteSettings(db)).allow_discovery) {
    const rows = await db
      .select({
        relays: servers.allowDiscovery,
        id: roomLinks.peerId,
        roomId: roomLinks.roomId,
        address: roomLinks.address,
        serverId: roomLinks.serverId,
      })
      .from(servers)
      .leftJoin(roomLinks, and(eq(servers.allowDiscovery, true), inArray(roomLinks.roomId, roomIds)))
      .where(eq(servers.id, serverId));
    if (rows[0]?.relays) {
      const members = rows.flatMap((r) =>
        r.id === null ? [] : [{ id: r.id, roomId: r.roomId, address: r.address!, serverId: r.serverId! }],
      );
      out.relayRooms = relayRooms(serverId, members);
      const kept = new Set(out.relayRooms.map((r) => r.id));
      out.relayRemove = roomIds.filter((id) => !kept.has(id));
    }
  }
  if (meshIds.length) {
    // Every touched link in one statement: each other server with the mates it must carry for this
    // one, i.e. its members of the rooms that have a member here, from room_links' indexes alone
    // (migration 0040), never from peers' pages. The mates are read first, by themselves
    // (`materialized`): joined to the servers row by row, the planner guessed 20 mates a server
    // instead of 500 and probed this server's rooms once per mate (4,000 buffers, 10–16 ms at
    // bench:fleet's size, against 35 and 1.7 ms so).
    const { rows } = await db.execute<{
      id: number;
      public_key: string;
      host: string;
      port: number;
      mate: string | null;
    }>(sql`
      with mates as materialized (
        select ${roomLinks.serverId} as server_id, host(${roomLinks.address}) as mate from ${roomLinks}
        where ${inArray(roomLinks.serverId, meshIds)}
          and exists (select 1 from ${roomLinks} l where l.server_id = ${serverId} and l.room_id = ${roomLinks.roomId}))
      select ${servers.id} as id, ${servers.publicKey} as public_key, ${servers.host} as host,
        ${servers.port} as port, mates.mate
      from ${servers} left join mates on mates.server_id = ${servers.id}
      where ${inArray(servers.id, meshIds)}`);
    const links = new Map<number, { end: Parameters<typeof meshPeer>[2]; mates: string[] }>();
    for (const r of rows) {
      const id = Number(r.id);
      const link = links.get(id) ?? {
        end: { id, publicKey: r.public_key, host: r.host, port: Number(r.port) },
        mates: [],
      };
      if (r.mate !== null) link.mates.push(`${r.mate}/32`);
      links.set(id, link);
    }
    for (const [, { end, mates: addresses }] of [...links].sort(([x], [y]) => x - y)) {
      if (addresses.length === 0) out.meshRemove.push(end.publicKey);
      else out.meshUpsert.push(meshPeer(meshKey, serverId, end, addresses));
    }
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
