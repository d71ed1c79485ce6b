import { lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { rateLimits } from '../db/schema.ts';
import { tooManyRequests } from '../lib/errors.ts';

export interface Limit {
  /** Allowed hits in one window. */
  max: number;
  windowSeconds: number;
}

/** The rate limits of the auth endpoints; tests and operators may tighten or loosen them. */
export interface RateLimitPolicy {
  loginPerIp: Limit;
  loginPerUsername: Limit;
  registerPerIp: Limit;
  refreshPerIp: Limit;
  mirrorPerIp: Limit;
  recoveryPerIp: Limit;
  recoveryPerUsername: Limit;
}

export const DEFAULT_RATE_LIMITS: RateLimitPolicy = {
  loginPerIp: { max: 30, windowSeconds: 60 },
  loginPerUsername: { max: 10, windowSeconds: 300 },
  registerPerIp: { max: 10, windowSeconds: 3600 },
  refreshPerIp: { max: 120, windowSeconds: 60 },
  mirrorPerIp: { max: 60, windowSeconds: 60 },
  recoveryPerIp: { max: 20, windowSeconds: 3600 },
  recoveryPerUsername: { max: 5, windowSeconds: 3600 },
};

/**
 * Counts one hit against `key` in a fixed window kept in the database (shared by every instance)
 * and throws 429 with Retry-After when the window is full.
 */
export async function consume(db: Db, key: string, limit: Limit, now = Date.now()): Promise<void> {
  const windowMs = limit.windowSeconds * 1000;
  const start = new Date(Math.floor(now / windowMs) * windowMs);
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart: start, hits: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.key, rateLimits.windowStart],
      set: { hits: sql`${rateLimits.hits} + 1` },
    })
    .returning({ hits: rateLimits.hits });
  if ((row?.hits ?? 0) > limit.max) {
    throw tooManyRequests((start.getTime() + windowMs - now) / 1000);
  }
}

/** Drops windows that ended more than a day ago. */
export async function pruneRateLimits(db: Db): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, sql`now() - interval '1 day'`));
}
