import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogMsg } from '@vpn/contracts';
import { auditLog, invoices, plans } from '../../db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { agentHeard } from '../../../test/payments.ts';

let t: TestApp;
let owner: string;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { PAYMENTS_SANDBOX: 'true' } });
  owner = await managerToken(t);
  await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
  });
});
afterAll(() => t.close());

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token = owner, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });
const publicPlans = async () =>
  (await t.app.inject({ method: 'GET', url: '/api/client/plans' })).json<
    { id: number; name: string; price: number; validity: string; data_gb: number | null }[]
  >();
let n = 0;
const newPlan = async (extra: object = {}) => {
  const res = await api('POST', '/api/admin/plans', owner, {
    name: `Plan ${++n}`,
    description: 'Sin límite. Soporte',
    price: '5.00',
    validity_days: 30,
    ...extra,
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ id: number; name: string; data_gb: number | null }>();
};

describe('plans', () => {
  it('creates a plan that the public list offers at once, and audits who did it', async () => {
    const res = await api('POST', '/api/admin/plans', owner, {
      name: ' Trimestral ',
      description: 'Tres meses',
      price: '12.5',
      validity_days: 90,
      sort_order: 3,
    });
    expect(res.statusCode).toBe(201);
    const plan = res.json();
    expect(plan).toMatchObject({
      name: 'Trimestral',
      price: '12.50',
      validity_days: 90,
      hidden: false,
      sort_order: 3,
      invoices: 0,
    });
    expect(await publicPlans()).toContainEqual({
      id: plan.id,
      name: 'Trimestral',
      description: 'Tres meses',
      price: 12.5,
      validity: '90 days 00:00:00',
      data_gb: null,
      // Issue 35: no speed sold, out of data it is cut, no grace.
      speed_down_mbit: null,
      speed_up_mbit: null,
      on_data_exhausted: 'cut',
      reduced_kbit: 256,
      grace_days: 0,
    });
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'plan.create'), eq(auditLog.targetId, String(plan.id))));
    expect(entry?.actorName).toMatch(/^m/);
    expect((entry!.data as { changes: Record<string, unknown> }).changes.price).toEqual({
      before: null,
      after: '12.50',
    });
  });

  it('refuses bad prices, validity and names with a Spanish message per field, creating nothing', async () => {
    const before = (await t.ctx.db.select({ id: plans.id }).from(plans)).length;
    const cases: [object, string, string][] = [
      [{ price: '5.001' }, 'price', catalogMsg.planPriceFormat],
      [{ price: '-1.00' }, 'price', catalogMsg.planPriceFormat],
      [{ price: '0.00' }, 'price', catalogMsg.planPricePositive],
      [{ price: '20000' }, 'price', catalogMsg.planPriceMax],
      [{ price: 5 }, 'price', catalogMsg.planPriceFormat],
      [{ validity_days: 0 }, 'validity_days', catalogMsg.planValidity],
      [{ validity_days: 1.5 }, 'validity_days', catalogMsg.planValidity],
      [{ name: '   ' }, 'name', catalogMsg.planNameRequired],
      [{ sort_order: 'primero' }, 'sort_order', catalogMsg.planSortOrder],
      [{ data_gb: 0 }, 'data_gb', catalogMsg.planDataGb],
      [{ data_gb: -5 }, 'data_gb', catalogMsg.planDataGb],
      [{ data_gb: '10' }, 'data_gb', catalogMsg.planDataGb],
      [{ data_gb: 1.0005 }, 'data_gb', catalogMsg.planDataGb],
      [{ data_gb: 200_000 }, 'data_gb', catalogMsg.planDataGb],
    ];
    for (const [patch, field, message] of cases) {
      const res = await api('POST', '/api/admin/plans', owner, {
        name: 'Malo',
        price: '1.00',
        validity_days: 30,
        ...patch,
      });
      expect(res.statusCode, JSON.stringify(patch)).toBe(400);
      expect(res.json().fields[field]).toBe(message);
    }
    expect((await t.ctx.db.select({ id: plans.id }).from(plans)).length).toBe(before);
  });

  it('changes the price, and the public list shows the new price at once', async () => {
    const plan = await newPlan();
    await publicPlans(); // warm this instance's cache
    const res = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { price: '7.25' });
    expect(res.json()).toMatchObject({ price: '7.25', validity_days: 30 });
    expect((await publicPlans()).find((p) => p.id === plan.id)?.price).toBe(7.25);
    const bad = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { price: '7,25' });
    expect(bad.statusCode).toBe(400);
    expect((await publicPlans()).find((p) => p.id === plan.id)?.price).toBe(7.25);
    const empty = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, {});
    expect(empty.statusCode).toBe(400);
    expect(JSON.stringify(empty.json())).toContain(catalogMsg.planNoChanges);
  });

  it('sets, changes and removes a data allowance in GB, shown on the public list', async () => {
    const plan = await newPlan({ data_gb: 2.5 });
    expect(plan).toMatchObject({ data_gb: 2.5 });
    expect((await publicPlans()).find((p) => p.id === plan.id)?.data_gb).toBe(2.5);
    const changed = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { data_gb: 0.001 });
    expect(changed.json()).toMatchObject({ data_gb: 0.001 });
    const unlimited = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { data_gb: null });
    expect(unlimited.json()).toMatchObject({ data_gb: null });
    expect((await publicPlans()).find((p) => p.id === plan.id)?.data_gb).toBeNull();
  });

  it('hides a plan: gone from the public list, refused for new invoices, kept in existing peers', async () => {
    const plan = await newPlan();
    const c = await createCustomer(t);
    const created = await api('POST', '/api/admin/peers', owner, {
      username: c.username,
      plan: plan.id,
      name: 'Casa',
    });
    expect(created.statusCode).toBe(201);
    const hidden = await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { hidden: true });
    expect(hidden.json().hidden).toBe(true);
    expect((await publicPlans()).map((p) => p.id)).not.toContain(plan.id);
    // Still listed for managers.
    const list = (await api('GET', `/api/admin/plans?q=${encodeURIComponent(plan.name)}`)).json();
    expect(list.results.map((p: { id: number }) => p.id)).toContain(plan.id);

    const { access } = await login(t, c.username, c.password);
    const buy = await t.app.inject({
      method: 'PUT',
      url: '/api/client/invoices',
      headers: bearer(access),
      payload: { operation: 'new_peer', peer: 'Nuevo', plan: plan.id },
    });
    expect(buy.statusCode).toBe(400);
    expect(buy.json().message).toBe(catalogMsg.planNotOnSale);
    const mine = (
      await t.app.inject({ method: 'GET', url: '/api/client/accounts/peers', headers: bearer(access) })
    ).json();
    expect(mine[0].plans_history[0].plan_name).toBe(plan.name);

    await api('PATCH', `/api/admin/plans/${plan.id}`, owner, { hidden: false });
    expect((await publicPlans()).map((p) => p.id)).toContain(plan.id);
  });

  it('deletes a plan without invoices, and refuses one with invoices with 409, suggesting to hide it', async () => {
    const free = await newPlan();
    const del = await api('DELETE', `/api/admin/plans/${free.id}`);
    expect(del.statusCode).toBe(204);
    expect((await api('GET', `/api/admin/plans/${free.id}`)).statusCode).toBe(404);
    expect((await publicPlans()).map((p) => p.id)).not.toContain(free.id);

    const sold = await newPlan();
    await agentHeard(t);
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const buy = await t.app.inject({
      method: 'PUT',
      url: '/api/client/invoices',
      headers: bearer(access),
      payload: { operation: 'new_peer', peer: 'Nuevo', plan: sold.id },
    });
    expect(buy.statusCode).toBe(200);
    const refused = await api('DELETE', `/api/admin/plans/${sold.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(catalogMsg.planHasInvoices);
    expect(refused.json().message).toMatch(/ocúltelo/);
    expect((await api('GET', `/api/admin/plans/${sold.id}`)).json().invoices).toBe(1);
    expect(await t.ctx.db.select().from(invoices).where(eq(invoices.planId, sold.id))).toHaveLength(1);
  });

  it('pages and searches plans', async () => {
    for (const name of ['Zeta uno', 'Zeta dos', 'Zeta tres']) await newPlan({ name });
    const page = (await api('GET', '/api/admin/plans?q=zeta&page=2&page_size=2')).json();
    expect(page.count).toBe(3);
    expect(page.results).toHaveLength(1);
  });

  it('lets finance write plans, support and operations only read them', async () => {
    const plan = await newPlan();
    for (const role of ['support', 'operations'] as const) {
      const token = await managerToken(t, role);
      expect((await api('GET', '/api/admin/plans', token)).statusCode).toBe(200);
      const res = await api('PATCH', `/api/admin/plans/${plan.id}`, token, { price: '1.00' });
      expect(res.statusCode).toBe(403);
      expect((await api('DELETE', `/api/admin/plans/${plan.id}`, token)).statusCode).toBe(403);
    }
    const finance = await managerToken(t, 'finance');
    const res = await api('PATCH', `/api/admin/plans/${plan.id}`, finance, { price: '1.00' });
    expect(res.json().price).toBe('1.00');
    const [row] = await t.ctx.db.select().from(plans).where(eq(plans.id, plan.id));
    expect(row!.price).toBe('1.00');
  });

  it('documents the catalogue routes and their bodies in the OpenAPI document', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs' })).json<{
      paths: Record<string, Record<string, { requestBody?: unknown; parameters?: unknown }>>;
    }>();
    const body = (path: string, method: string) => JSON.stringify(doc.paths[path]?.[method]?.requestBody);
    expect(body('/api/admin/plans', 'post')).toContain('validity_days');
    expect(body('/api/admin/plans/{id}', 'patch')).toContain('hidden');
    expect(doc.paths['/api/admin/plans/{id}']).toHaveProperty('delete');
    expect(body('/api/admin/peers/{id}', 'patch')).toContain('change_server');
    expect(JSON.stringify(doc.paths['/api/admin/peers']?.get?.parameters)).toContain('expiring');
    expect(body('/api/admin/partys/{id}', 'delete')).toContain('reason');
    expect(doc.paths['/api/admin/partys']).toHaveProperty('get');
  });
});
