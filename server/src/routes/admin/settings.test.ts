import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

describe('/api/admin/settings', () => {
  it('switches maintenance on for customers at once, and off again', async () => {
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(admin),
      payload: { maintenance: true },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().maintenance).toBe(true);
    expect((await t.app.inject({ method: 'GET', url: '/api/client/plans' })).statusCode).toBe(503);
    await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(admin),
      payload: { maintenance: false },
    });
    expect((await t.app.inject({ method: 'GET', url: '/api/client/plans' })).statusCode).toBe(200);
  });

  it('refuses unknown keys and wrong types, changing nothing', async () => {
    const before = (
      await t.app.inject({ method: 'GET', url: '/api/admin/settings', headers: bearer(admin) })
    ).json();
    for (const payload of [{ maintenance: 'si' }, { borrar_todo: true }, { allow_email: true, extra: 1 }]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/admin/settings',
        headers: bearer(admin),
        payload,
      });
      expect(res.statusCode).toBe(400);
    }
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/settings', headers: bearer(admin) })).json(),
    ).toEqual(before);
  });

  it('is closed to customers', async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(access),
      payload: { maintenance: true },
    });
    expect(res.statusCode).toBe(401);
  });
});
