import { timingSafeEqual } from 'node:crypto';
import { and, asc, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import { MAX_OWNED_ROOMS, msg, type Room, type RoomLists, type PushMessage } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, roomMembers, peers, servers } from '../../db/schema.ts';
import { decrypt, encrypt, randomToken } from '../../lib/crypto.ts';
import { badRequest, conflict, forbidden, isUniqueViolation, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { recordChanges, type Revision } from '../fleet/desiredState.ts';
import { roomChanges, type RoomMember } from '../fleet/roomLinks.ts';
import type { PeerService } from '../peers/peers.ts';
import { agentOnline } from '../fleet/servers.ts';
import { getSiteSettings } from '../site/settings.ts';

type RoomRow = typeof rooms.$inferSelect;
type PeerRow = typeof peers.$inferSelect;
interface Waits {
  waits: { s: number; r: number }[];
  since: number;
}

/** Room passwords: 10 characters people can read out (no 0/O, 1/l). */
function newRoomPassword(): string {
  const alphabet = 'abcdefghijkmnpqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789';
  const bytes = Buffer.from(randomToken(16), 'base64url');
  return Array.from(bytes.subarray(0, 10), (b) => alphabet[b % alphabet.length]).join('');
}

/**
 * Rooms (Salas): customers link peers on a private network. Every membership change records, for
 * each server that hosts a member before or after, what it changes there (the pairs added and
 * removed, the room's relay entry, the mesh links touched: fleet/roomLinks.ts's roomChanges), sent
 * to agents as a delta of that room only (issue 33; a full snapshot to agents too old for it); the
 * room shows "processing" until those agents ack.
 *
 * Over 400 lines on purpose: every room operation (create, join, add or remove a peer, new password,
 * delete, a manager's delete, settling) goes through that one resync-and-wait flow, kept in one class.
 */
export class RoomService {
  constructor(private readonly deps: { db: Db; encryptionKey: Buffer; bus: Bus; peers: PeerService }) {}

  private get db() {
    return this.deps.db;
  }

  private async requireAlias(customerId: number): Promise<void> {
    const [me] = await this.db
      .select({ alias: customers.alias })
      .from(customers)
      .where(eq(customers.id, customerId));
    if (!me?.alias) throw badRequest(msg.roomAliasRequired);
  }

  /** One of my peers that can enter a room: live, free, on a server that allows rooms. */
  private async freePeer(customerId: number, peerId: number | undefined, missing: string): Promise<PeerRow> {
    if (!peerId) throw badRequest(missing);
    const row = await this.deps.peers.getOwned(customerId, peerId);
    if (!row.active || (row.expiresAt !== null && row.expiresAt.getTime() <= Date.now()))
      throw badRequest(msg.peerInactive);
    if (row.roomId !== null) throw conflict(msg.roomPeerBusy);
    const [server] = await this.db
      .select({ allow: servers.allowRooms })
      .from(servers)
      .where(eq(servers.id, row.serverId));
    if (!server?.allow) throw badRequest(msg.roomPeerServer);
    return row;
  }

  /** A room I own or have a peer in; anyone else's is simply not found. */
  private async visible(customerId: number, roomId: number): Promise<RoomRow> {
    const [row] = await this.db
      .select()
      .from(rooms)
      .where(
        and(
          eq(rooms.id, roomId),
          sql`(${rooms.ownerId} = ${customerId} or exists (select 1 from ${peers} p where p.room_id = ${rooms.id} and p.customer_id = ${customerId}))`,
        ),
      );
    if (!row) throw notFound(msg.roomNotFound);
    return row;
  }

  async list(customerId: number): Promise<RoomLists> {
    const owned = await this.db
      .select()
      .from(rooms)
      .where(eq(rooms.ownerId, customerId))
      .orderBy(asc(rooms.id));
    const guest = await this.db
      .select()
      .from(rooms)
      .where(
        and(
          ne(rooms.ownerId, customerId),
          sql`exists (select 1 from ${peers} p where p.room_id = ${rooms.id} and p.customer_id = ${customerId})`,
        ),
      )
      .orderBy(asc(rooms.id));
    return {
      owned_partys: await this.present(owned, customerId),
      guest_partys: await this.present(guest, customerId),
    };
  }

  async present(rows: RoomRow[], viewerId: number): Promise<Room[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const members = await this.db
      .select({
        id: peers.id,
        name: peers.name,
        roomId: peers.roomId,
        address: peers.address,
        alias: customers.alias,
        username: customers.username,
        relays: servers.allowDiscovery,
      })
      .from(peers)
      .innerJoin(customers, eq(customers.id, peers.customerId))
      .innerJoin(servers, eq(servers.id, peers.serverId))
      .where(inArray(peers.roomId, ids))
      .orderBy(asc(peers.id));
    const owners = await this.db
      .select({ id: customers.id, alias: customers.alias, username: customers.username })
      .from(customers)
      .where(inArray(customers.id, [...new Set(rows.map((r) => r.ownerId))]));
    const ownerName = new Map(owners.map((o) => [o.id, o.alias ?? o.username]));
    const { allow_discovery } = await getSiteSettings(this.db);
    return rows.map((r) => {
      const inRoom = members.filter((m) => m.roomId === r.id);
      return {
        id: r.id,
        name: r.name,
        created: r.createdAt.toISOString(),
        peers: inRoom.map((m) => ({
          id: m.id,
          name: m.name,
          user: m.alias ?? m.username,
          private_ip: m.address.replace(/\/\d+$/, ''),
        })),
        user: ownerName.get(r.ownerId) ?? '',
        password: r.ownerId === viewerId ? decrypt(this.deps.encryptionKey, r.passwordEnc) : null,
        processing: r.processing,
        // Each member's broadcasts are relayed by its own server (fleet/desiredState.ts): games find
        // each other across the whole room only when every one of them relays.
        discovery: allow_discovery && inRoom.every((m) => m.relays),
      };
    });
  }

  async presentOne(roomId: number, viewerId: number): Promise<Room> {
    const [row] = await this.db.select().from(rooms).where(eq(rooms.id, roomId));
    if (!row) throw notFound(msg.roomNotFound);
    return (await this.present([row], viewerId))[0]!;
  }

  private async ownedCount(db: Db, customerId: number): Promise<number> {
    const [{ n } = { n: 0 }] = await db
      .select({ n: sql<number>`count(*)::int` })
      .from(rooms)
      .where(eq(rooms.ownerId, customerId));
    return n;
  }

  async create(customerId: number, rawName: string, peerId: number | undefined): Promise<Room> {
    const name = rawName.trim();
    if (!name) throw badRequest(msg.roomNameRequired);
    if (name.length > 40) throw badRequest(msg.roomNameTooLong);
    await this.requireAlias(customerId);
    // The limit first (its message wins over the peer's), checked again under the lock below.
    if ((await this.ownedCount(this.db, customerId)) >= MAX_OWNED_ROOMS) throw badRequest(msg.roomLimit);
    const peer = await this.freePeer(customerId, peerId, msg.roomPeerRequired);
    let room: RoomRow;
    try {
      // The room row and its first member in one transaction, the 5-room limit counted under a
      // lock on the owner's row: concurrent creations queue there and each counts the others'.
      room = await this.changeMembers(
        async (tx) => {
          await tx
            .select({ id: customers.id })
            .from(customers)
            .where(eq(customers.id, customerId))
            .for('update');
          if ((await this.ownedCount(tx, customerId)) >= MAX_OWNED_ROOMS) throw badRequest(msg.roomLimit);
          const [row] = await tx
            .insert(rooms)
            .values({
              name,
              ownerId: customerId,
              passwordEnc: encrypt(this.deps.encryptionKey, newRoomPassword()),
            })
            .returning();
          return row!;
        },
        [peer.id],
        [],
      );
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(msg.roomNameTaken);
      throw e;
    }
    return this.presentOne(room.id, customerId);
  }

  async join(
    customerId: number,
    rawName: string,
    password: string,
    peerId: number | undefined,
  ): Promise<Room> {
    if (!rawName.trim() || !password || !peerId) throw badRequest(msg.roomFieldsRequired);
    await this.requireAlias(customerId);
    const [room] = await this.db
      .select()
      .from(rooms)
      .where(sql`lower(${rooms.name}) = lower(${rawName.trim()})`);
    const expected = room
      ? Buffer.from(decrypt(this.deps.encryptionKey, room.passwordEnc))
      : Buffer.alloc(10);
    const given = Buffer.from(password);
    const ok = room && expected.length === given.length && timingSafeEqual(expected, given);
    if (!room || !ok) throw badRequest(msg.roomJoinFailed);
    const peer = await this.freePeer(customerId, peerId, msg.roomFieldsRequired);
    await this.changeMembers(room, [peer.id], []);
    return this.presentOne(room.id, customerId);
  }

  async addPeer(customerId: number, roomId: number, peerId: number | undefined): Promise<Room> {
    const room = await this.visible(customerId, roomId);
    if (room.ownerId !== customerId) throw forbidden(msg.roomOwnerOnly);
    const peer = await this.freePeer(customerId, peerId, msg.roomPeerRequired);
    await this.changeMembers(room, [peer.id], []);
    return this.presentOne(room.id, customerId);
  }

  /** The owner removes any peer; a guest only their own (leaving). */
  async removePeer(
    customerId: number,
    roomId: number,
    peerId: number | undefined,
    leaving: boolean,
  ): Promise<Room | null> {
    const room = await this.visible(customerId, roomId);
    if (!peerId) throw badRequest(msg.roomPeerRequired);
    const [peer] = await this.db
      .select()
      .from(peers)
      .where(and(eq(peers.id, peerId), eq(peers.roomId, room.id)));
    if (!peer) throw notFound(msg.roomPeerNotMember);
    if (room.ownerId !== customerId && peer.customerId !== customerId) throw forbidden(msg.roomOwnerOnly);
    await this.changeMembers(room, [], [peer.id]);
    if (leaving || peer.customerId !== customerId) {
      // The peer's owner, if now outside the room, sees it leave their guest list.
      const [still] = await this.db
        .select({ id: peers.id })
        .from(peers)
        .where(and(eq(peers.roomId, room.id), eq(peers.customerId, peer.customerId)));
      if (!still && peer.customerId !== room.ownerId)
        await this.push(peer.customerId, { type: 'deleted_guest_party', party_id: room.id });
    }
    const visibleToMe =
      room.ownerId === customerId ||
      (
        await this.db
          .select({ id: peers.id })
          .from(peers)
          .where(and(eq(peers.roomId, room.id), eq(peers.customerId, customerId)))
      ).length > 0;
    return visibleToMe ? this.presentOne(room.id, customerId) : null;
  }

  async regeneratePassword(customerId: number, roomId: number): Promise<string> {
    const room = await this.visible(customerId, roomId);
    if (room.ownerId !== customerId) throw forbidden(msg.roomOwnerOnly);
    const password = newRoomPassword();
    await this.db
      .update(rooms)
      .set({ passwordEnc: encrypt(this.deps.encryptionKey, password) })
      .where(eq(rooms.id, room.id));
    return password;
  }

  async delete(customerId: number, roomId: number): Promise<void> {
    const room = await this.visible(customerId, roomId);
    if (room.ownerId !== customerId) throw forbidden(msg.roomOwnerOnly);
    await this.remove(room);
  }

  /**
   * A manager deletes a room: the same path as its owner's delete (agents resynced, the owner and
   * every guest told live); `inTx` runs inside the deleting transaction (the audit entry).
   */
  async adminDelete(roomId: number, inTx: (tx: Db) => Promise<void>): Promise<void> {
    const [room] = await this.db.select().from(rooms).where(eq(rooms.id, roomId));
    if (!room) throw notFound(msg.roomNotFound);
    await this.remove(room, inTx);
  }

  private async remove(room: RoomRow, inTx?: (tx: Db) => Promise<void>): Promise<void> {
    const customerId = room.ownerId;
    const members = await this.db.select().from(peers).where(eq(peers.roomId, room.id));
    const guests = [...new Set(members.map((m) => m.customerId).filter((c) => c !== customerId))];
    const revisions = await this.db.transaction(async (tx) => {
      await inTx?.(tx);
      // Locked like a membership change, so the members read here are the ones removed.
      await tx.select({ id: rooms.id }).from(rooms).where(eq(rooms.id, room.id)).for('update');
      const before = await this.members(tx, room.id);
      await tx.update(peers).set({ roomId: null }).where(eq(peers.roomId, room.id));
      await tx.delete(rooms).where(eq(rooms.id, room.id));
      return recordChanges(
        tx,
        [...roomChanges(room.id, before, [])].map(([serverId, rooms]) => ({ serverId, rooms })),
      );
    });
    await this.publish(revisions);
    await this.push(customerId, { type: 'deleted_owner_party', party_id: room.id });
    for (const g of guests) await this.push(g, { type: 'deleted_guest_party', party_id: room.id });
    for (const m of members)
      await this.push(m.customerId, { type: 'updated_peer', peer: await this.deps.peers.presentOne(m.id) });
  }

  /**
   * Adds and removes members in one transaction and tells every affected agent and customer.
   * `target` is an existing room, or the creation of a new one inside that same transaction.
   */
  private async changeMembers(
    target: RoomRow | ((tx: Db) => Promise<RoomRow>),
    add: number[],
    remove: number[],
  ): Promise<RoomRow> {
    const touched = await this.db
      .select()
      .from(peers)
      .where(inArray(peers.id, [...add, ...remove]));
    // Read before the transaction: inside it, with the pool's connections held by queued
    // transactions, a read on another connection could wait for ever.
    const limit = add.length ? (await getSiteSettings(this.db)).room_member_limit : Infinity;
    const { room, revisions } = await this.db.transaction(async (tx) => {
      let room: RoomRow;
      let before: RoomMember[] = [];
      if (typeof target === 'function') room = await target(tx);
      else {
        // Locked: concurrent changes to one room queue, so each resyncs every member's server.
        const [locked] = await tx.select().from(rooms).where(eq(rooms.id, target.id)).for('update');
        if (!locked) throw notFound(msg.roomNotFound);
        room = locked;
        before = await this.members(tx, room.id);
      }
      if (add.length) {
        // The member cap (issue 31), counted under the room's lock: concurrent joins queue there and
        // each counts the others'. A room already over a lowered cap keeps its members.
        if (before.length + add.length > limit) throw conflict(msg.roomFull(limit));
        const updated = await tx
          .update(peers)
          .set({ roomId: room.id })
          .where(and(inArray(peers.id, add), sql`${peers.roomId} is null`))
          .returning({ id: peers.id });
        if (updated.length !== add.length) throw conflict(msg.roomPeerBusy);
        await tx
          .insert(roomMembers)
          .values(add.map((peerId) => ({ roomId: room.id, peerId })))
          .onConflictDoNothing();
      }
      if (remove.length) {
        await tx
          .update(peers)
          .set({ roomId: null })
          .where(and(inArray(peers.id, remove), eq(peers.roomId, room.id)));
        await tx
          .delete(roomMembers)
          .where(and(eq(roomMembers.roomId, room.id), inArray(roomMembers.peerId, remove)));
      }
      // Every server hosting a member before or after gets this room's change as a delta.
      const after = await this.members(tx, room.id);
      const revisions = await recordChanges(
        tx,
        [...roomChanges(room.id, before, after)].map(([serverId, rooms]) => ({ serverId, rooms })),
      );
      return { room, revisions };
    });
    await this.markProcessing(room.id, revisions);
    await this.publish(revisions);
    for (const t of touched)
      await this.push(t.customerId, { type: 'updated_peer', peer: await this.deps.peers.presentOne(t.id) });
    await this.settle();
    return room;
  }

  private members(db: Db, roomId: number): Promise<RoomMember[]> {
    return db
      .select({ id: peers.id, roomId: peers.roomId, address: peers.address, serverId: peers.serverId })
      .from(peers)
      .where(eq(peers.roomId, roomId));
  }

  private async markProcessing(roomId: number, revisions: Revision[]): Promise<void> {
    const online = revisions.length
      ? new Set(
          (
            await this.db
              .select()
              .from(servers)
              .where(
                inArray(
                  servers.id,
                  revisions.map((r) => r.serverId),
                ),
              )
          )
            .filter((s) => agentOnline(s))
            .map((s) => s.id),
        )
      : new Set<number>();
    const waits = revisions
      .filter((r) => online.has(r.serverId))
      .map((r) => ({ s: r.serverId, r: r.revision }));
    if (waits.length === 0) return this.broadcast(roomId);
    const pending: Waits = { waits, since: Date.now() };
    await this.db
      .update(rooms)
      .set({ processing: true, pendingRevision: pending })
      .where(eq(rooms.id, roomId));
    for (const c of await this.audience(roomId))
      await this.push(c, { type: 'new_party_operation', party_id: roomId });
  }

  /** Rooms whose servers have all acked stop processing; their members get the updated room. */
  async settle(): Promise<void> {
    // Through the partial index rooms_pending: the few waiting rooms, not every room (issue 33).
    const busy = await this.db
      .select({ id: rooms.id, pendingRevision: rooms.pendingRevision })
      .from(rooms)
      .where(isNotNull(rooms.pendingRevision));
    if (busy.length === 0) return;
    // Only the servers those rooms wait for, not the whole fleet on every ack.
    const waited = [...new Set(busy.flatMap((p) => (p.pendingRevision as Waits).waits.map((w) => w.s)))];
    const acked = new Map(
      (
        await this.db
          .select({ id: servers.id, acked: servers.ackedRevision })
          .from(servers)
          .where(inArray(servers.id, waited))
      ).map((s) => [s.id, s]),
    );
    for (const p of busy) {
      const pending = p.pendingRevision as Waits;
      const done =
        pending.waits.every((w) => (acked.get(w.s)?.acked ?? 0) >= w.r) ||
        Date.now() - pending.since > 30_000;
      if (!done) continue;
      const cleared = await this.db
        .update(rooms)
        .set({ processing: false, pendingRevision: null })
        .where(and(eq(rooms.id, p.id), sql`${rooms.pendingRevision} = ${JSON.stringify(pending)}::jsonb`))
        .returning({ id: rooms.id });
      if (cleared.length === 0) continue;
      for (const c of await this.audience(p.id))
        await this.push(c, { type: 'stop_party_operation', party_id: p.id });
      await this.broadcast(p.id);
    }
  }

  /** The owner and every customer with a peer in the room. */
  private async audience(roomId: number): Promise<number[]> {
    const [room] = await this.db.select({ owner: rooms.ownerId }).from(rooms).where(eq(rooms.id, roomId));
    if (!room) return [];
    const members = await this.db.select({ c: peers.customerId }).from(peers).where(eq(peers.roomId, roomId));
    return [...new Set([room.owner, ...members.map((m) => m.c)])];
  }

  private async broadcast(roomId: number): Promise<void> {
    const [row] = await this.db.select().from(rooms).where(eq(rooms.id, roomId));
    if (!row) return;
    for (const c of await this.audience(roomId)) {
      const [room] = await this.present([row], c);
      await this.push(
        c,
        c === row.ownerId
          ? { type: 'updated_owner_party', party: room }
          : { type: 'updated_guest_party', party: room },
      );
    }
  }

  private async publish(revisions: Revision[]): Promise<void> {
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
  }

  private async push(customerId: number, message: PushMessage): Promise<void> {
    await this.deps.bus.publish({ kind: 'user', realm: 'customer', userId: customerId, message });
  }
}
