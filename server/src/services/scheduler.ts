import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import type { PeerService } from './peers.ts';
import { pruneRateLimits } from './rateLimit.ts';
import type { SessionService } from './sessions.ts';

/**
 * Periodic work: disable expired peers, end busy states nobody answered, prune old counters and
 * tokens. Every instance may run it: each step is a conditional update that only one wins.
 */
export function startScheduler(
  deps: { db: Db; peers: PeerService; sessions: SessionService; log: FastifyBaseLogger },
  everyMs = 15_000,
): () => void {
  let running = false;
  let ticks = 0;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      await deps.peers.disableExpired();
      await deps.peers.expirePending();
      if (ticks++ % 240 === 0) {
        await pruneRateLimits(deps.db);
        await deps.sessions.prune();
      }
    } catch (err) {
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
