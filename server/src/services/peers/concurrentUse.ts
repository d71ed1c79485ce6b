/**
 * One device per peer (issue 19). The agents notice peers whose endpoint alternates between source
 * addresses (agent/src/concurrent.ts) and report them (`concurrent_use`); here a report flags the
 * peer (`concurrent_use` in the customer's and the console's answers), tells its owner once per
 * episode (`info` push, `updated_peer`), and, with the Ajustes policy `regenerate`, regenerates its
 * keys after N reports within 24 h through the customer's own regenerate path. The flag clears 24 h
 * after the last report (scheduler) or at once with a regenerate (services/peers/peers.ts).
 *
 * Only the count of addresses and the last two truncated to /24 or /48 ever reach the panel, and
 * they are never logged.
 */
import { and, eq, isNotNull, lt, sql } from 'drizzle-orm';
import {
  ConcurrentUsePolicy,
  DEFAULT_CONCURRENT_USE_POLICY,
  concurrentMsg,
  type AgentConcurrentUsePeer,
  type ConcurrentUsePolicyPatch,
} from '@vpn/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { peers, settings } from '../../db/schema.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, diffFields, type Actor } from '../site/audit.ts';
import type { PeerService } from './peers.ts';
import { CLEARED, CONCURRENT_USE_HOLD_MS } from './concurrentUseFields.ts';

const POLICY_KEY = 'concurrent_use_policy';

/** What happened to a flagged peer, for listeners on this instance (e.g. a Telegram notice). */
export interface ConcurrentUseEvent {
  peerId: number;
  customerId: number;
  name: string;
  endpoints: number;
  /** First report of this episode (the owner was just told). */
  fresh: boolean;
  /** The policy regenerated its keys. */
  regenerated: boolean;
}

export interface ConcurrentUseDeps {
  db: Db;
  bus: Bus;
  peers: PeerService;
  log: FastifyBaseLogger;
}

export class ConcurrentUseService {
  /** The clock (tests move it to see the 24 h hold end). */
  clock: () => Date = () => new Date();
  private readonly listeners = new Set<(e: ConcurrentUseEvent) => void>();

  constructor(private readonly deps: ConcurrentUseDeps) {}

  /**
   * Called on the instance that handled the report, once per new episode and per regenerate by the
   * policy: the hook other notices (Telegram) subscribe to. Returns the unsubscribe.
   */
  onDetected(listener: (e: ConcurrentUseEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async policy(): Promise<ConcurrentUsePolicy> {
    const [row] = await this.deps.db.select().from(settings).where(eq(settings.key, POLICY_KEY));
    const parsed = ConcurrentUsePolicy.safeParse(row?.value);
    return parsed.success ? parsed.data : DEFAULT_CONCURRENT_USE_POLICY;
  }

  /** A manager changes the policy: saved with its audit entry in one transaction. */
  async savePolicy(actor: Actor, patch: ConcurrentUsePolicyPatch): Promise<ConcurrentUsePolicy> {
    const before = await this.policy();
    const after: ConcurrentUsePolicy = { ...before, ...patch };
    await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
      await tx
        .insert(settings)
        .values({ key: POLICY_KEY, value: after })
        .onConflictDoUpdate({ target: settings.key, set: { value: after, updatedAt: sql`now()` } });
      const changes = diffFields(before, after);
      if (Object.keys(changes).length > 0)
        await audit({
          action: 'settings.concurrent_use',
          targetType: 'settings',
          targetId: POLICY_KEY,
          changes,
        });
    });
    return after;
  }

  /** An agent's `concurrent_use` report for its server's peers (other servers' keys are ignored). */
  async record(serverId: number, reported: AgentConcurrentUsePeer[]): Promise<void> {
    const policy = await this.policy();
    for (const r of reported) {
      try {
        await this.recordOne(serverId, r, policy);
      } catch (err) {
        // The report is about one peer: the others still count. Never the addresses in the log.
        this.deps.log.error({ err, serverId }, 'concurrent-use report not stored');
      }
    }
  }

  private async recordOne(
    serverId: number,
    r: AgentConcurrentUsePeer,
    policy: ConcurrentUsePolicy,
  ): Promise<void> {
    const now = this.clock();
    const done = await this.deps.db.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(peers)
        .where(and(eq(peers.serverId, serverId), eq(peers.publicKey, r.public_key)))
        .for('update');
      if (!row) return null;
      const fresh = row.concurrentUseAt === null;
      const reports = [...(row.concurrentUseReports ?? []), now.getTime()].filter(
        (d) => now.getTime() - d < CONCURRENT_USE_HOLD_MS,
      );
      const [updated] = await tx
        .update(peers)
        .set({
          concurrentUseAt: row.concurrentUseAt ?? now,
          concurrentUseSeenAt: now,
          concurrentUseEndpoints: fresh
            ? r.endpoints
            : Math.max(row.concurrentUseEndpoints ?? 0, r.endpoints),
          concurrentUseRecent: r.last.slice(-2),
          concurrentUseReports: reports,
        })
        .where(eq(peers.id, row.id))
        .returning();
      return { row: updated!, fresh, count: reports.length };
    });
    if (!done) return;
    const { row, fresh, count } = done;
    const regenerate = policy.action === 'regenerate' && count >= policy.regenerate_after;
    let regenerated = false;
    if (regenerate) {
      try {
        // The customer's own path: new keys, busy until the agent acks, the owner's pushes.
        await this.deps.peers.regenerate(row.customerId, row.id);
        regenerated = true;
      } catch (err) {
        // Busy or no longer live: the next report tries again.
        this.deps.log.warn({ err, peerId: row.id }, 'concurrent-use policy could not regenerate the peer');
      }
    }
    if (regenerated) {
      await this.deps.peers.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: concurrentMsg.regenerated(row.name),
      });
    } else if (fresh) {
      await this.deps.peers.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: concurrentMsg.detected(row.name),
      });
      await this.deps.peers.push(row.customerId, {
        type: 'updated_peer',
        peer: await this.deps.peers.presentOne(row.id),
      });
    }
    if (fresh || regenerated) {
      this.deps.log.info(
        { peerId: row.id, endpoints: row.concurrentUseEndpoints, regenerated },
        'peer in use on more than one device',
      );
      const event: ConcurrentUseEvent = {
        peerId: row.id,
        customerId: row.customerId,
        name: row.name,
        endpoints: row.concurrentUseEndpoints ?? r.endpoints,
        fresh,
        regenerated,
      };
      for (const l of this.listeners) {
        try {
          l(event);
        } catch (err) {
          this.deps.log.error({ err }, 'concurrent-use listener failed');
        }
      }
    }
  }

  /** Scheduler: flags without a report for 24 h are cleared, and their owners see it at once. */
  async clearStale(): Promise<number> {
    const cutoff = new Date(this.clock().getTime() - CONCURRENT_USE_HOLD_MS);
    const cleared = await this.deps.db
      .update(peers)
      .set(CLEARED)
      .where(and(isNotNull(peers.concurrentUseSeenAt), lt(peers.concurrentUseSeenAt, cutoff)))
      .returning({ id: peers.id, customerId: peers.customerId });
    for (const c of cleared)
      await this.deps.peers.push(c.customerId, {
        type: 'updated_peer',
        peer: await this.deps.peers.presentOne(c.id),
      });
    return cleared.length;
  }
}
