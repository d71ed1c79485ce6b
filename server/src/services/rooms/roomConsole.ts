import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { msg, type AdminRoom, type AdminRoomDetail, type ListQuery, type Paged } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, roomMembers, peers, servers } from '../../db/schema.ts';
import { notFound } from '../../lib/errors.ts';
import { writeAudit, type Actor } from '../site/audit.ts';
import { containsPattern, pageOf } from '../../db/listing.ts';
import type { RoomService } from './rooms.ts';

type RoomRow = typeof rooms.$inferSelect;
type Owner = { id: number; username: string; alias: string | null };

/**
 * `q` matches the room's name (trigram index of migration 0007) or its owner's username / alias
 * (customers' trigram indexes, resolved once as an init plan and then looked up by owner index).
 */
function roomFilter(q: string | undefined): SQL | undefined {
  if (!q) return undefined;
  const p = containsPattern(q);
  return or(
    sql`lower(${rooms.name}) like ${p}`,
    sql`${rooms.ownerId} = any(array(select ${customers.id} from ${customers} where lower(${customers.username}) like ${p} or lower(${customers.alias}) like ${p}))`,
  );
}

/** Members and servers of the rooms on one page, in one grouped query. */
async function summaries(db: Db, rows: { room: RoomRow; owner: Owner }[]): Promise<AdminRoom[]> {
  const ids = rows.map((r) => r.room.id);
  const groups = ids.length
    ? await db
        .select({
          roomId: peers.roomId,
          n: count(),
          serverIds: sql<number[]>`array_agg(distinct ${peers.serverId})`,
        })
        .from(peers)
        .where(inArray(peers.roomId, ids))
        .groupBy(peers.roomId)
    : [];
  const serverIds = [...new Set(groups.flatMap((g) => g.serverIds))];
  const names = new Map(
    serverIds.length
      ? (
          await db
            .select({ id: servers.id, name: servers.name })
            .from(servers)
            .where(inArray(servers.id, serverIds))
        ).map((s) => [s.id, s.name])
      : [],
  );
  const byRoom = new Map(groups.map((g) => [g.roomId, g]));
  return rows.map(({ room, owner }) => {
    const g = byRoom.get(room.id);
    return {
      id: room.id,
      name: room.name,
      owner,
      members: g?.n ?? 0,
      servers: (g?.serverIds ?? [])
        .slice()
        .sort((a, b) => a - b)
        .map((id) => ({ id, name: names.get(id) ?? '' })),
      processing: room.processing,
      created: room.createdAt.toISOString(),
    };
  });
}

const withOwner = (db: Db) =>
  db
    .select({
      room: rooms,
      owner: { id: customers.id, username: customers.username, alias: customers.alias },
    })
    .from(rooms)
    .innerJoin(customers, eq(customers.id, rooms.ownerId));

/** Rooms, newest first: name, owner, how many peers and on which servers. */
export async function listRooms(db: Db, query: ListQuery): Promise<Paged<AdminRoom>> {
  const where = roomFilter(query.q);
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    withOwner(db).where(where).orderBy(desc(rooms.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(rooms).where(where),
  ]);
  return { count: total?.n ?? 0, results: await summaries(db, rows) };
}

/** One room with each member: the peer, its owner, its private address and its server. */
export async function getRoom(db: Db, id: number): Promise<AdminRoomDetail> {
  const [row] = await withOwner(db).where(eq(rooms.id, id));
  if (!row) throw notFound(msg.roomNotFound);
  const [summary] = await summaries(db, [row]);
  const members = await db
    .select({
      peerId: peers.id,
      peerName: peers.name,
      address: peers.address,
      customerId: customers.id,
      username: customers.username,
      alias: customers.alias,
      serverId: servers.id,
      serverName: servers.name,
      joined: roomMembers.joinedAt,
    })
    .from(peers)
    .innerJoin(customers, eq(customers.id, peers.customerId))
    .innerJoin(servers, eq(servers.id, peers.serverId))
    .leftJoin(roomMembers, and(eq(roomMembers.peerId, peers.id), eq(roomMembers.roomId, id)))
    .where(eq(peers.roomId, id))
    .orderBy(asc(peers.id));
  return {
    ...summary!,
    peers: members.map((m) => ({
      peer: { id: m.peerId, name: m.peerName },
      customer: { id: m.customerId, username: m.username, alias: m.alias },
      private_ip: m.address.replace(/\/\d+$/, ''),
      server: { id: m.serverId, name: m.serverName },
      joined: m.joined?.toISOString() ?? null,
    })),
  };
}

/** Deletes a room through its owner's path (members told live), audited with the reason. */
export async function deleteRoom(
  db: Db,
  service: RoomService,
  actor: Actor,
  id: number,
  reason: string,
): Promise<void> {
  const before = await getRoom(db, id);
  await service.adminDelete(id, async (tx) => {
    await writeAudit(tx, actor, {
      action: 'party.delete',
      targetType: 'party',
      targetId: id,
      changes: {
        name: { before: before.name, after: null },
        owner: { before: before.owner.username, after: null },
        members: { before: before.members, after: null },
      },
      reason,
      extra: { peers: before.peers.map((p) => p.peer.id) },
    });
  });
}
