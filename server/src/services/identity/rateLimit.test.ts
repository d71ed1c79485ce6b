/**
 * The shared limiter itself, with the clock passed in (no sleeping, no window to stay away from).
 * Expectations come from the limit's definition: `max` at once, then one per window/max.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client.ts';
import { rateLimits } from '../../db/schema.ts';
import { HttpError } from '../../lib/errors.ts';
import { createTestDatabase } from '../../../test/helpers.ts';
import { consume, giveBack, hit, peek } from './rateLimit.ts';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());
beforeEach(() => database.db.delete(rateLimits));

const limit = { max: 30, windowSeconds: 600 };
/** An instant 1 ms before a multiple of the window: where a fixed window ended. */
const edge = Math.ceil(Date.now() / 600_000) * 600_000 + 600_000 * 10;

const accepted = async (key: string, times: number, at: (i: number) => number) => {
  let ok = 0;
  for (let i = 0; i < times; i++) {
    try {
      await consume(database.db, key, limit, at(i));
      ok++;
    } catch (e) {
      if (!(e instanceof HttpError) || e.status !== 429) throw e;
    }
  }
  return ok;
};

describe('rate limits (GCRA, shared through the database)', () => {
  it('let only the limit through across what used to be a window edge: 60 tries in 60 ms, 30 pass', async () => {
    // 30 just before the edge, 30 just after: a fixed window counted them in two windows (60 passed).
    expect(await accepted('edge', 60, (i) => edge - 30 + i)).toBe(30);
  });

  it('free one try every window/max once full, never a burst', async () => {
    expect(await accepted('drain', 30, () => edge)).toBe(30);
    // 20 s later (600 s / 30): exactly one more; at once a second one is refused.
    expect(await accepted('drain', 2, () => edge + 20_000)).toBe(1);
    // A whole window later: 30 again, not 60.
    expect(await accepted('drain', 60, () => edge + 20_000 + 600_000)).toBe(30);
  });

  it('answer the wait until the next try in Retry-After', async () => {
    await accepted('wait', 30, () => edge);
    const refusal = await consume(database.db, 'wait', limit, edge + 5_000).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(HttpError);
    expect((refusal as HttpError).headers?.['retry-after']).toBe('15');
  });

  it('count failures after the fact past the limit, drain them, and take a claim back', async () => {
    for (let i = 0; i < 45; i++) await hit(database.db, 'fail', limit, edge + i);
    expect(await peek(database.db, 'fail', limit, edge + 45)).toBe(45);
    // 16 × 20 s later, 29 are left: below the limit again.
    expect(await peek(database.db, 'fail', limit, edge + 320_000)).toBe(29);
    // An attempt counted ahead of its outcome and then given back (a success) leaves one less.
    await giveBack(database.db, 'fail', limit);
    expect(await peek(database.db, 'fail', limit, edge + 45)).toBe(44);
  });
});
