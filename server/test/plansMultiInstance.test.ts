/**
 * Public plan lists on two instances sharing one PostgreSQL: the instance that changes a plan shows
 * it at once, the other within its one-second cache. (PGlite is one process: only with
 * TEST_DATABASE_URL; on PGlite routes/admin/plans.test.ts covers the one instance.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, createTestDatabase, managerToken, type TestApp } from './helpers.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('plans on two instances', () => {
  let a: TestApp;
  let b: TestApp;
  let closeDb: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    closeDb = database.close;
    a = await createTestApp({ database, scheduler: false });
    b = await createTestApp({ database, scheduler: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await closeDb();
  });

  const priceOn = async (t: TestApp, id: number) =>
    (await t.app.inject({ method: 'GET', url: '/api/client/plans' }))
      .json<{ id: number; price: number }[]>()
      .find((p) => p.id === id)?.price;

  /** Polls instance `t` until the plan's public price is `price`; returns how long it took. */
  async function until(t: TestApp, id: number, price: number | undefined): Promise<number> {
    const start = Date.now();
    while ((await priceOn(t, id)) !== price) {
      if (Date.now() - start > 3000) throw new Error(`price never became ${price}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    return Date.now() - start;
  }

  it('shows a new price and a hidden plan at once on the writer and within a second on the other', async () => {
    const admin = await managerToken(b);
    const created = await b.app.inject({
      method: 'POST',
      url: '/api/admin/plans',
      headers: bearer(admin),
      payload: { name: 'Compartido', price: '4.00', validity_days: 30 },
    });
    const id = created.json().id as number;
    expect(await priceOn(b, id)).toBe(4);
    expect(await until(a, id, 4)).toBeLessThanOrEqual(1100);

    // Both caches warm with 4.00; the change is made through B.
    expect(await priceOn(a, id)).toBe(4);
    await b.app.inject({
      method: 'PATCH',
      url: `/api/admin/plans/${id}`,
      headers: bearer(admin),
      payload: { price: '6.50' },
    });
    expect(await priceOn(b, id)).toBe(6.5);
    expect(await until(a, id, 6.5)).toBeLessThanOrEqual(1100);

    expect(await priceOn(a, id)).toBe(6.5);
    await b.app.inject({
      method: 'PATCH',
      url: `/api/admin/plans/${id}`,
      headers: bearer(admin),
      payload: { hidden: true },
    });
    expect(await priceOn(b, id)).toBeUndefined();
    expect(await until(a, id, undefined)).toBeLessThanOrEqual(1100);
  });
});
