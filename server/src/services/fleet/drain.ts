import { and, asc, count, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { fleetMsg, msg, type DrainProgress } from '@vpn/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { peers, serverDrains, servers } from '../../db/schema.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, type Actor } from '../site/audit.ts';
import { peerCountOfServer, type ServerRow } from './servers.ts';

/** Peers moved per transaction. */
const BATCH = 100;
/** A drain whose row has not moved for this long died with its instance: it may be started again. */
const STALE_MS = 60_000;
/** Busy peers (a customer's own operation in flight) are retried this often, this many times. */
const BUSY_RETRY_MS = 1_000;
const BUSY_RETRIES = 90;

type DrainRow = typeof serverDrains.$inferSelect;

export const presentDrain = (d: DrainRow): DrainProgress => ({
  moved: d.moved,
  total: d.total,
  done: d.finishedAt !== null,
  started_at: d.startedAt.toISOString(),
  finished_at: d.finishedAt?.toISOString() ?? null,
  error: d.error,
});

/**
 * How a drain moves peers (PeerService.moveMany): named here, not imported, because fleet is a
 * lower domain than peers (docs/decisions.md, issue 18). Answers the ids of the peers it moved.
 */
export interface PeerMover {
  moveMany(fromServerId: number, peerIds: number[], target: ServerRow): Promise<number[]>;
}

export interface DrainDeps {
  db: Db;
  bus: Bus;
  peers: PeerMover;
  log: FastifyBaseLogger;
  /** Tests shorten the wait for busy peers. */
  busyRetryMs?: number;
}

/**
 * Drains a server: switches it off (no new peers land on it), then moves every peer to the other
 * active servers — peers in rooms only to servers that allow rooms — through PeerService.moveMany,
 * keeping keys and addresses. Progress lives in `server_drains` (any instance reports it) and is
 * pushed to consoles as `admin_drain` after every batch.
 */
export class DrainService {
  private readonly running = new Map<number, Promise<void>>();
  private stopped = false;

  constructor(private readonly deps: DrainDeps) {}

  private get db() {
    return this.deps.db;
  }

  async progress(serverId: number): Promise<DrainProgress | null> {
    const [row] = await this.db.select().from(serverDrains).where(eq(serverDrains.serverId, serverId));
    return row ? presentDrain(row) : null;
  }

  /** Checks, switches the server off, records the drain (audited) and starts moving in the background. */
  async start(actor: Actor, serverId: number, reason?: string): Promise<DrainProgress> {
    const row = await auditedTransaction(this.db, actor, async (tx, audit) => {
      const [server] = await tx.select().from(servers).where(eq(servers.id, serverId)).for('update');
      if (!server) throw notFound(msg.serverNotFound);
      const [current] = await tx.select().from(serverDrains).where(eq(serverDrains.serverId, serverId));
      if (
        current &&
        current.finishedAt === null &&
        (this.running.has(serverId) || Date.now() - current.updatedAt.getTime() < STALE_MS)
      )
        throw conflict(fleetMsg.drainRunning);
      const targets = await tx
        .select({ id: servers.id, allowRooms: servers.allowRooms })
        .from(servers)
        .where(and(eq(servers.active, true), ne(servers.id, serverId)));
      if (targets.length === 0) throw conflict(fleetMsg.drainNoTarget);
      const [inRooms] = await tx
        .select({ n: count() })
        .from(peers)
        .where(and(eq(peers.serverId, serverId), isNotNull(peers.roomId)));
      if (inRooms!.n > 0 && !targets.some((t) => t.allowRooms))
        throw conflict(fleetMsg.drainNoRoomTarget(inRooms!.n));
      const [total] = await tx.select({ n: count() }).from(peers).where(eq(peers.serverId, serverId));
      if (server.active) await tx.update(servers).set({ active: false }).where(eq(servers.id, serverId));
      const values = { total: total!.n, moved: 0, startedBy: actor.id, finishedAt: null, error: null };
      const [drain] = await tx
        .insert(serverDrains)
        .values({ serverId, ...values })
        .onConflictDoUpdate({
          target: serverDrains.serverId,
          set: { ...values, startedAt: sql`now()`, updatedAt: sql`now()` },
        })
        .returning();
      await audit({
        action: 'server.drain',
        targetType: 'server',
        targetId: serverId,
        changes: server.active ? { active: { before: true, after: false } } : {},
        reason,
        extra: { peers: total!.n },
      });
      return drain!;
    });
    await this.publish(row);
    this.launch(serverId);
    return presentDrain(row);
  }

