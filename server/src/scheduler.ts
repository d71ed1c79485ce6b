import type { FastifyBaseLogger } from 'fastify';
import type { Db } from './db/client.ts';
import type { InvoiceService } from './services/billing/invoices.ts';
import type { PeerService } from './services/peers/peers.ts';
import { pruneRateLimits } from './services/identity/rateLimit.ts';
import type { ReminderService } from './services/billing/reminders.ts';
import type { AllowanceService } from './services/peers/allowance.ts';
import type { ConcurrentUseService } from './services/peers/concurrentUse.ts';
import type { SessionService } from './services/identity/sessions.ts';
import type { Telemetry } from './services/site/telemetry.ts';
import { compactUsage } from './services/peers/usage.ts';

/**
 * Periodic work: disable expired peers and peers out of data (80 % notices too), end busy states nobody answered, deliver paid invoices whose
 * delivery failed (no active server, an error, a restart), mail renewal reminders, prune old
 * counters and tokens, fold old hourly usage into days. Every instance may run it: each step is a
 * conditional update, or a locked row, that only one wins.
 */
export function startScheduler(
  deps: {
    db: Db;
    peers: PeerService;
    sessions: SessionService;
    invoices: InvoiceService;
    reminders: ReminderService;
    allowances: AllowanceService;
    /** Concurrent-use flags without a report for 24 h are cleared (issue 19). */
    concurrentUse?: Pick<ConcurrentUseService, 'clearStale'>;
    log: FastifyBaseLogger;
    telemetry?: Pick<Telemetry, 'schedulerRuns' | 'schedulerFailures'>;
  },
  everyMs = 15_000,
): () => void {
  let running = false;
  let ticks = 0;
  const tick = async () => {
    if (running) return;
    running = true;
    deps.telemetry?.schedulerRuns.inc();
    try {
      await deps.peers.disableExpired();
      await deps.allowances.enforce();
      await deps.peers.expirePending();
      // Each invoice logs its own failure and keeps its retry time: one cannot hold up the others.
      await deps.invoices.deliverPending();
      await deps.reminders.sendDue();
      await deps.concurrentUse?.clearStale();
      if (ticks++ % 240 === 0) {
        await pruneRateLimits(deps.db);
        await deps.sessions.prune();
        // Hourly usage older than 30 days becomes daily (about once an hour at the default pace).
        await compactUsage(deps.db);
      }
    } catch (err) {
      deps.telemetry?.schedulerFailures.inc();
      deps.log.error({ err }, 'scheduled task failed');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  timer.unref();
  void tick();
  return () => clearInterval(timer);
}
