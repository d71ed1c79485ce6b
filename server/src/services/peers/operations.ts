/**
 * The busy states that wait for agents: a change is claimed under the peer's lock, recorded in the
 * desired state, and ends when every server's agent acknowledges it (or times out).
 */
import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { fill, msg, type Peer, type PeerOperation } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, servers } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { type Revision } from '../fleet/desiredState.ts';
import { agentOnline, type ServerRow } from '../fleet/servers.ts';
import { PeerView, type PeerRow, type Pending, isLive } from './presentation.ts';

/** A committed change: the peer as locked before it, and what it waits for. */
export interface Claimed {
  row: PeerRow;
  revisions: Revision[];
  waits: { s: number; r: number }[];
  offline: ServerRow[];
}

/** Work a caller adds to a peer change's own transaction (e.g. its audit entry). */
export type InTx = (tx: Db) => Promise<void>;

/** A busy peer whose agents have not answered by then stops being busy (with an `info` push). */
export const PENDING_TIMEOUT_MS = 30_000;

export class PeerOperations extends PeerView {
  /**
   * The peer's row, locked until the transaction ends: every change that makes a peer busy takes
   * it first and checks the busy state under it, so of two concurrent changes (a regenerate and a
   * change_server) the second sees the first's busy state and is refused.
   */
  protected async lock(tx: Db, peerId: number): Promise<PeerRow> {
    const [row] = await tx.select().from(peers).where(eq(peers.id, peerId)).for('update');
    if (!row) throw notFound(msg.peerNotFound);
    return row;
  }

  protected assertActionable(row: PeerRow): void {
    if (!isLive(row)) throw badRequest(msg.peerInactive);
    if (row.pendingOperation) throw conflict(msg.peerBusy);
  }

  /**
   * Inside the change's transaction: mark the peer busy until the online agents ack (committed
   * with the change itself, so a concurrent change sees it), or — when an involved agent is
   * offline — nothing to wait for: the change is queued for it.
   */
  protected async claim(
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
  protected async afterChange({ row, revisions, waits, offline }: Claimed, origin?: string): Promise<Peer> {
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    if (offline.length > 0) {
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: msg.serversOffline(
          offline.map((s) => s.name),
          row.name,
        ),
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
  protected async finish(
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
}
