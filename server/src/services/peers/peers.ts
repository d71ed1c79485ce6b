/**
 * Peers: creation, keys, moves, expiry and the busy states that wait for agents. Over 400 lines
 * because every path that changes a peer (the customer's, a payment's, a manager's) shares the one
 * flow here — desired-state change, agent acks, the owner's pushes — rather than keeping copies.
 */
import { and, asc, desc, eq, gte, inArray, isNotNull, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { fill, msg, type Peer, type PeerOperation, type PushMessage } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, peerStats, peers, planHistory, plans, servers } from '../../db/schema.ts';
import { decrypt, encrypt, generatePresharedKey, generateWireguardKeyPair } from '../../lib/crypto.ts';
import { badRequest, conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { ipv4FromIndex, nextAddressIndex } from '../fleet/addresses.ts';
import { recordChanges, type Change, type Revision } from '../fleet/desiredState.ts';
import { agentOnline, endpointOf, presentPeerServer, type ServerRow } from '../fleet/servers.ts';
import { ONLINE_WINDOW } from './usage.ts';
import { bytesOfGb, newPeriod, type PlanTerms } from './planTerms.ts';
import { renderMikrotik, renderWgQuick, type ClientConfigInput } from './wgconfig.ts';
import { mirrorTokenHash, newMirrorToken, openMirrorToken } from './mirrorTokens.ts';
import { CLEARED as CONCURRENT_USE_CLEARED, concurrentUseOf } from './concurrentUseFields.ts';

/** What a peer row keeps of a new mirror token. */
const mirrorColumns = ({ mirrorTokenEnc, mirrorTokenHash: hash }: ReturnType<typeof newMirrorToken>) => ({
  mirrorTokenEnc,
  mirrorTokenHash: hash,
});

type PeerRow = typeof peers.$inferSelect;

/** What a peer waits for: each server's agent acknowledging at least that revision. */
interface Pending {
  op: PeerOperation;
  /** Origin of the request that started it, for the mirror link in the pushes that end it. */
  origin?: string;
  waits: { s: number; r: number }[];
  since: number;
}

/** A committed change: the peer as locked before it, and what it waits for. */
interface Claimed {
  row: PeerRow;
  revisions: Revision[];
  waits: { s: number; r: number }[];
  offline: ServerRow[];
}

/** Work a caller adds to a peer change's own transaction (e.g. its audit entry). */
export type InTx = (tx: Db) => Promise<void>;

/** A busy peer whose agents have not answered by then stops being busy (with an `info` push). */
export const PENDING_TIMEOUT_MS = 30_000;

export interface PeerServiceDeps {
  db: Db;
  encryptionKey: Buffer;
  bus: Bus;
  /**
   * Base URL for mirror links: PUBLIC_URL; else the requester's origin in answers to that requester,
   * and a relative link (resolved by the SPA) everywhere else.
   */
  publicUrl?: string;
}

/** Everything a customer (and a manager) can do to peers; every lookup goes through the owner. */
export class PeerService {
  /** Also run after every ack (rooms waiting on agents settle there). */
  onSettled: (serverId: number) => Promise<void> = async () => {};

  constructor(private readonly deps: PeerServiceDeps) {}

  private get db() {
    return this.deps.db;
  }

  mirrorLink(token: string, origin?: string): string {
    return `${this.deps.publicUrl ?? origin ?? ''}/api/mirror/${token}`;
  }

  /** The peer, only if it belongs to this customer (another customer's id is simply not found). */
  async getOwned(customerId: number, peerId: number): Promise<PeerRow> {
    const [row] = await this.db
      .select()
      .from(peers)
      .where(and(eq(peers.id, peerId), eq(peers.customerId, customerId)));
    if (!row) throw notFound(msg.peerNotFound);
    return row;
  }

  async present(rows: PeerRow[], origin?: string): Promise<Peer[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const serverIds = [...new Set(rows.map((r) => r.serverId))];
    const roomIds = [...new Set(rows.map((r) => r.roomId).filter((id): id is number => id !== null))];
    const [serverRows, history, roomRows, onlineRows] = await Promise.all([
      this.db.select().from(servers).where(inArray(servers.id, serverIds)),
      this.db
        .select()
        .from(planHistory)
        .where(inArray(planHistory.peerId, ids))
        .orderBy(desc(planHistory.createdAt), desc(planHistory.id)),
      roomIds.length
        ? this.db.select({ id: rooms.id, name: rooms.name }).from(rooms).where(inArray(rooms.id, roomIds))
        : [],
      this.db
        .select({ id: peerStats.peerId })
        .from(peerStats)
        .where(
          and(inArray(peerStats.peerId, ids), sql`${peerStats.latestHandshake} > now() - ${ONLINE_WINDOW}`),
        ),
    ]);
    const online = new Set(onlineRows.map((r) => r.id));
    const serverById = new Map(serverRows.map((s) => [s.id, s]));
    const roomById = new Map(roomRows.map((p) => [p.id, p]));
    return rows.map((row) => {
      const pending = row.pendingRevision as Pending | null;
      return {
        id: row.id,
        name: row.name,
        active: PeerService.isLive(row),
        manager_disabled: row.managerDisabledAt !== null,
        expiration_date: row.expiresAt?.toISOString() ?? null,
        data:
          row.dataAllowance === null
            ? null
            : { used: Math.min(row.dataUsed, row.dataAllowance), allowance: row.dataAllowance },
        created: row.createdAt.toISOString(),
        address: row.address.replace(/\/\d+$/, ''),
        plans_history: history
          .filter((h) => h.peerId === row.id)
          .map((h) => ({
            plan_name: h.planName,
            plan_price: Number(h.planPrice),
            created: h.createdAt.toISOString(),
            ...(h.refundedAt ? { refunded: h.refundedAt.toISOString() } : {}),
          })),
        server: presentPeerServer(serverById.get(row.serverId)!),
        mirror_link: this.mirrorLink(openMirrorToken(this.deps.encryptionKey, row.mirrorTokenEnc), origin),
        party: row.roomId !== null ? (roomById.get(row.roomId) ?? null) : null,
        manual_payment: row.manualPayment,
        processing: pending?.op ?? null,
        online: online.has(row.id),
        concurrent_use: concurrentUseOf(row),
      };
    });
  }

  async list(customerId: number, origin?: string): Promise<Peer[]> {
    const rows = await this.db
      .select()
      .from(peers)
      .where(eq(peers.customerId, customerId))
      .orderBy(asc(peers.id));
    return this.present(rows, origin);
  }

  async presentOne(peerId: number, origin?: string): Promise<Peer> {
    const [row] = await this.db.select().from(peers).where(eq(peers.id, peerId));
    if (!row) throw notFound(msg.peerNotFound);
    return (await this.present([row], origin))[0]!;
  }

  private async configInput(row: PeerRow): Promise<ClientConfigInput> {
    const [server] = await this.db.select().from(servers).where(eq(servers.id, row.serverId));
    const key = this.deps.encryptionKey;
    return {
      name: row.name,
      privateKey: decrypt(key, row.privateKeyEnc),
      presharedKey: decrypt(key, row.presharedKeyEnc),
      address: row.address.replace(/\/\d+$/, ''),
      dns: server!.dns,
      mtu: server!.mtu,
      serverPublicKey: server!.publicKey,
      endpoint: endpointOf(server!),
      endpointHost: server!.host,
      endpointPort: server!.port,
    };
  }

  private static isLive(row: PeerRow): boolean {
    return (
      row.active &&
      (row.expiresAt === null || row.expiresAt.getTime() > Date.now()) &&
      (row.dataAllowance === null || row.dataUsed < row.dataAllowance)
    );
  }

  /** The `.conf` of an active peer of this customer. */
  async config(
    customerId: number,
    peerId: number,
    format: 'conf' | 'mikrotik' = 'conf',
  ): Promise<{ name: string; text: string }> {
    const row = await this.getOwned(customerId, peerId);
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactiveDownload);
    const input = await this.configInput(row);
    return { name: row.name, text: format === 'mikrotik' ? renderMikrotik(input) : renderWgQuick(input) };
  }

  /**
   * The mirror link's answer: the current `.conf` of the peer with this token, if it is live or
   * only expired (or out of data). An expired peer's tunnel is off on its server, but its link keeps answering the
   * same configuration, so a renewal needs no new import; a peer a manager switched off does not.
   */
  async configByMirrorToken(
    token: string,
  ): Promise<{ id: number; name: string; text: string; expiresAt: Date | null } | null> {
    if (!/^[A-Za-z0-9_-]{32,64}$/.test(token)) return null;
    const [row] = await this.db
      .select()
      .from(peers)
      .where(eq(peers.mirrorTokenHash, mirrorTokenHash(token)));
    // Out of time or out of data: off on its server, but a plan brings it back as it was.
    const expired =
      (row?.expiresAt != null && row.expiresAt.getTime() <= Date.now()) || row?.dataExhaustedAt != null;
    if (!row || !(PeerService.isLive(row) || expired)) return null;
    // A disabled customer's peers are off their servers: their mirror links serve nothing either.
    const [owner] = await this.db
      .select({ active: customers.active })
      .from(customers)
      .where(eq(customers.id, row.customerId));
    if (!owner?.active) return null;
    return {
      id: row.id,
      name: row.name,
      text: renderWgQuick(await this.configInput(row)),
      expiresAt: row.expiresAt,
    };
  }

  /** New mirror token: the old URL stops working at once. */
  async regenerateMirror(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const row = await this.getOwned(customerId, peerId);
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactive);
    await this.db
      .update(peers)
      .set({ ...mirrorColumns(newMirrorToken(this.deps.encryptionKey)), updatedAt: sql`now()` })
      .where(eq(peers.id, row.id));
    return this.presentOne(row.id, origin);
  }

  /** New key pair and preshared key; the address stays. Asynchronous: the peer is busy until the agent acks. */
  async regenerate(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const owned = await this.getOwned(customerId, peerId);
    this.assertActionable(owned);
    const keys = generateWireguardKeyPair();
    const done = await this.db.transaction(async (tx) => {
      const row = await this.lock(tx, owned.id);
      this.assertActionable(row);
      await tx
        .update(peers)
        .set({
          publicKey: keys.publicKey,
          privateKeyEnc: encrypt(this.deps.encryptionKey, keys.privateKey),
          presharedKeyEnc: encrypt(this.deps.encryptionKey, generatePresharedKey()),
          // New keys: the devices sharing the old ones are cut off, so the flag ends now (issue 19).
          ...CONCURRENT_USE_CLEARED,
          updatedAt: sql`now()`,
        })
        .where(eq(peers.id, row.id));
      const revisions = await recordChanges(tx, [
        { serverId: row.serverId, upsertPeerIds: [row.id], removeKeys: [row.publicKey] },
      ]);
      return this.claim(tx, row, 'regenerate', revisions, origin);
    });
    return this.afterChange(done, origin);
  }

  /** Moves the peer to another active server; keys and address stay, so only the server part of the `.conf` changes. */
  async changeServer(customerId: number, peerId: number, serverId: number, origin?: string): Promise<Peer> {
    const owned = await this.getOwned(customerId, peerId);
    this.assertActionable(owned);
    return this.move(owned.id, serverId, (row) => this.assertActionable(row), origin);
  }

  /**
   * A manager moves any peer (a switched-off one too: it simply stays off on its new server), by
   * the same flow as the owner — busy state, agent acks, the owner's pushes. `inTx` runs inside the
   * change's transaction (the audit entry).
   */
  async adminChangeServer(peerId: number, serverId: number, inTx?: InTx): Promise<Peer> {
    const [row] = await this.db.select({ id: peers.id }).from(peers).where(eq(peers.id, peerId));
    if (!row) throw notFound(msg.peerNotFound);
    const notBusy = (locked: PeerRow) => {
      if (locked.pendingOperation) throw conflict(msg.peerBusy);
    };
    return this.move(row.id, serverId, notBusy, undefined, inTx);
  }

  /**
   * The peer's row, locked until the transaction ends: every change that makes a peer busy takes
   * it first and checks the busy state under it, so of two concurrent changes (a regenerate and a
   * change_server) the second sees the first's busy state and is refused.
   */
  private async lock(tx: Db, peerId: number): Promise<PeerRow> {
    const [row] = await tx.select().from(peers).where(eq(peers.id, peerId)).for('update');
    if (!row) throw notFound(msg.peerNotFound);
    return row;
  }

  private async move(
    peerId: number,
    serverId: number,
    check: (row: PeerRow) => void,
    origin?: string,
    inTx?: InTx,
  ): Promise<Peer> {
    const done = await this.db.transaction(async (tx) => {
      const row = await this.lock(tx, peerId);
      check(row);
      if (serverId === row.serverId) throw badRequest(msg.sameServer);
      const [target] = await tx.select().from(servers).where(eq(servers.id, serverId));
      if (!target) throw notFound(msg.serverNotFound);
      if (!target.active) throw badRequest(msg.serverUnavailable);
      // A peer in a room keeps its room: only to a server that allows rooms, and every server of its
      // room mates recomputes its mesh links.
      if (row.roomId !== null && !target.allowRooms) throw badRequest(msg.roomPeerServer);
      const mates =
        row.roomId !== null
          ? (await tx.select({ s: peers.serverId }).from(peers).where(eq(peers.roomId, row.roomId))).map(
              (m) => m.s,
            )
          : [];
      await tx
        .update(peers)
        .set({ serverId, updatedAt: sql`now()` })
        .where(eq(peers.id, row.id));
      await inTx?.(tx);
      const full = row.roomId !== null;
      const revisions = await recordChanges(tx, [
        { serverId: row.serverId, removeKeys: [row.publicKey], full },
        { serverId, upsertPeerIds: [row.id], full },
        ...[...new Set(mates)]
          .filter((s) => s !== serverId && s !== row.serverId)
          .map((s) => ({ serverId: s, full: true })),
      ]);
      return this.claim(tx, row, 'change_server', revisions, origin);
    });
    return this.afterChange(done, origin);
  }

  /**
   * A manager's drain moves peers off a server in batches, through the same desired-state flow as
   * a customer's change_server (one transaction per batch instead of per peer): the source drops
   * their keys, the target adds them with the same keys and addresses, room mates' servers
   * recompute their mesh, and each live peer is busy until both agents ack, its owner then getting
   * `updated_peer` and `success` exactly as for their own move. Peers already busy, or no longer
   * on `fromServerId`, are left for the next batch. Returns the ids actually moved.
   */
  async moveMany(fromServerId: number, peerIds: number[], target: ServerRow): Promise<number[]> {
    if (peerIds.length === 0) return [];
    const { moved, revisions, waits, offline } = await this.db.transaction(async (tx) => {
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
      const roomIds = [...new Set(moved.map((m) => m.roomId).filter((p): p is number => p !== null))];
      const mates = roomIds.length
        ? (
            await tx.selectDistinct({ s: peers.serverId }).from(peers).where(inArray(peers.roomId, roomIds))
          ).map((m) => m.s)
        : [];
      const full = roomIds.length > 0;
      const revisions = await recordChanges(tx, [
        { serverId: fromServerId, removeKeys: moved.map((m) => m.publicKey), full },
        { serverId: target.id, upsertPeerIds: moved.map((m) => m.id), full },
        ...mates
          .filter((s) => s !== target.id && s !== fromServerId)
          .map((s) => ({ serverId: s, full: true })),
      ]);
      // Busy in the same transaction, like a customer's change (see lock()).
      const serverRows = await tx
        .select()
        .from(servers)
        .where(
          inArray(
            servers.id,
            revisions.map((r) => r.serverId),
          ),
        );
      const offline = serverRows.filter((s) => !agentOnline(s));
      const waits = offline.length > 0 ? [] : revisions.map((r) => ({ s: r.serverId, r: r.revision }));
      const live = moved.filter((m) => PeerService.isLive(m));
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
    const notWaiting = waits.length > 0 ? moved.filter((m) => !PeerService.isLive(m)) : moved;
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
        if (offline.length > 0 && PeerService.isLive(row))
          await this.push(row.customerId, {
            type: 'info',
            peer_id: row.id,
            message: fill(msg.agentOffline, {
              server: offline.map((s) => s.name).join(', '),
              name: row.name,
            }),
          });
      }
    }
    for (const w of waits) await this.settleAcks(w.s);
    return moved.map((m) => m.id);
  }

  private assertActionable(row: PeerRow): void {
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactive);
    if (row.pendingOperation) throw conflict(msg.peerBusy);
  }

  /**
   * Inside the change's transaction: mark the peer busy until the online agents ack (committed
   * with the change itself, so a concurrent change sees it), or — when an involved agent is
   * offline — nothing to wait for: the change is queued for it.
   */
  private async claim(
    tx: Db,
    row: PeerRow,
    op: PeerOperation,
    revisions: Revision[],
    origin?: string,
  ): Promise<Claimed> {
    const serverRows = await tx
      .select()
      .from(servers)
      .where(
        inArray(
          servers.id,
          revisions.map((r) => r.serverId),
        ),
      );
    const byId = new Map(serverRows.map((s) => [s.id, s]));
    const offline = revisions
      .map((r) => byId.get(r.serverId))
      .filter((s): s is ServerRow => !!s && !agentOnline(s));
    const waits = offline.length > 0 ? [] : revisions.map((r) => ({ s: r.serverId, r: r.revision }));
    if (waits.length > 0) {
      const pending: Pending = { op, origin, waits, since: Date.now() };
      await tx
        .update(peers)
        .set({ pendingOperation: op, pendingRevision: pending })
        .where(eq(peers.id, row.id));
    }
    return { row, revisions, waits, offline };
  }

  /**
   * After a change is committed: tell the agents (bus), and either settle the acks that may already
   * have arrived or — when an involved agent is offline — tell the owner it is queued.
   */
  private async afterChange({ row, revisions, waits, offline }: Claimed, origin?: string): Promise<Peer> {
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    if (offline.length > 0) {
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.agentOffline, { server: offline.map((s) => s.name).join(', '), name: row.name }),
      });
    }
    if (waits.length === 0) {
      const peer = await this.presentOne(row.id, origin);
      await this.push(row.customerId, { type: 'updated_peer', peer });
      return peer;
    }
    // Acks may already have arrived (fast agents); settle now rather than wait for the next one.
    for (const w of waits) await this.settleAcks(w.s);
    return this.presentOne(row.id, origin);
  }

  async push(customerId: number, message: PushMessage): Promise<void> {
    await this.deps.bus.publish({ kind: 'user', realm: 'customer', userId: customerId, message });
  }

  /**
   * Called when a server's agent acknowledges a revision: peers whose every wait is now satisfied
   * stop being busy, and their owners get `updated_peer` then `success`.
   */
  async settleAcks(serverId: number): Promise<void> {
    await this.onSettled(serverId);
    const candidates = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`${peers.pendingRevision} -> 'waits' @> ${JSON.stringify([{ s: serverId }])}::jsonb`,
        ),
      );
    if (candidates.length === 0) return;
    const involved = [
      ...new Set(candidates.flatMap((c) => (c.pendingRevision as Pending).waits.map((w) => w.s))),
    ];
    const acked = new Map(
      (
        await this.db
          .select({ id: servers.id, acked: servers.ackedRevision })
          .from(servers)
          .where(inArray(servers.id, involved))
      ).map((s) => [s.id, s.acked]),
    );
    for (const c of candidates) {
      const pending = c.pendingRevision as Pending;
      if (!pending.waits.every((w) => (acked.get(w.s) ?? 0) >= w.r)) continue;
      await this.finish(c, pending, 'success');
    }
  }

  /**
   * The agent of a server could not apply up to `revision`: peers waiting on it stop being busy
   * with an `error` push (the change stays desired; the agent keeps retrying).
   */
  async failPending(serverId: number, revision: number): Promise<void> {
    const candidates = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`${peers.pendingRevision} -> 'waits' @> ${JSON.stringify([{ s: serverId }])}::jsonb`,
        ),
      );
    for (const c of candidates) {
      const pending = c.pendingRevision as Pending;
      if (pending.waits.some((w) => w.s === serverId && w.r <= revision))
        await this.finish(c, pending, 'error');
    }
  }

  /** Ends a busy state once (of two instances racing, one wins) and tells the owner. */
  private async finish(
    row: PeerRow,
    pending: Pending,
    outcome: 'success' | 'timeout' | 'error',
  ): Promise<void> {
    const cleared = await this.db
      .update(peers)
      .set({ pendingOperation: null, pendingRevision: null })
      .where(and(eq(peers.id, row.id), sql`${peers.pendingRevision} = ${JSON.stringify(pending)}::jsonb`))
      .returning({ id: peers.id, serverId: peers.serverId });
    if (cleared.length === 0) return;
    const peer = await this.presentOne(row.id, pending.origin);
    await this.push(row.customerId, { type: 'updated_peer', peer });
    if (outcome === 'success') {
      const text = pending.op === 'regenerate' ? msg.peerRegenerated : msg.peerMoved;
      await this.push(row.customerId, {
        type: 'success',
        peer_id: row.id,
        message: fill(text, { name: row.name, server: peer.server.name }),
      });
    } else if (outcome === 'error') {
      await this.push(row.customerId, {
        type: 'error',
        peer_id: row.id,
        message: fill(msg.peerOpFailed, { name: row.name }),
      });
    } else {
      const [server] = await this.db.select().from(servers).where(eq(servers.id, cleared[0]!.serverId));
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.agentOffline, { server: server?.name ?? '', name: row.name }),
      });
    }
  }

  /** Busy states older than PENDING_TIMEOUT_MS end with an `info` (the change stays queued for the agent). */
  async expirePending(now = Date.now()): Promise<void> {
    const rows = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`(${peers.pendingRevision} ->> 'since')::bigint <= ${now - PENDING_TIMEOUT_MS}`,
        ),
      );
    for (const row of rows) await this.finish(row, row.pendingRevision as Pending, 'timeout');
  }

  /**
   * Creates a peer for a customer with a plan: keys, a fleet-wide address for life, a mirror token,
   * the plan's expiry and a history entry; then tells the server's agent and the owner.
   */
  async provision(input: {
    customerId: number;
    planId: number;
    name: string;
    server: ServerRow;
    manualPayment: boolean;
    origin?: string;
    /** Runs inside the creating transaction with the new peer's id (a manager's audit entry). */
    inTx?: (tx: Db, peerId: number) => Promise<void>;
  }): Promise<Peer> {
    const name = input.name.trim();
    if (!name) throw badRequest(msg.peerNameRequired, { name: msg.peerNameRequired });
    if (name.length > 40) throw badRequest(msg.peerNameTooLong, { name: msg.peerNameTooLong });
    const [plan] = await this.db.select().from(plans).where(eq(plans.id, input.planId));
    if (!plan) throw notFound(msg.planNotFound);
    const [clash] = await this.db
      .select({ id: peers.id })
      .from(peers)
      .where(and(eq(peers.customerId, input.customerId), sql`lower(${peers.name}) = lower(${name})`));
    if (clash) throw conflict(msg.peerNameTaken);
    for (let attempt = 0; ; attempt++) {
      try {
        const created = await this.db.transaction(async (tx) => {
          const made = await this.insertPeer(tx, { ...input, name, plan });
          await input.inTx?.(tx, made.id);
          return made;
        });
        return await this.announceCreated(created, input.customerId, input.origin);
      } catch (e) {
        // Two peers created at once may pick the same address: the unique index refuses one; retry.
        if (isUniqueViolation(e) && attempt < 5) continue;
        throw e;
      }
    }
  }

  /**
   * The rows of a new peer, inside the caller's transaction (a paid invoice delivers in the same
   * transaction that marks it delivered): address, keys, mirror token, expiry, the plan-history
   * entry (unique per invoice) and the change for its server's agent.
   */
  async insertPeer(
    tx: Db,
    input: {
      customerId: number;
      server: ServerRow;
      name: string;
      plan: typeof plans.$inferSelect;
      manualPayment: boolean;
      invoiceId?: string;
    },
  ): Promise<{ id: number; revisions: Revision[] }> {
    const key = this.deps.encryptionKey;
    const keys = generateWireguardKeyPair();
    const index = await nextAddressIndex(tx);
    const [created] = await tx
      .insert(peers)
      .values({
        customerId: input.customerId,
        serverId: input.server.id,
        name: input.name,
        addressIndex: index,
        address: ipv4FromIndex(index),
        publicKey: keys.publicKey,
        privateKeyEnc: encrypt(key, keys.privateKey),
        presharedKeyEnc: encrypt(key, generatePresharedKey()),
        ...mirrorColumns(newMirrorToken(key)),
        expiresAt: sql`now() + ${input.plan.validity}::interval`,
        manualPayment: input.manualPayment,
        ...newPeriod(input.plan.dataGb),
      })
      .returning({ id: peers.id });
    await tx.insert(planHistory).values({
      peerId: created!.id,
      planId: input.plan.id,
      planName: input.plan.name,
      planPrice: input.plan.price,
      validity: input.plan.validity,
      dataBytes: bytesOfGb(input.plan.dataGb),
      invoiceId: input.invoiceId,
    });
    const revisions = await recordChanges(tx, [{ serverId: input.server.id, upsertPeerIds: [created!.id] }]);
    return { id: created!.id, revisions };
  }

  /** After a new peer is committed: its agent is told, the owner gets `created_peer`. */
  async announceCreated(
    created: { id: number; revisions: Revision[] },
    customerId: number,
    origin?: string,
  ): Promise<Peer> {
    for (const r of created.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    // The owner's push never carries the caller's origin (a manager's Host is not the customer's):
    // PUBLIC_URL, or a relative link the customer's SPA resolves against its own address.
    const peer = await this.presentOne(created.id);
    await this.push(customerId, { type: 'created_peer', peer });
    return origin ? this.presentOne(created.id, origin) : peer;
  }

  /**
   * A manager switches a peer on or off or sets its expiry; its server converges (the delta
   * builder turns a peer that is no longer live into a removal) and the owner sees it live.
   */
  async adminUpdate(
    peerId: number,
    patch: { active?: boolean; expiresAt?: Date | null },
    origin?: string,
    inTx?: InTx,
  ): Promise<Peer> {
    const [row] = await this.db.select().from(peers).where(eq(peers.id, peerId));
    if (!row) throw notFound(msg.peerNotFound);
    const revisions = await this.db.transaction(async (tx) => {
      await tx
        .update(peers)
        .set({
          // A manager's switch-off is remembered so a plan bought meanwhile does not undo it (L9).
          ...(patch.active !== undefined
            ? { active: patch.active, managerDisabledAt: patch.active ? null : sql`now()` }
            : {}),
          ...(patch.expiresAt !== undefined ? { expiresAt: patch.expiresAt } : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(peers.id, peerId));
      await inTx?.(tx);
      return recordChanges(tx, [{ serverId: row.serverId, upsertPeerIds: [row.id] }]);
    });
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    // As in provision: the owner's push does not carry the manager's origin.
    const peer = await this.presentOne(peerId);
    await this.push(row.customerId, { type: 'updated_peer', peer });
    if (patch.active === false && row.managerDisabledAt === null)
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.peerManagerDisabledPush, { name: row.name }),
      });
    return origin ? this.presentOne(peerId, origin) : peer;
  }

  /**
   * Adds a plan to a peer — a paid add_plan or a manager's grant, one path: expiry moves from
   * max(now, current expiry) by the plan's validity, the peer is switched back on (unless a manager
   * switched it off: that stays until a manager lifts it), the history gets
   * its row; then its server converges and the owner sees it live. `inTx` runs in the transaction.
   */
  async extendWithPlan(
    peerId: number,
    plan: PlanTerms,
    history: { invoiceId?: string; manual?: { reason: string; grantedBy: number } },
    inTx?: InTx,
  ): Promise<Peer> {
    const extended = await this.db.transaction(async (tx) => {
      const done = await this.extendIn(tx, peerId, plan, history);
      await inTx?.(tx);
      return done;
    });
    return this.announceUpdated(extended);
  }

  /**
   * The rows of {@link extendWithPlan}, inside the caller's transaction (a paid invoice delivers in
   * the transaction that marks it delivered): the new expiry, the peer switched on, the history
   * entry (unique per invoice) and the change for its server's agent.
   */
  async extendIn(
    tx: Db,
    peerId: number,
    plan: PlanTerms,
    history: { invoiceId?: string; manual?: { reason: string; grantedBy: number } },
  ): Promise<{ id: number; customerId: number; revisions: Revision[] }> {
    const [peer] = await tx
      .update(peers)
      .set({
        expiresAt: sql`greatest(now(), coalesce(${peers.expiresAt}, now())) + ${plan.validity}::interval`,
        // Back on, unless a manager switched it off (issue 17, L9): only a manager lifts that.
        active: sql`${peers.managerDisabledAt} is null`,
        // A plan applied starts a new period: its allowance, nothing used (a top-up or a renewal).
        ...newPeriod(plan.dataGb),
        updatedAt: sql`now()`,
      })
      .where(eq(peers.id, peerId))
      .returning();
    if (!peer) throw notFound(msg.peerNotFound);
    await tx.insert(planHistory).values({
      peerId: peer.id,
      planId: plan.id,
      planName: plan.name,
      planPrice: plan.price,
      validity: plan.validity,
      dataBytes: bytesOfGb(plan.dataGb),
      invoiceId: history.invoiceId,
      manual: history.manual !== undefined,
      reason: history.manual?.reason,
      grantedBy: history.manual?.grantedBy,
    });
    const revisions = await recordChanges(tx, [{ serverId: peer.serverId, upsertPeerIds: [peer.id] }]);
    return { id: peer.id, customerId: peer.customerId, revisions };
  }

  /**
   * Takes back the period an invoice bought, inside the caller's transaction (a refund): its history
   * entry is marked refunded and the peer's expiry moves back by that plan's validity; a peer whose
   * period is gone is no longer live, so its server drops it. Null when the invoice delivered nothing
   * or was already taken back.
   */
  async takeBackIn(
    tx: Db,
    invoiceId: string,
  ): Promise<{ id: number; customerId: number; revisions: Revision[] } | null> {
    const [entry] = await tx
      .update(planHistory)
      .set({ refundedAt: sql`now()` })
      .where(and(eq(planHistory.invoiceId, invoiceId), isNull(planHistory.refundedAt)))
      .returning();
    if (!entry) return null;
    const [peer] = await tx
      .update(peers)
      .set({
        expiresAt: sql`${peers.expiresAt} - ${entry.validity}::interval`,
        updatedAt: sql`now()`,
      })
      .where(eq(peers.id, entry.peerId))
      .returning();
    if (!peer) return null;
    const revisions = await recordChanges(tx, [{ serverId: peer.serverId, upsertPeerIds: [peer.id] }]);
    return { id: peer.id, customerId: peer.customerId, revisions };
  }

  /** After a peer's extension is committed: its agent is told, the owner gets `updated_peer`. */
  async announceUpdated(done: { id: number; customerId: number; revisions: Revision[] }): Promise<Peer> {
    for (const r of done.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    const updated = await this.presentOne(done.id);
    await this.push(done.customerId, { type: 'updated_peer', peer: updated });
    return updated;
  }

  /** Disables peers whose plan ran out; their servers drop them and the owners see it live. */
  async disableExpired(): Promise<number> {
    return this.switchOff(
      and(eq(peers.active, true), lte(peers.expiresAt, sql`now()`))!,
      {},
      msg.peerExpired,
    );
  }

  /**
   * Disables peers that used up their plan's data allowance (services/peers/allowance.ts), exactly like
   * an expiry; applying a plan starts a new period and switches them back on.
   */
  async disableExhausted(): Promise<number> {
    return this.switchOff(
      and(
        eq(peers.active, true),
        isNotNull(peers.dataAllowance),
        isNull(peers.dataExhaustedAt),
        gte(peers.dataUsed, peers.dataAllowance),
      )!,
      { dataExhaustedAt: sql`now()` },
      msg.peerDataExhausted,
    );
  }

  /** Switches off the live peers matching `where`: their servers drop them, owners are told why. */
  private async switchOff(
    where: SQL,
    extra: Partial<Record<'dataExhaustedAt', SQL>>,
    message: string,
  ): Promise<number> {
    const off = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(peers)
        .set({ active: false, ...extra, updatedAt: sql`now()` })
        .where(where)
        .returning({
          id: peers.id,
          customerId: peers.customerId,
          serverId: peers.serverId,
          publicKey: peers.publicKey,
          name: peers.name,
        });
      const byServer = new Map<number, Change>();
      for (const r of rows) {
        const change = byServer.get(r.serverId) ?? { serverId: r.serverId, removeKeys: [] };
        change.removeKeys!.push(r.publicKey);
        byServer.set(r.serverId, change);
      }
      const revisions = await recordChanges(tx, [...byServer.values()]);
      return { rows, revisions };
    });
    for (const r of off.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    for (const r of off.rows) {
      await this.push(r.customerId, { type: 'updated_peer', peer: await this.presentOne(r.id) });
      await this.push(r.customerId, {
        type: 'info',
        peer_id: r.id,
        message: fill(message, { name: r.name }),
      });
    }
    return off.rows.length;
  }
}
