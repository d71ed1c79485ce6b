import { and, eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { rateLimits } from '../db/schema.ts';
import { tooManyRequests } from '../lib/errors.ts';

export interface Limit {
  /** Allowed hits in one window. */
  max: number;
  windowSeconds: number;
}

/**
 * The rate limits of the auth endpoints; operators set them from the environment
 * (`RATE_LIMIT_<NAME>=max/seconds`, README) and tests may tighten or loosen them.
 *
 * They throttle abuse, not customers: many customers share one address (carrier-grade NAT on Cuban
 * mobile data), so no limit counts a successful login; per-address limits count failures.
 */
export interface RateLimitPolicy {
  /** Managers' failed logins (wrong password or code) per address. */
  loginPerIp: Limit;
  /** Managers' failed logins per username. */
  loginPerUsername: Limit;
  /** Customers' failed logins per address. */
  loginFailuresPerIp: Limit;
  /** Customers' wrong passwords per account: past it, the right password needs a solved captcha. */
  loginFailuresPerAccount: Limit;
  /** Registrations per address (counted after the captcha, registration's first gate). */
  registerPerIp: Limit;
  refreshPerIp: Limit;
  mirrorPerIp: Limit;
  /** Failed recoveries, resets and verifications per address. */
  recoveryPerIp: Limit;
  recoveryPerUsername: Limit;
  /** Password changes (wrong current passwords included) per account. */
  passwordChangePerAccount: Limit;
}

export const DEFAULT_RATE_LIMITS: RateLimitPolicy = {
  loginPerIp: { max: 30, windowSeconds: 60 },
  loginPerUsername: { max: 10, windowSeconds: 300 },
  loginFailuresPerIp: { max: 30, windowSeconds: 600 },
  loginFailuresPerAccount: { max: 10, windowSeconds: 900 },
  registerPerIp: { max: 10, windowSeconds: 3600 },
  refreshPerIp: { max: 120, windowSeconds: 60 },
  mirrorPerIp: { max: 60, windowSeconds: 60 },
  recoveryPerIp: { max: 20, windowSeconds: 3600 },
  recoveryPerUsername: { max: 5, windowSeconds: 3600 },
  passwordChangePerAccount: { max: 10, windowSeconds: 3600 },
};

/** After this many wrong passwords in the window, each further try waits 1, 2, 4… s (≤ 60). */
export const LOGIN_DELAY_AFTER = 3;
export const LOGIN_DELAY_MAX_SECONDS = 60;

const windowStart = (limit: Limit, now: number) => {
  const windowMs = limit.windowSeconds * 1000;
  return new Date(Math.floor(now / windowMs) * windowMs);
};

/** Hits counted against `key` in the current window, without counting one more. */
export async function peek(db: Db, key: string, limit: Limit, now = Date.now()): Promise<number> {
  const [row] = await db
    .select({ hits: rateLimits.hits })
    .from(rateLimits)
    .where(and(eq(rateLimits.key, key), eq(rateLimits.windowStart, windowStart(limit, now))));
  return row?.hits ?? 0;
}

/** Counts one hit against `key` without refusing (failures are counted after the fact). */
export async function hit(db: Db, key: string, limit: Limit, now = Date.now()): Promise<number> {
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart: windowStart(limit, now), hits: 1 })
    .onConflictDoUpdate({
      target: [rateLimits.key, rateLimits.windowStart],
      set: { hits: sql`${rateLimits.hits} + 1` },
    })
    .returning({ hits: rateLimits.hits });
  return row?.hits ?? 1;
}

/**
 * Counts one hit against `key` in a fixed window kept in the database (shared by every instance)
 * and throws 429 with Retry-After when the window is full.
 */
export async function consume(db: Db, key: string, limit: Limit, now = Date.now()): Promise<void> {
  if ((await hit(db, key, limit, now)) > limit.max) throw windowFull(limit, now);
}

/** Throws 429 with Retry-After when `key` already holds `limit.max` hits (failures counted by `hit`). */
export async function refuseWhenFull(db: Db, key: string, limit: Limit, now = Date.now()): Promise<void> {
  if ((await peek(db, key, limit, now)) >= limit.max) throw windowFull(limit, now);
}

/** 429 with Retry-After: the seconds left of the current window. */
function windowFull(limit: Limit, now: number) {
  return tooManyRequests((windowStart(limit, now).getTime() + limit.windowSeconds * 1000 - now) / 1000);
}

/** Forgets every window of `key` (e.g. an account's failures after a good login). */
export async function clear(db: Db, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/** Drops windows that ended more than a day ago. */
export async function pruneRateLimits(db: Db): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, sql`now() - interval '1 day'`));
}
