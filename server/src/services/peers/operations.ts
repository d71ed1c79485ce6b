/**
 * The busy states that wait for agents: a change is claimed under the peer's lock, recorded in the
 * desired state, and ends when every server's agent acknowledges it (or times out).
 */
import { and, eq, getTableColumns, isNotNull, sql } from 'drizzle-orm';
import type { PgUpdateSetSource } from 'drizzle-orm/pg-core';
import { fill, msg, type Peer, type PeerOperation } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, servers } from '../../db/schema.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import { type RecordedRevision } from '../fleet/desiredState.ts';
import { agentOnline, type ServerRow } from '../fleet/servers.ts';
import { PeerView, type PeerRow, type Pending, isLive, peerOnline } from './presentation.ts';

/** A committed change: the peer as locked before it, and what it waits for. */
export interface Claimed {
  row: PeerRow;
  /** Each server's new revision, with its row as the change left it. */
  revisions: RecordedRevision[];
  waits: { s: number; r: number }[];
  offline: ServerRow[];
}

/** Work a caller adds to a peer change's own transaction (e.g. its audit entry). */
export type InTx = (tx: Db) => Promise<void>;

/** A busy peer whose agents have not answered by then stops being busy (with an `info` push). */
export const PENDING_TIMEOUT_MS = 30_000;

/**
 * The peer's every wait is acknowledged (a server no longer there counts as acked at 0): as a
 * column of a statement on `peers`, so a peer and its servers' acks are read together.
 */
const waitsAcked = () =>
  sql<boolean>`(${peers.pendingRevision} is not null and not exists (
    select 1 from jsonb_to_recordset(${peers.pendingRevision} -> 'waits') as w(s bigint, r bigint)
    left join servers waited on waited.id = w.s
    where coalesce(waited.acked_revision, 0) < w.r))`;

export class PeerOperations extends PeerView {
  /**
   * The peer's row, locked until the transaction ends: every change that makes a peer busy takes
   * it first and checks the busy state under it, so of two concurrent changes (a regenerate and a
   * change_server) the second sees the first's busy state and is refused. With `customerId`, only
   * that customer's peer (another's is simply not found, like getOwned): ownership and lock in one
   * statement, not a read before the transaction and another in it (issue 33).
   */
  protected async lock(tx: Db, peerId: number, customerId?: number): Promise<PeerRow> {
    const [row] = await tx
      .select()
      .from(peers)
      .where(
        customerId === undefined
          ? eq(peers.id, peerId)
          : and(eq(peers.id, peerId), eq(peers.customerId, customerId)),
      )
      .for('update');
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
   * offline — nothing to wait for: the change is queued for it. `change` is the change's own
   * update of the peer, written in the same statement as the busy state.
   */
  protected async claim(
    tx: Db,
    row: PeerRow,
    op: PeerOperation,
    revisions: RecordedRevision[],
    origin?: string,
    change: PgUpdateSetSource<typeof peers> = {},
  ): Promise<Claimed> {
    // The servers as recordChanges left them: whether each agent is online.
    const offline = revisions.map((r) => r.server).filter((s) => !agentOnline(s));
    const waits = offline.length > 0 ? [] : revisions.map((r) => ({ s: r.serverId, r: r.revision }));
    const pending: Pending | null = waits.length > 0 ? { op, origin, waits, since: Date.now() } : null;
    const set = { ...change, ...(pending ? { pendingOperation: op, pendingRevision: pending } : {}) };
    if (Object.keys(set).length > 0) await tx.update(peers).set(set).where(eq(peers.id, row.id));
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
    const known = { servers: revisions.map((r) => r.server) };
    if (waits.length === 0) {
      const peer = await this.presentOne(row.id, origin, known);
      await this.push(row.customerId, { type: 'updated_peer', peer });
      return peer;
    }
    // Acks may already have arrived (fast agents); settle now rather than wait for the next one.
    // The peer as it is now and whether its acks are all in, in one statement.
    const [now] = await this.db
      .select({ row: peers, online: peerOnline(), acked: waitsAcked() })
      .from(peers)
      .where(eq(peers.id, row.id));
    if (!now) throw notFound(msg.peerNotFound);
    if (!now.acked || !now.row.pendingOperation) {
      const online = new Set(now.online ? [row.id] : []);
      return (await this.present([now.row], origin, { ...known, online }))[0]!;
    }
    const server = known.servers.find((s) => s.id === now.row.serverId);
    await this.finish(now.row, now.row.pendingRevision as Pending, 'success', server);
    return this.presentOne(row.id, origin, known);
  }

  /**
   * Called when a server's agent acknowledges a revision: peers whose every wait is now satisfied
   * stop being busy, and their owners get `updated_peer` then `success`.
   */
  async settleAcks(serverId: number): Promise<void> {
    await this.onSettled(serverId);
    // The peers waiting on this server whose every wait is acked: the acks are read in the same
    // statement, so the peers still waiting for another server are not read at all; each with
    // its server's row, which the pushes show.
    const done = await this.db
      .select({ row: peers, server: servers })
      .from(peers)
      .innerJoin(servers, eq(servers.id, peers.serverId))
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`${peers.pendingRevision} -> 'waits' @> ${JSON.stringify([{ s: serverId }])}::jsonb`,
          waitsAcked(),
        ),
      );
    for (const c of done) await this.finish(c.row, c.row.pendingRevision as Pending, 'success', c.server);
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
    /** The peer's server as the caller read it (not read again unless the peer is elsewhere). */
    server?: ServerRow,
  ): Promise<void> {
    // The peer as it is once cleared, with its online state: presented without reading it again.
    const [cleared] = await this.db
      .update(peers)
      .set({ pendingOperation: null, pendingRevision: null })
      .where(and(eq(peers.id, row.id), sql`${peers.pendingRevision} = ${JSON.stringify(pending)}::jsonb`))
      .returning({ ...getTableColumns(peers), online: peerOnline() });
    if (!cleared) return;
    const { online, ...now } = cleared;
    const [peer] = await this.present([now], pending.origin, {
      online: new Set(online ? [now.id] : []),
      ...(server ? { servers: [server] } : {}),
    });
    if (!peer) return;
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
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.agentOffline, { server: peer.server.name, name: row.name }),
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
