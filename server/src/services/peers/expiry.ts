/**
 * Expiry and switch-off: plans extend and take back a period, the scheduler switches off expired
 * and exhausted peers, and managers edit a peer.
 */
import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { fill, msg, type Peer, type PushMessage } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, planHistory } from '../../db/schema.ts';
import { notFound } from '../../lib/errors.ts';
import { recordChanges, type Change, type Revision } from '../fleet/desiredState.ts';
import { bytesOfGb, newPeriod, speedTerms, type PlanTerms } from './planTerms.ts';
import { type InTx } from './operations.ts';
import { PeerCreation } from './creation.ts';
import { formatDay, formatKbit } from '../fleet/peerSpeed.ts';

/** A peer just held at its reduced speed (issue 35), for the owner's mail. */
export interface ReducedPeer {
  id: number;
  customerId: number;
  name: string;
  reason: 'data' | 'expired';
  /** '256 kbit/s' */
  speed: string;
  /** The grace's last moment as a Spanish date ('' for `data`). */
  until: string;
}

/**
 * The peers matching `where` that no other transaction holds, locked in id order: the scheduler's
 * bulk switch-offs never wait for a row. An agent's stats report holds its limited peers' rows
 * (data_used) in its join's order; a bulk update waiting on one of them while holding others met it
 * in a deadlock (bench:fleet, 10,000 peers expiring beside 100 agents' reports: five aborts in a
 * row). A row skipped now is taken at the next pass of the step.
 */
/** Peers presented (one read) and their owners told (one bus event) at a time by the bulk steps. */
const PRESENT_BATCH = 500;

const unlocked = (tx: Pick<Db, 'select'>, where: SQL) =>
  tx
    .select({ id: peers.id })
    .from(peers)
    .where(where)
    .orderBy(asc(peers.id))
    .for('update', { skipLocked: true });

export class PeerExpiry extends PeerCreation {
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
        // Its speed is the new plan's from now on, any reduction ended (issue 35).
        ...speedTerms(plan),
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

  /**
   * Disables peers whose plan ran out, after its grace days if it has any (issue 35); their servers
   * drop them and the owners see it live.
   */
  async disableExpired(): Promise<number> {
    return this.switchOff(
      and(
        eq(peers.active, true),
        lte(peers.expiresAt, sql`now()`),
        sql`${peers.expiresAt} + ${peers.graceDays} * interval '1 day' <= now()`,
      )!,
      {},
      msg.peerExpired,
    );
  }

  /**
   * Issue 35: expired peers whose plan gives grace days go to the plan's reduced speed (once per
   * expiry); disableExpired cuts them when the grace ends, a plan applied restores their speed.
   */
  reduceExpired(): Promise<ReducedPeer[]> {
    return this.holdReduced(
      and(
        eq(peers.active, true),
        gt(peers.graceDays, 0),
        lte(peers.expiresAt, sql`now()`),
        sql`${peers.expiresAt} + ${peers.graceDays} * interval '1 day' > now()`,
        sql`${peers.speedReducedReason} is distinct from 'expired'`,
      )!,
      { speedReducedAt: sql`now()`, speedReducedReason: sql`'expired'` },
    );
  }

  /**
   * Issue 35: peers out of data on a plan that reduces instead of cutting go to its reduced speed,
   * once per period (dataExhaustedAt marks it, as for a cut); a plan applied restores their speed.
   */
  reduceExhausted(): Promise<ReducedPeer[]> {
    return this.holdReduced(
      and(
        eq(peers.active, true),
        eq(peers.reduceOnExhausted, true),
        // Past 80 % (data_due, index peers_data_due), as disableExhausted: without it every live
        // limited peer was read at each 5-second pass (bench:fleet: 143,773 buffers, 344 ms a pass
        // at 333,000 limited peers, ~27 µs per stats reading).
        eq(peers.dataDue, true),
        isNotNull(peers.dataAllowance),
        isNull(peers.dataExhaustedAt),
        gte(peers.dataUsed, peers.dataAllowance),
      )!,
      {
        dataExhaustedAt: sql`now()`,
        speedReducedAt: sql`coalesce(${peers.speedReducedAt}, now())`,
        speedReducedReason: sql`coalesce(${peers.speedReducedReason}, 'data')`,
      },
    );
  }