  private launch(serverId: number): void {
    const run = this.run(serverId)
      .catch(async (err: unknown) => {
        this.deps.log.error({ err, serverId }, 'server drain failed');
        await this.finish(serverId, (err as Error).message || 'error').catch(() => {});
      })
      .finally(() => this.running.delete(serverId));
    this.running.set(serverId, run);
  }

  /** Resolves when this instance's drain of the server ends (tests, shutdown). */
  async settled(serverId: number): Promise<void> {
    await this.running.get(serverId);
  }

  stop(): Promise<void> {
    this.stopped = true;
    return Promise.all(this.running.values()).then(() => undefined);
  }

  private async run(serverId: number): Promise<void> {
    let busyRounds = 0;
    while (!this.stopped) {
      const targets = await this.targets(serverId);
      const batch = await this.db
        .select({ id: peers.id, roomId: peers.roomId })
        .from(peers)
        .where(and(eq(peers.serverId, serverId), isNull(peers.pendingOperation)))
        .orderBy(asc(peers.id))
        .limit(BATCH);
      if (batch.length === 0) {
        const [left] = await this.db.select({ n: count() }).from(peers).where(eq(peers.serverId, serverId));
        if (left!.n === 0) return this.finish(serverId, null);
        // Peers busy with their owner's own operation: wait for it to end (or time out), then retry.
        if (++busyRounds > BUSY_RETRIES) return this.finish(serverId, fleetMsg.drainBusyLeft(left!.n));
        await this.touch(serverId);
        await new Promise((r) => setTimeout(r, this.deps.busyRetryMs ?? BUSY_RETRY_MS));
        continue;
      }
      if (targets.length === 0) return this.finish(serverId, fleetMsg.drainNoTarget);
      // Least-loaded target first; room peers only where rooms are allowed.
      const groups = new Map<number, number[]>();
      for (const p of batch) {
        const pool = p.roomId !== null ? targets.filter((t) => t.server.allowRooms) : targets;
        if (pool.length === 0) return this.finish(serverId, fleetMsg.drainNoRoomTarget(1));
        const target = pool.reduce((a, b) => (b.load < a.load ? b : a));
        target.load++;
        groups.set(target.server.id, [...(groups.get(target.server.id) ?? []), p.id]);
      }
      let moved = 0;
      for (const [targetId, ids] of groups) {
        const target = targets.find((t) => t.server.id === targetId)!.server;
        moved += (await this.deps.peers.moveMany(serverId, ids, target)).length;
      }
      const [row] = await this.db
        .update(serverDrains)
        .set({
          moved: sql`least(${serverDrains.total}, ${serverDrains.moved} + ${moved})`,
          updatedAt: sql`now()`,
        })
        .where(eq(serverDrains.serverId, serverId))
        .returning();
      if (row) await this.publish(row);
    }
  }

  private async targets(serverId: number): Promise<{ server: ServerRow; load: number }[]> {
    const rows = await this.db
      .select({
        server: servers,
        load: peerCountOfServer,
      })
      .from(servers)
      .where(and(eq(servers.active, true), ne(servers.id, serverId)));
    return rows;
  }

  private async touch(serverId: number): Promise<void> {
    await this.db
      .update(serverDrains)
      .set({ updatedAt: sql`now()` })
      .where(eq(serverDrains.serverId, serverId));
  }

  private async finish(serverId: number, error: string | null): Promise<void> {
    const [row] = await this.db
      .update(serverDrains)
      .set({ finishedAt: sql`now()`, updatedAt: sql`now()`, error })
      .where(eq(serverDrains.serverId, serverId))
      .returning();
    if (row) await this.publish(row);
  }

  private async publish(row: DrainRow): Promise<void> {
    await this.deps.bus.publish({
      kind: 'managers',
      permission: 'servers.read',
      message: {
        type: 'admin_drain',
        server_id: row.serverId,
        moved: row.moved,
        total: row.total,
        done: row.finishedAt !== null,
      },
    });
    await this.deps.bus.publish({
      kind: 'managers',
      permission: 'servers.read',
      message: { type: 'admin_server', server_id: row.serverId },
    });
  }
}
