import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/client.ts';
import type { InvoiceService } from './services/billing/invoices.ts';
import type { PeerService } from './services/peers/peers.ts';
import { pruneRateLimits, takeLease } from './services/identity/rateLimit.ts';
import type { ReminderService } from './services/billing/reminders.ts';
import type { AllowanceService } from './services/peers/allowance.ts';
import type { ConcurrentUseService } from './services/peers/concurrentUse.ts';
import type { SessionService } from './services/identity/sessions.ts';
import type { Telemetry } from './services/site/telemetry.ts';
import { compactUsage } from './services/peers/usage.ts';
import { ensureUsagePartitions } from './services/peers/usagePartitions.ts';

/**
 * Periodic work: disable expired peers and peers out of data (80 % notices too), end busy states nobody answered, deliver paid invoices whose
 * delivery failed (no active server, an error, a restart), mail renewal reminders, prune old
 * counters and tokens, create the hourly usage's next day partitions and fold old hours into days,
 * count peers per server for /metrics. Every instance runs the timer, but each
 * step is leased (rate_limits, `scheduler:<step>`, for 90 % of the period): of several instances
 * the first to tick runs it and the others skip it, instead of all repeating the same scans
 * (issue 33). A lease left by an instance that died lapses within the period. Each step is still a
 * conditional update, or a locked row, so two instances that both run one never do its work twice.
 *
 * The timer ticks every 5 s: switching off expired peers and peers out of data runs at each tick
 * (bench:fleet, 10,000 peers expiring at once at 1,000,000: removed on every node 15.8 s after,
 * the 15 s period that was the tick's; their scans read only the due peers, scale.test.ts); the
 * other steps keep their pace through their leases (15 s, an hour).
 */
export function startScheduler(
  deps: {
    db: Db;
    peers: PeerService;
    sessions: SessionService;
    invoices: InvoiceService;
    reminders: ReminderService;
    allowances: AllowanceService;
    /** Mails the notices owed after bulk actions (services/peers/notices.ts), a batch per tick. */
    notices?: () => Promise<unknown>;
    /** Concurrent-use flags without a report for 24 h are cleared (issue 19). */
    concurrentUse?: Pick<ConcurrentUseService, 'clearStale'>;
    log: FastifyBaseLogger;
    /** Its counters; and /metrics' peer counts, taken here for the cluster once per period (telemetry.ts). */
    telemetry?: Pick<Telemetry, 'schedulerRuns' | 'schedulerFailures'> &
      Partial<Pick<Telemetry, 'peerCountsEveryMs' | 'recordPeerCounts'>>;
    /** Called after each tick (tests). */
    onTick?: () => void;
  },
  everyMs = 5_000,
): () => void {
  let running = false;
  let ticks = 0;
  /** The peer count under way (it outlives its tick). */
  let counting: Promise<void> | null = null;
  const tick = async () => {
    if (running) return;
    running = true;
    deps.telemetry?.schedulerRuns.inc();
    const lease = Math.max(1, Math.floor(everyMs * 0.9));
    /** Steps that need no more than every third tick (15 s at the default pace). */
    const slow = lease * 3;
    const step = async (name: string, run: () => Promise<unknown>, ms = lease) => {
      if (await takeLease(deps.db, `scheduler:${name}`, ms)) await run();
    };
    try {
      // Tomorrow's hourly usage partition exists before its first reading (usagePartitions.ts).
      await step('usage-partitions', () => ensureUsagePartitions(deps.db), lease * 60);
      await step('expiry', () => deps.peers.disableExpired());
      await step('allowance', () => deps.allowances.enforce());
      await step('pending', () => deps.peers.expirePending(), slow);
      // Each invoice logs its own failure and keeps its retry time: one cannot hold up the others.
      // Invoices are claimed (SKIP LOCKED), so this step may run on several instances at once.
      await deps.invoices.deliverPending();
      await step('reminders', () => deps.reminders.sendDue(), slow);
      // Claimed with SKIP LOCKED: an instance that also runs it never mails a notice twice.
      if (deps.notices) await deps.notices();
      if (deps.concurrentUse) await step('concurrent-use', () => deps.concurrentUse!.clearStale(), slow);
      if (ticks++ % 720 === 0) {
        const hourly = lease * 720;
        await step('prune-rate-limits', () => pruneRateLimits(deps.db), hourly);
        await step('prune-sessions', () => deps.sessions.prune(), hourly);
        // Hourly usage older than 30 days becomes daily (about once an hour at the default pace).
        await step('compact-usage', () => compactUsage(deps.db), hourly);
      }
      // /metrics' per-server peer counts, once per METRICS_PEER_COUNTS_SECONDS for all instances: a
      // full read of `peers` (~1.4 s of PostgreSQL at 1,000,000), not awaited, so the next ticks'
      // expiry is not held up behind it.
      const counts = deps.telemetry;
      if (counts?.peerCountsEveryMs && counts.recordPeerCounts && !counting)
        await step(
          'peer-counts',
          async () => {
            counting = counts.recordPeerCounts!(deps.db)
              .catch((err: unknown) => {
                deps.telemetry?.schedulerFailures.inc();
                deps.log.error({ err }, 'peer counts failed');
              })
              .finally(() => (counting = null));
          },
          Math.max(lease, Math.floor(counts.peerCountsEveryMs * 0.9)),
        );
    } catch (err) {
      deps.telemetry?.schedulerFailures.inc();
      deps.log.error({ err }, 'scheduled task failed');
    } finally {
      running = false;
      deps.onTick?.();
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
