import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerAccessControl } from '../../plugins/auth.ts';
import { bearer, createTestApp, managerToken, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
});
afterAll(() => t.close());

describe('manager roles', () => {
  it('refuses a support manager a public switch with a 403 naming the role, changing nothing', async () => {
    const support = await managerToken(t, 'support');
    const res = await t.app.inject({
      method: 'PATCH',
      url: '/api/admin/settings',
      headers: bearer(support),
      payload: { maintenance: true },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Su rol (Soporte) no tiene permiso para realizar esta acción');
    const status = await t.app.inject({ method: 'GET', url: '/api/client/status' });
    expect(status.json().maintenance).toBe(false);
  });

  it('lets an operations manager switch maintenance on and off', async () => {
    const ops = await managerToken(t, 'operations');
    for (const maintenance of [true, false]) {
      const res = await t.app.inject({
        method: 'PATCH',
        url: '/api/admin/settings',
        headers: bearer(ops),
        payload: { maintenance },
      });
      expect(res.statusCode).toBe(200);
    }
  });

  it('will not start with an admin route that forgot to declare its permission', async () => {
    const app = Fastify();
    registerAccessControl(app, t.ctx.sessions, t.ctx.db);
    expect(() => app.get('/api/admin/forgotten', async () => ({ ok: true }))).toThrow(
      /no declara su permiso/,
    );
    app.get('/api/admin/declared', { config: { permission: 'audit.read' } }, async () => ({ ok: true }));
    await app.close();
  });
});
