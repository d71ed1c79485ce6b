import { eq, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { rateLimits } from '../../db/schema.ts';
import type { Limit, RateLimitPolicy } from '../../lib/rateLimitPolicy.ts';
import { tooManyRequests } from '../../lib/errors.ts';

// The policy's shape is in lib/ (config.ts reads RATE_LIMIT_<NAME> into it); defaults and counting are here.
export type { Limit, RateLimitPolicy } from '../../lib/rateLimitPolicy.ts';

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
  sensitivePerManager: { max: 10, windowSeconds: 900 },
  peerChangesPerPeer: { max: 10, windowSeconds: 3600 },
};

/** After this many wrong passwords from one address for one account, each further try waits 1, 2, 4… s (≤ 60). */
export const LOGIN_DELAY_AFTER = 3;
export const LOGIN_DELAY_MAX_SECONDS = 60;

/**
 * Failures go on being counted past a limit, up to this many times it: how far past tells the
 * captcha how hard to be (services/identity/captcha.ts). A key that far drains in CAP windows.
 */
export const FAILURE_CAP = 4;

/*
 * GCRA (the generic cell rate algorithm, as nginx's limit_req): a key keeps a theoretical arrival
 * time (TAT). Each counted hit pushes it `window / max` past max(TAT, now); the key holds
 * (TAT − now) / (window / max) hits, a level that drains continuously. A hit is allowed while the
 * new TAT stays within `window` of now. So a full key frees one hit every window/max, `max` hits can
 * come at once, and no edge lets twice the limit through (a fixed window let `max` in just before its
 * end and `max` more just after). One row per key, updated in one statement: every instance shares it.
 */

const emission = (limit: Limit) => (limit.windowSeconds * 1000) / limit.max;
const ms = (n: number) => sql`(${n}::double precision * interval '1 millisecond')`;
const at = (now: number) => sql`${new Date(now).toISOString()}::timestamptz`;

/** Hits counted against `key` now (0 when none). */
export async function peek(db: Db, key: string, limit: Limit, now = Date.now()): Promise<number> {
  const [row] = await db.select({ tat: rateLimits.tat }).from(rateLimits).where(eq(rateLimits.key, key));
  return levelOf(row?.tat, limit, now);
}

const levelOf = (tat: Date | undefined, limit: Limit, now: number) =>
  tat ? Math.max(0, Math.ceil((tat.getTime() - now) / emission(limit) - 1e-9)) : 0;

/** When the key last got a hit (null when never or forgotten). */
export async function lastHitAt(db: Db, key: string): Promise<Date | null> {
  const [row] = await db.select({ at: rateLimits.lastAt }).from(rateLimits).where(eq(rateLimits.key, key));
  return row?.at ?? null;
}

/**
 * Counts one hit against `key` without refusing (failures are counted after the fact), up to
 * FAILURE_CAP times the limit. Returns the hits now counted.
 */
export async function hit(db: Db, key: string, limit: Limit, now = Date.now()): Promise<number> {
  const step = emission(limit);
  const cap = limit.windowSeconds * 1000 * FAILURE_CAP;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, tat: new Date(now + step), lastAt: new Date(now) })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        tat: sql`least(greatest(${rateLimits.tat}, ${at(now)}) + ${ms(step)}, ${at(now)} + ${ms(cap)})`,
        lastAt: at(now),
      },
    })
    .returning({ tat: rateLimits.tat });
  return levelOf(row?.tat, limit, now);
}

/**
 * Counts one hit against `key` when the limit allows it, else throws 429 with Retry-After (the
 * time until one more would be allowed). A refused hit is not counted.
 */
export async function consume(db: Db, key: string, limit: Limit, now = Date.now()): Promise<void> {
  const step = emission(limit);
  const windowMs = limit.windowSeconds * 1000;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, tat: new Date(now + step), lastAt: new Date(now) })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { tat: sql`greatest(${rateLimits.tat}, ${at(now)}) + ${ms(step)}`, lastAt: at(now) },
      setWhere: sql`greatest(${rateLimits.tat}, ${at(now)}) + ${ms(step)} <= ${at(now)} + ${ms(windowMs)}`,
    })
    .returning({ tat: rateLimits.tat });
  if (row) return;
  const [current] = await db.select({ tat: rateLimits.tat }).from(rateLimits).where(eq(rateLimits.key, key));
  throw full(current?.tat, limit, now);
}

/** Throws 429 with Retry-After when `key` already holds `limit.max` hits (failures counted by `hit`). */
export async function refuseWhenFull(db: Db, key: string, limit: Limit, now = Date.now()): Promise<void> {
  const [row] = await db.select({ tat: rateLimits.tat }).from(rateLimits).where(eq(rateLimits.key, key));
  if (levelOf(row?.tat, limit, now) >= limit.max) throw full(row?.tat, limit, now);
}

/** 429 with Retry-After: the time until the key has room for one more hit. */
function full(tat: Date | undefined, limit: Limit, now: number) {
  const windowMs = limit.windowSeconds * 1000;
  const waitMs = (tat?.getTime() ?? now) + emission(limit) - windowMs - now;
  return tooManyRequests(Math.max(1, waitMs / 1000));
}

/** Forgets `key` (e.g. an account's failures after a good login). */
export async function clear(db: Db, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/** Drops keys that have drained (their TAT is past) more than a day ago. */
export async function pruneRateLimits(db: Db): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.tat, sql`now() - interval '1 day'`));
}
