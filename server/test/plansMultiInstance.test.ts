/**
 * Public plan lists on two instances sharing one PostgreSQL: the instance that changes a plan shows
 * it at once, the other when its one-second cache expires — not before, and not later. Each instance
 * has its own connection pool (so its own cache, as two processes would); the clock is a fake
 * `Date` moved by hand, so the test says nothing about how fast this machine is. (PGlite is one
 * process: only with TEST_DATABASE_URL; on PGlite routes/admin/plans.test.ts covers the one instance.)
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase, type Database } from '../src/db/client.ts';
import { bearer, createTestApp, createTestDatabase, managerToken, type TestApp } from './helpers.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
/** The plans cache's lifetime (lib/cache.ts ShortCache default). */
const CACHE_MS = 1000;

describe.skipIf(!onPostgres)('plans on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let second: Database;
  let closeDb: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    closeDb = database.close;
    // Instance A reads through a pool of its own: nothing in memory is shared with B.
    second = await openDatabase({ databaseUrl: database.url!, poolSize: 5 });
    a = await createTestApp({ database: second, scheduler: false });
    b = await createTestApp({ database, scheduler: false });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await second.close();
    await closeDb();
  });

  const priceOn = async (t: TestApp, id: number) =>
    (await t.app.inject({ method: 'GET', url: '/api/client/plans' }))
      .json<{ id: number; price: number }[]>()
      .find((p) => p.id === id)?.price;

  /** Moves the fake clock on by `ms`. */
  const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

  it('shows a new price and a hidden plan at once on the writer and when its cache expires on the other', async () => {
    const admin = await managerToken(b);
    // Only Date is faked: sockets, the pool and timers run for real.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

    // A's cache is warm before the plan exists.
    expect(await priceOn(a, 0)).toBeUndefined();
    const created = await b.app.inject({
      method: 'POST',
      url: '/api/admin/plans',
      headers: bearer(admin),
      payload: { name: 'Compartido', price: '4.00', validity_days: 30 },
    });
    const id = created.json().id as number;
    expect(await priceOn(b, id)).toBe(4);
    // A still answers from its cache until it expires, then shows the plan.
    expect(await priceOn(a, id)).toBeUndefined();
    advance(CACHE_MS - 1);
    expect(await priceOn(a, id)).toBeUndefined();
    advance(1);
    expect(await priceOn(a, id)).toBe(4);

    await b.app.inject({
      method: 'PATCH',
      url: `/api/admin/plans/${id}`,
      headers: bearer(admin),
      payload: { price: '6.50' },
    });
    expect(await priceOn(b, id)).toBe(6.5);
    expect(await priceOn(a, id)).toBe(4);
    advance(CACHE_MS);
    expect(await priceOn(a, id)).toBe(6.5);

    await b.app.inject({
      method: 'PATCH',
      url: `/api/admin/plans/${id}`,
      headers: bearer(admin),
      payload: { hidden: true },
    });
    expect(await priceOn(b, id)).toBeUndefined();
    expect(await priceOn(a, id)).toBe(6.5);
    advance(CACHE_MS);
    expect(await priceOn(a, id)).toBeUndefined();
  });
});
