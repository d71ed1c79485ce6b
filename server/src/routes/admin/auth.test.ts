import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rateLimits } from '../../db/schema.ts';
import {
  bearer,
  createCustomer,
  createManager,
  awayFromWindowEdge,
  createTestApp,
  login,
  type TestApp,
} from '../../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
beforeEach(() => t.ctx.db.delete(rateLimits));

const adminLogin = (payload: Record<string, unknown>) =>
  t.app.inject({ method: 'POST', url: '/api/admin/login', payload });

describe('POST /api/admin/login', () => {
  it('signs a manager in and verify-token names them', async () => {
    const m = await createManager(t, 'operador', 'clave-operador');
    const res = await adminLogin({ username: 'operador', password: m.password });
    expect(res.statusCode).toBe(200);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/admin/verify-token',
      headers: bearer(res.json().access),
    });
    expect(me.json()).toEqual({ id: m.id, username: 'operador', role: 'owner' });
  });

  it('does not accept customer credentials', async () => {
    const c = await createCustomer(t, 'cliente1', 'clave-cliente');
    const res = await adminLogin({ username: c.username, password: c.password });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toBe('Usuario o contraseña incorrectos');
  });

  it('never counts a successful login: 15 sign-ins in a row all succeed (default limit 10/300 s)', async () => {
    const m = await createManager(t, 'frecuente', 'clave-frecuente');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++)
      statuses.push((await adminLogin({ username: 'frecuente', password: m.password })).statusCode);
    expect(statuses).toEqual(Array(15).fill(200));
  });

  it('throttles 10 wrong passwords for one username, then refuses even the right one in that window', async () => {
    const m = await createManager(t, 'adivinado', 'clave-adivinada');
    await awayFromWindowEdge(300, 30_000);
    const wrong: number[] = [];
    for (let i = 0; i < 10; i++)
      wrong.push((await adminLogin({ username: 'adivinado', password: `mala-${i}` })).statusCode);
    expect(wrong).toEqual(Array(10).fill(401));
    const blocked = await adminLogin({ username: 'ADIVINADO', password: m.password });
    expect(blocked.statusCode).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.json().message).toBe(
      'Demasiados intentos. Por favor, espere un momento e intente de nuevo.',
    );
  });
});

describe('realm separation', () => {
  it('refuses a customer token on every /api/admin route and a manager token on customer routes', async () => {
    const c = await createCustomer(t);
    const m = await createManager(t, 'otro-gestor', 'clave-de-gestor');
    const customer = await login(t, c.username, c.password);
    const manager = (await adminLogin({ username: m.username, password: m.password })).json();
    const adminRoutes = t.app.printRoutes({ commonPrefix: false }).includes('/api/admin/verify-token');
    expect(adminRoutes).toBe(true);
    const admin = await t.app.inject({
      method: 'GET',
      url: '/api/admin/verify-token',
      headers: bearer(customer.access),
    });
    expect(admin.statusCode).toBe(401);
    const client = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(manager.access),
    });
    expect(client.statusCode).toBe(401);
  });
});