  /**
   * Holds the live peers matching `where` at their reduced speed: their servers get the new speed
   * as a delta (one peer's classes each), owners see it live and are told why.
   */
  private async holdReduced(
    where: SQL,
    set: Partial<Record<'dataExhaustedAt' | 'speedReducedAt' | 'speedReducedReason', SQL>>,
  ): Promise<ReducedPeer[]> {
    const held = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(peers)
        .set({ ...set, updatedAt: sql`now()` })
        .where(inArray(peers.id, unlocked(tx, where)))
        .returning();
      const byServer = new Map<number, Change>();
      for (const r of rows) {
        const change = byServer.get(r.serverId) ?? { serverId: r.serverId, upsertPeerIds: [] };
        change.upsertPeerIds!.push(r.id);
        byServer.set(r.serverId, change);
      }
      return { rows, revisions: await recordChanges(tx, [...byServer.values()]) };
    });
    for (const r of held.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    const out: ReducedPeer[] = [];
    for (let i = 0; i < held.rows.length; i += PRESENT_BATCH) {
      const chunk = held.rows.slice(i, i + PRESENT_BATCH);
      const shown = await this.present(chunk);
      const pushes: { customerId: number; message: PushMessage }[] = [];
      for (const [j, r] of chunk.entries()) {
        const peer = shown[j]!;
        pushes.push({ customerId: r.customerId, message: { type: 'updated_peer', peer } });
        const reduced = peer.speed.reduced;
        if (!reduced) continue;
        const speed = formatKbit(reduced.kbit);
        const until = reduced.until ? formatDay(new Date(reduced.until)) : '';
        pushes.push({
          customerId: r.customerId,
          message: {
            type: 'info',
            peer_id: r.id,
            message: fill(
              reduced.reason === 'data' ? msg.peerSpeedReducedData : msg.peerSpeedReducedExpired,
              { name: r.name, speed, until },
            ),
          },
        });
        out.push({ id: r.id, customerId: r.customerId, name: r.name, reason: reduced.reason, speed, until });
      }
      await this.pushMany(pushes);
    }
    return out;
  }

  /**
   * Disables peers that used up their plan's data allowance (services/peers/allowance.ts), exactly like
   * an expiry; applying a plan starts a new period and switches them back on.
   */
  async disableExhausted(): Promise<number> {
    return this.switchOff(
      and(
        eq(peers.active, true),
        // Past 80 % (data_due, index peers_data_due): not every limited peer is read.
        eq(peers.dataDue, true),
        isNotNull(peers.dataAllowance),
        isNull(peers.dataExhaustedAt),
        gte(peers.dataUsed, peers.dataAllowance),
        // A plan that reduces the speed instead keeps it online (reduceExhausted).
        eq(peers.reduceOnExhausted, false),
      )!,
      { dataExhaustedAt: sql`now()` },
      msg.peerDataExhausted,
    );
  }

  /** Switches off the live peers matching `where`: their servers drop them, owners are told why. */
  protected async switchOff(
    where: SQL,
    extra: Partial<Record<'dataExhaustedAt', SQL>>,
    message: string,
  ): Promise<number> {
    const off = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(peers)
        .set({ active: false, ...extra, updatedAt: sql`now()` })
        .where(inArray(peers.id, unlocked(tx, where)))
        .returning();
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
    // Owners told in batches: one presentation read and one bus event per PRESENT_BATCH peers (10,000
    // at once took a read and two notifying commits each, and held the other requests meanwhile).
    for (let i = 0; i < off.rows.length; i += PRESENT_BATCH) {
      const chunk = off.rows.slice(i, i + PRESENT_BATCH);
      const shown = await this.present(chunk);
      await this.pushMany(
        chunk.flatMap((r, j) => [
          { customerId: r.customerId, message: { type: 'updated_peer' as const, peer: shown[j]! } },
          {
            customerId: r.customerId,
            message: { type: 'info' as const, peer_id: r.id, message: fill(message, { name: r.name }) },
          },
        ]),
      );
    }
    return off.rows.length;
  }
}
