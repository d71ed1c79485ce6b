/**
 * Moves between servers: the customer's and a manager's change of server, and drains (moveMany).
 */
import { and, eq, inArray, sql } from 'drizzle-orm';
import { msg, type Peer } from '@vpn/contracts';
import { peers, servers } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { recordChanges, type Revision } from '../fleet/desiredState.ts';
import { lockRooms, roomMoveChanges } from '../fleet/roomDelta.ts';
import { agentOnline, type ServerRow } from '../fleet/servers.ts';
import { type PeerRow, type Pending, isLive } from './presentation.ts';
import { type Claimed, type InTx } from './operations.ts';
import { recordDepartures } from './departures.ts';
import { PeerKeys } from './keys.ts';

export class PeerMoves extends PeerKeys {
  /** Moves the peer to another active server; keys and address stay, so only the server part of the `.conf` changes. */
  async changeServer(customerId: number, peerId: number, serverId: number, origin?: string): Promise<Peer> {
    // The customer's own peer: the ownership check is the lock's (issue 33).
    return this.move(peerId, serverId, (row) => this.assertActionable(row), origin, undefined, customerId);
  }

  /**
   * A manager moves any peer (a switched-off one too: it simply stays off on its new server), by
   * the same flow as the owner — busy state, agent acks, the owner's pushes. `inTx` runs inside the
   * change's transaction (the audit entry).
   */
  async adminChangeServer(peerId: number, serverId: number, inTx?: InTx): Promise<Peer> {
    const notBusy = (locked: PeerRow) => {
      if (locked.pendingOperation) throw conflict(msg.peerBusy);
    };
    return this.move(peerId, serverId, notBusy, undefined, inTx);
  }

  /** `customerId`: only that customer's peer moves (another's is not found). */
  protected async move(
    peerId: number,
    serverId: number,
    check: (row: PeerRow) => void,
    origin?: string,
    inTx?: InTx,
    customerId?: number,
  ): Promise<Peer> {
    const done = await this.db.transaction(async (tx) => {
      // A room member's room is locked before the peer, in the order a room change takes them.
      const mine = customerId === undefined ? undefined : eq(peers.customerId, customerId);
      const [pre] = await tx
        .select({ roomId: peers.roomId })
        .from(peers)
        .where(and(eq(peers.id, peerId), mine));
      if (pre?.roomId) await lockRooms(tx, [pre.roomId]);
      const row = await this.lock(tx, peerId, customerId);
      if (row.roomId !== null && row.roomId !== pre?.roomId) await lockRooms(tx, [row.roomId]);
      check(row);
      if (serverId === row.serverId) throw badRequest(msg.sameServer);
      const [target] = await tx.select().from(servers).where(eq(servers.id, serverId));
      if (!target) throw notFound(msg.serverNotFound);
      if (!target.active) throw badRequest(msg.serverUnavailable);
      // A peer in a room keeps its room: only to a server that allows rooms.
      if (row.roomId !== null && !target.allowRooms) throw badRequest(msg.roomPeerServer);
      await tx
        .update(peers)
        .set({ serverId, updatedAt: sql`now()` })
        .where(eq(peers.id, row.id));
      await recordDepartures(tx, row.serverId, [row]);
      await inTx?.(tx);
      // Its room's pairs, relay entry and mesh links as a room delta to every server hosting a
      // member before or after (issue 33), never a snapshot.
      const rooms = await roomMoveChanges(tx, [{ ...row, fromServerId: row.serverId }]);
      const revisions = await recordChanges(tx, [
        { serverId: row.serverId, removeKeys: [row.publicKey], rooms: rooms.get(row.serverId) },
        { serverId, upsertPeerIds: [row.id], rooms: rooms.get(serverId) },
        ...[...rooms]
          .filter(([s]) => s !== serverId && s !== row.serverId)
          .map(([s, r]) => ({ serverId: s, rooms: r })),
      ]);
      return this.claim(tx, row, 'change_server', revisions, origin);
    });
    return this.afterChange(done, origin);
  }

