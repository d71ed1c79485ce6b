import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { rateLimits } from '../../db/schema.ts';
import {
  bearer,
  createCustomer,
  createManager,
  solveCaptcha,
  createTestApp,
  login,
  type TestApp,
} from '../../../test/helpers.ts';

let t: TestApp;
/** The default limits' sizes over 30 days: nothing drains while a slow machine runs a test (GCRA). */
const MONTH = 30 * 86_400;
beforeAll(async () => {
  t = await createTestApp({
    rateLimits: {
      loginPerIp: { max: 30, windowSeconds: MONTH },
      loginPerUsername: { max: 10, windowSeconds: MONTH },
    },
  });
});
afterAll(() => t.close());
beforeEach(() => t.ctx.db.delete(rateLimits));

const adminLogin = (payload: Record<string, unknown>, remoteAddress = '127.0.0.1') =>
  t.app.inject({ method: 'POST', url: '/api/admin/login', payload, remoteAddress });

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

  it('never counts a successful login: 15 sign-ins in a row all succeed (limit 10 failures)', async () => {
    const m = await createManager(t, 'frecuente', 'clave-frecuente');
    const statuses: number[] = [];
    for (let i = 0; i < 15; i++)
      statuses.push((await adminLogin({ username: 'frecuente', password: m.password })).statusCode);
    expect(statuses).toEqual(Array(15).fill(200));
  });

  it('lets the real manager in while wrong passwords for that username keep arriving from many addresses', async () => {
    // The default username is `admin`: anyone can send wrong passwords for it. Ten failures from ten
    // addresses used to lock it for the rest of the 300 s window, again and again (M1).
    const m = await createManager(t, 'asediada', 'clave-asediada');
    const attackers: number[] = [];
    for (let i = 0; i < 12; i++)
      attackers.push(
        (await adminLogin({ username: 'asediada', password: `mala-${i}` }, `198.51.100.${i + 1}`)).statusCode,
      );
    expect(attackers.slice(0, 10)).toEqual(Array(10).fill(401));
    // Past the limit every try for the name, the attackers' too, needs a captcha: no scrypt without one.
    expect(attackers.slice(10)).toEqual([429, 429]);
    // Without a captcha the right password is asked for one, not refused for a window.
    const asked = await adminLogin({ username: 'ASEDIADA', password: m.password }, '203.0.113.5');
    expect(asked.statusCode).toBe(429);
    expect(asked.json()).toEqual({
      message: 'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
      code: 'captcha_required',
    });
    // More guesses, captcha-solved, from yet more addresses: they still fail and the count goes on.
    for (let i = 0; i < 3; i++) {
      const token = await solveCaptcha(t, 'username=asediada&realm=manager', `198.51.100.${50 + i}`);
      const guess = await adminLogin(
        { username: 'asediada', password: `otra-${i}`, captcha_token: token },
        `198.51.100.${50 + i}`,
      );
      expect(guess.statusCode).toBe(401);
    }
    // The manager, from their own address, with the right password and a solved captcha: in.
    const token = await solveCaptcha(t, 'username=asediada&realm=manager', '203.0.113.5');
    const inside = await adminLogin(
      { username: 'asediada', password: m.password, captcha_token: token },
      '203.0.113.5',
    );
    expect(inside.statusCode).toBe(200);
  });

  it(
    'checks at most the policy count of 60 wrong passwords sent at once from 60 addresses; the rest need a captcha',
    { timeout: 600_000 },
    async () => {
      const m = await createManager(t, 'rafagas', 'clave-de-rafagas');
      const burst = await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          adminLogin({ username: 'rafagas', password: `mala-${i}` }, `198.18.8.${i + 1}`),
        ),
      );
      expect(burst.filter((r) => r.statusCode === 401)).toHaveLength(10);
      expect(burst.filter((r) => r.statusCode === 429 && r.json().code === 'captcha_required')).toHaveLength(
        50,
      );
      const token = await solveCaptcha(t, 'username=rafagas&realm=manager', '203.0.113.71');
      const inside = await adminLogin(
        { username: 'rafagas', password: m.password, captcha_token: token },
        '203.0.113.71',
      );
      expect(inside.statusCode).toBe(200);
    },
  );

  it('makes an address that keeps failing wait, captcha or not, and no other address', async () => {
    const m = await createManager(t, 'vigilada', 'clave-vigilada');
    // The address's limit of 30 failures, counted as the route counts them (without 30 scrypt runs).
    for (let i = 0; i < 30; i++) await t.ctx.managerLoginThrottle.failed('192.0.2.66', `nombre-${i}`);
    const waits = await adminLogin({ username: 'vigilada', password: m.password }, '192.0.2.66');
    expect(waits.statusCode).toBe(429);
    expect(Number(waits.headers['retry-after'])).toBeGreaterThan(0);
    expect(waits.json().message).toBe(
      'Demasiados intentos. Por favor, espera un momento e inténtalo de nuevo.',
    );
    const token = await solveCaptcha(t, '', '192.0.2.66');
    const still = await adminLogin(
      { username: 'vigilada', password: m.password, captcha_token: token },
      '192.0.2.66',
    );
    expect(still.statusCode).toBe(429);
    expect((await adminLogin({ username: 'vigilada', password: m.password }, '192.0.2.67')).statusCode).toBe(
      200,
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
