/**
 * A peer's concurrent-use flag (issue 19) as its columns hold it: how customers and the console see
 * it, and what clears it. Apart from services/peers/concurrentUse.ts so services/peers/peers.ts (a regenerate
 * clears the flag) and the presenters read it without importing the service that uses PeerService.
 */
import type { peers } from '../../db/schema.ts';

/** The flag lasts this long after the last report, and the policy counts reports over it. */
export const CONCURRENT_USE_HOLD_MS = 24 * 3600_000;
type PeerRow = typeof peers.$inferSelect;

/** The console's and the customer's view of a row's flag. */
export function concurrentUseOf(row: PeerRow): { detected_at: string; endpoints: number } | null {
  if (!row.concurrentUseAt || !row.concurrentUseSeenAt) return null;
  return { detected_at: row.concurrentUseAt.toISOString(), endpoints: row.concurrentUseEndpoints ?? 2 };
}

/** The console's view: the customer's plus the last report, the truncated addresses and the reports of 24 h. */
export function adminConcurrentUseOf(row: PeerRow, now = Date.now()) {
  const shown = concurrentUseOf(row);
  if (!shown) return null;
  return {
    ...shown,
    last_seen: row.concurrentUseSeenAt!.toISOString(),
    recent: row.concurrentUseRecent ?? [],
    detections_24h: (row.concurrentUseReports ?? []).filter((d) => now - d < CONCURRENT_USE_HOLD_MS).length,
  };
}

/** The columns that clear a peer's flag (a regenerate sets them too). */
export const CLEARED = {
  concurrentUseAt: null,
  concurrentUseSeenAt: null,
  concurrentUseEndpoints: null,
  concurrentUseRecent: null,
  concurrentUseReports: null,
} as const;