  /**
   * A manager's drain moves peers off a server in batches, through the same desired-state flow as
   * a customer's change_server (one transaction per batch instead of per peer): the source drops
   * their keys, the target adds them with the same keys and addresses, every server of their rooms
   * gets those rooms' changes as a room delta (issue 33), and each live peer is busy until both agents ack, its owner then getting
   * `updated_peer` and `success` exactly as for their own move. Peers already busy, or no longer
   * on `fromServerId`, are left for the next batch. Returns the ids actually moved.
   */
  async moveMany(fromServerId: number, peerIds: number[], target: ServerRow): Promise<number[]> {
    if (peerIds.length === 0) return [];
    const { moved, revisions, waits, offline } = await this.db.transaction(async (tx) => {
      // Their rooms locked first, as for one peer's move (move() above).
      const locked = (
        await tx
          .selectDistinct({ r: peers.roomId })
          .from(peers)
          .where(and(inArray(peers.id, peerIds), sql`${peers.roomId} is not null`))
      ).map((x) => x.r!);
      await lockRooms(tx, locked);
      const moved = await tx
        .update(peers)
        .set({ serverId: target.id, updatedAt: sql`now()` })
        .where(
          and(
            inArray(peers.id, peerIds),
            eq(peers.serverId, fromServerId),
            sql`${peers.pendingOperation} is null`,
          ),
        )
        .returning();
      if (moved.length === 0)
        return {
          moved,
          revisions: [] as Revision[],
          waits: [] as Claimed['waits'],
          offline: [] as ServerRow[],
        };
      await recordDepartures(tx, fromServerId, moved);
      // A room joined between that read and the update (rare): locked now.
      await lockRooms(
        tx,
        [...new Set(moved.flatMap((m) => (m.roomId === null ? [] : [m.roomId])))].filter(
          (r) => !locked.includes(r),
        ),
      );
      const rooms = await roomMoveChanges(
        tx,
        moved.map((m) => ({ id: m.id, roomId: m.roomId, fromServerId })),
      );
      const revisions = await recordChanges(tx, [
        { serverId: fromServerId, removeKeys: moved.map((m) => m.publicKey), rooms: rooms.get(fromServerId) },
        { serverId: target.id, upsertPeerIds: moved.map((m) => m.id), rooms: rooms.get(target.id) },
        ...[...rooms]
          .filter(([s]) => s !== target.id && s !== fromServerId)
          .map(([s, r]) => ({ serverId: s, rooms: r })),
      ]);
      // Busy in the same transaction, like a customer's change (see lock()); the servers as
      // recordChanges left them.
      const offline = revisions.map((r) => r.server).filter((s) => !agentOnline(s));
      const waits = offline.length > 0 ? [] : revisions.map((r) => ({ s: r.serverId, r: r.revision }));
      const live = moved.filter((m) => isLive(m));
      if (waits.length > 0 && live.length > 0) {
        const pending: Pending = { op: 'change_server', waits, since: Date.now() };
        await tx
          .update(peers)
          .set({ pendingOperation: 'change_server', pendingRevision: pending })
          .where(
            inArray(
              peers.id,
              live.map((m) => m.id),
            ),
          );
      }
      return { moved, revisions, waits, offline };
    });
    if (moved.length === 0) return [];
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    // Peers not waiting for acks (not live, or an agent offline) are shown their new server now.
    const notWaiting = waits.length > 0 ? moved.filter((m) => !isLive(m)) : moved;
    if (notWaiting.length > 0) {
      const shown = await this.present(
        await this.db
          .select()
          .from(peers)
          .where(
            inArray(
              peers.id,
              notWaiting.map((m) => m.id),
            ),
          ),
      );
      const byId = new Map(notWaiting.map((m) => [m.id, m]));
      for (const peer of shown) {
        const row = byId.get(peer.id)!;
        await this.push(row.customerId, { type: 'updated_peer', peer });
        if (offline.length > 0 && isLive(row))
          await this.push(row.customerId, {
            type: 'info',
            peer_id: row.id,
            message: msg.serversOffline(
              offline.map((s) => s.name),
              row.name,
            ),
          });
      }
    }
    for (const w of waits) await this.settleAcks(w.s);
    return moved.map((m) => m.id);
  }
}
