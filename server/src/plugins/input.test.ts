import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestApp, managerToken, type TestApp } from '../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
});
afterAll(() => t.close());

describe('NUL characters in input', () => {
  it('are refused with a Spanish 400 wherever they come (body, query, path), not a 500 from the database', async () => {
    const owner = await managerToken(t);
    const answers = [
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { username: '\u0000', password: 'x' },
      }),
      await t.app.inject({ method: 'GET', url: '/api/admin/plans?q=%00&page=3', headers: bearer(owner) }),
      await t.app.inject({ method: 'GET', url: '/api/admin/customers?q=a%00b', headers: bearer(owner) }),
      await t.app.inject({
        method: 'POST',
        url: '/api/client/login',
        payload: { username: 'ana', password: 'a\u0000' },
      }),
    ];
    for (const res of answers) {
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('La solicitud contiene caracteres no válidos');
    }
  });
});
