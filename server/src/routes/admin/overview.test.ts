import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../../db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';

let t: TestApp;
let admin: string;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  admin = await managerToken(t);
});
afterAll(() => t.close());

describe('metrics', () => {
  it('counts customers, peers, servers and the last 30 days of revenue', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/admin/metrics', headers: bearer(admin) })
    ).json();
    // A server for the granted peer to live on.
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, admin),
      payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
    });
    const c = await createCustomer(t);
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'P', description: 'x', price: '2.00', validity: '30 days' })
      .returning();
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(admin),
      payload: { username: c.username, plan: plan!.id, name: 'A' },
    });
    const after = (
      await t.app.inject({ method: 'GET', url: '/api/admin/metrics', headers: bearer(admin) })
    ).json();
    expect(after.customers).toBe(before.customers + 1);
    expect(after.peers).toBe(before.peers + 1);
    expect(after.active_peers).toBe(before.active_peers + 1);
    expect(after.servers_online).toBe(0);
    expect(after.revenue_usd_30d).toBe(before.revenue_usd_30d);
  });
});
