import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../../db/schema.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
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

describe('audit log', () => {
  it('records managers’ changes with the route and field names, never the values', async () => {
    await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(admin),
      payload: { maintenance: false },
    });
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: bearer(admin),
      payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
    });
    const id = created.json().server.id;
    await t.app.inject({ method: 'POST', url: `/api/admin/servers/${id}/token`, headers: bearer(admin) });
    // A refused request is not a change.
    await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: bearer(admin),
      payload: { name: 'X', endpoint: 'mal', ubication: 'Y' },
    });
    const log = (
      await t.app.inject({ method: 'GET', url: '/api/admin/audit', headers: bearer(admin) })
    ).json();
    expect(log.map((e: { action: string }) => e.action)).toEqual([
      'POST /api/admin/servers/:id/token',
      'POST /api/admin/servers',
      'PATCH /api/admin/settings',
    ]);
    expect(log[0]).toMatchObject({ target: String(id), manager: expect.any(String) });
    expect(log[1].fields).toEqual(['endpoint', 'name', 'ubication']);
    expect(JSON.stringify(log)).not.toContain(created.json().agent_token);
    const page = (
      await t.app.inject({
        method: 'GET',
        url: `/api/admin/audit?before=${log[0].id}&limit=1`,
        headers: bearer(admin),
      })
    ).json();
    expect(page).toEqual([log[1]]);
  });

  it('is closed to customers', async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/audit', headers: bearer(access) })).statusCode,
    ).toBe(401);
  });
});

describe('metrics', () => {
  it('counts customers, peers, servers and the last 30 days of revenue', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/admin/metrics', headers: bearer(admin) })
    ).json();
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
