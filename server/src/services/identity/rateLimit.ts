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
  invoicesPerCustomer: { max: 10, windowSeconds: 600 },
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

/**
 * Counts one hit against `key` without refusing (failures found after the fact), up to
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

/**
 * A key's state read under its row lock (`lockKey`), inside a transaction: while it is held, a
 * concurrent attempt on the same key waits for this one to count or give up, so no burst of
 * attempts can all read the same level (issue 26).
 */
export interface LockedKey {
  key: string;
  limit: Limit;
  /** Hits counted now. */
  level: number;
  tat: Date;
  lastAt: Date | null;
}

/**
 * Inside a transaction: locks `key`'s row until the transaction ends (creating it drained when
 * missing) and answers its state. Lock keys in one fixed order everywhere, so two attempts never
 * wait on each other crosswise.
 */
export async function lockKey(tx: Db, key: string, limit: Limit, now = Date.now()): Promise<LockedKey> {
  const [row] = await tx
    .insert(rateLimits)
    .values({ key, tat: new Date(now), lastAt: null })
    .onConflictDoUpdate({ target: rateLimits.key, set: { key: sql`excluded.key` } })
    .returning({ tat: rateLimits.tat, lastAt: rateLimits.lastAt });
  const tat = row?.tat ?? new Date(now);
  return { key, limit, level: levelOf(tat, limit, now), tat, lastAt: row?.lastAt ?? null };
}

/** Counts one hit against a key locked by `lockKey`, without refusing, up to FAILURE_CAP times the limit. */
export async function hitLocked(tx: Db, locked: LockedKey, now = Date.now()): Promise<void> {
  const { limit } = locked;
  const tat = Math.min(
    Math.max(locked.tat.getTime(), now) + emission(limit),
    now + limit.windowSeconds * 1000 * FAILURE_CAP,
  );
  await tx
    .update(rateLimits)
    .set({ tat: new Date(tat), lastAt: new Date(now) })
    .where(eq(rateLimits.key, locked.key));
}

/** 429 with Retry-After for a locked key that holds `limit.max` hits. */
export const fullError = (locked: LockedKey, now = Date.now()) => full(locked.tat, locked.limit, now);

/**
 * Takes back one hit counted ahead of an outcome that turned out not to count (the right password,
 * a question, a busy server): the claim a success gives back.
 */
export async function giveBack(db: Db, key: string, limit: Limit): Promise<void> {
  await db
    .update(rateLimits)
    .set({ tat: sql`${rateLimits.tat} - ${ms(emission(limit))}` })
    .where(eq(rateLimits.key, key));
}

/** 429 with Retry-After: the time until the key has room for one more hit. */
function full(tat: Date | undefined, limit: Limit, now: number) {
  const windowMs = limit.windowSeconds * 1000;
  const waitMs = (tat?.getTime() ?? now) + emission(limit) - windowMs - now;
  return tooManyRequests(Math.max(1, waitMs / 1000));
}

/**
 * A lease on `key` for `ms` (the database's clock): true for the one caller that takes it while no
 * other holds it. The scheduler's steps take one each (scheduler.ts), so of several instances one
 * runs each step per period instead of all of them repeating it.
 */
export async function takeLease(db: Db, key: string, ms: number): Promise<boolean> {
  const until = sql`now() + ${ms}::double precision * interval '1 millisecond'`;
  const rows = await db
    .insert(rateLimits)
    .values({ key, tat: until, lastAt: sql`now()` })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: { tat: until, lastAt: sql`now()` },
      setWhere: sql`${rateLimits.tat} <= now()`,
    })
    .returning({ key: rateLimits.key });
  return rows.length > 0;
}

/** Forgets `key` (e.g. an account's failures after a good login). */
export async function clear(db: Db, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

/** Drops keys that have drained (their TAT is past) more than a day ago. */
export async function pruneRateLimits(db: Db): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.tat, sql`now() - interval '1 day'`));
}
