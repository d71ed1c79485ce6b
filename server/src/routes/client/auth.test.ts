import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { customers, rateLimits } from '../../db/schema.ts';
import { hashPassword } from '../../lib/crypto.ts';
import {
  bearer,
  createCustomer,
  createTestApp,
  login,
  setSettings,
  solveCaptcha,
  type TestApp,
} from '../../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.ctx.db.delete(rateLimits);
  await setSettings(t, { maintenance: false, allow_registration: true, allow_email: false });
});

const register = (payload: Record<string, unknown>) =>
  t.app.inject({ method: 'PUT', url: '/api/client/register', payload });
const count = async () => (await t.ctx.db.select({ n: sql<number>`count(*)::int` }).from(customers))[0]!.n;

describe('PUT /api/client/register', () => {
  it('registers a customer whose captcha was solved, who can then log in', async () => {
    const res = await register({
      username: 'yusniel',
      password: 'clave-segura-1',
      captcha_token: await solveCaptcha(t),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().message).toBe('Usuario registrado correctamente');
    // A session for the new account comes with it: the dashboard opens without a login.
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: { authorization: `Bearer ${res.json().access}` },
    });
    expect(me.statusCode).toBe(200);
    expect(me.json().username).toBe('yusniel');
    expect(res.json().refresh).toBeTruthy();
    const tokens = await login(t, 'yusniel', 'clave-segura-1');
    expect(tokens.access).toBeTruthy();
    const [row] = await t.ctx.db.select().from(customers).where(eq(customers.username, 'yusniel'));
    expect(row!.passwordHash).toMatch(/^scrypt\$/);
    expect(row!.passwordHash).not.toContain('clave-segura-1');
  });

  it("asks for the captcha first: 'Por favor, complete el captcha'", async () => {
    const before = await count();
    const res = await register({ username: '', password: '' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('Por favor, complete el captcha');
    expect(await count()).toBe(before);
  });

  it("refuses a missing username or password: 'El usuario y contraseña son obligatorios'", async () => {
    for (const body of [
      { username: '', password: 'x12345678' },
      { username: 'pepe', password: '' },
      { username: '   ', password: 'abc' },
    ]) {
      const res = await register({ ...body, captcha_token: 'algo' });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('El usuario y contraseña son obligatorios');
    }
  });

  it('refuses a forged, malformed or reused captcha and creates nothing', async () => {
    const before = await count();
    for (const token of ['no-es-base64-json', Buffer.from('{"number":1}').toString('base64')]) {
      const res = await register({ username: 'robot', password: 'clave-segura-1', captcha_token: token });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe('La verificación humana no es válida. Por favor, inténtalo de nuevo.');
    }
    const solved = await solveCaptcha(t);
    expect(
      (await register({ username: 'primero', password: 'clave-segura-1', captcha_token: solved })).statusCode,
    ).toBe(201);
    const replay = await register({ username: 'segundo', password: 'clave-segura-1', captcha_token: solved });
    expect(replay.statusCode).toBe(400);
    expect(await count()).toBe(before + 1);
  });

  it('refuses a taken username, whatever its case', async () => {
    await createCustomer(t, 'Repetido');
    const res = await register({
      username: 'repetido',
      password: 'clave-segura-1',
      captcha_token: await solveCaptcha(t),
    });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe('El nombre de usuario ya está en uso');
  });

  it('refuses usernames and passwords outside the rules', async () => {
    const cases = [
      [
        { username: 'a b', password: 'clave-segura-1' },
        'El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo',
      ],
      [
        { username: 'ab', password: 'clave-segura-1' },
        'El usuario debe tener entre 3 y 32 caracteres: letras, números, punto, guion o guion bajo',
      ],
      [{ username: 'corto', password: '1234567' }, 'La contraseña debe tener al menos 8 caracteres'],
      [
        { username: 'largo', password: 'x'.repeat(129) },
        'La contraseña no puede tener más de 128 caracteres',
      ],
    ] as const;
    for (const [body, message] of cases) {
      const res = await register({ ...body, captcha_token: await solveCaptcha(t) });
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(message);
    }
  });

  it('accepts an e-mail only when allow_email is on', async () => {
    const off = await register({
      username: 'conmail',
      password: 'clave-segura-1',
      email: 'a@b.cu',
      captcha_token: await solveCaptcha(t),
    });
    expect(off.statusCode).toBe(400);
    expect(off.json().message).toBe('El registro con email no está habilitado');
    await setSettings(t, { allow_email: true });
    const bad = await register({
      username: 'conmail',
      password: 'clave-segura-1',
      email: 'no-es-email',
      captcha_token: await solveCaptcha(t),
    });
    expect(bad.json().message).toBe('El email no es válido');
    const ok = await register({
      username: 'conmail',
      password: 'clave-segura-1',
      email: 'Cliente@Nauta.cu',
      captcha_token: await solveCaptcha(t),
    });
    expect(ok.statusCode).toBe(201);
    const [row] = await t.ctx.db.select().from(customers).where(eq(customers.username, 'conmail'));
    expect(row!.email).toBe('Cliente@Nauta.cu');
    expect(row!.emailVerified).toBe(false);
    const dup = await register({
      username: 'otro',
      password: 'clave-segura-1',
      email: 'cliente@nauta.cu',
      captcha_token: await solveCaptcha(t),
    });
    expect(dup.statusCode).toBe(409);
    expect(dup.json().message).toBe('El email ya está en uso');
  });

  it('treats an empty e-mail as none', async () => {
    const res = await register({
      username: 'sinmail',
      password: 'clave-segura-1',
      email: '',
      captcha_token: await solveCaptcha(t),
    });
    expect(res.statusCode).toBe(201);
  });

  it('is closed when allow_registration is off', async () => {
    await setSettings(t, { allow_registration: false });
    const res = await register({
      username: 'tarde',
      password: 'clave-segura-1',
      captcha_token: await solveCaptcha(t),
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('El registro de nuevos usuarios está deshabilitado');
  });
});

describe('POST /api/client/login', () => {
  it('answers access and refresh tokens for the right password, case-insensitive username', async () => {
    const c = await createCustomer(t, 'Maria', 'clave-de-maria');
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: 'maria', password: c.password, remember: true },
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(['access', 'refresh']);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(body.access),
    });
    expect(me.json()).toMatchObject({ id: c.id, username: 'Maria', alias: null, email: null });
  });

  it('answers the same message for a wrong password and an unknown user', async () => {
    await createCustomer(t, 'pedro', 'clave-de-pedro');
    const wrong = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: 'pedro', password: 'otra-clave' },
    });
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: 'nadie', password: 'otra-clave' },
    });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json().message).toBe('Usuario o contraseña incorrectos');
    expect(unknown.json().message).toBe(wrong.json().message);
  });

  it("requires both fields: 'El usuario y contraseña son obligatorios'", async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: 'pedro' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('El usuario y contraseña son obligatorios');
  });

  it('refuses a disabled account', async () => {
    const c = await createCustomer(t, 'baja', 'clave-de-baja');
    await t.ctx.db.update(customers).set({ active: false }).where(eq(customers.id, c.id));
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/client/login',
      payload: { username: 'baja', password: c.password },
    });
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toBe('Tu cuenta está deshabilitada. Contacta con soporte.');
  });

  it('slows the address that keeps failing for an account, captcha or not; past the limit asks for a captcha, never locks', async () => {
    const limited = await createTestApp({
      database: t.database,
      rateLimits: { loginFailuresPerAccount: { max: 5, windowSeconds: 90_000 } },
    });
    const c = await createCustomer(t, 'objetivo', 'clave-objetivo');
    const attempt = (password: string, address: string, captcha_token?: string) =>
      limited.app.inject({
        method: 'POST',
        url: '/api/client/login',
        remoteAddress: address,
        payload: { username: 'objetivo', password, ...(captcha_token ? { captcha_token } : {}) },
      });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await attempt('mala', '198.51.100.1')).statusCode);
    expect(codes).toEqual([401, 401, 401]);
    // After three wrong passwords from one address, that address's next try for this account waits,
    // password unchecked. Each wrong password costs a real scrypt; on a busy machine more than the
    // first 1 s delay may pass meanwhile, so the last failure is dated "just now" (with slack).
    await limited.ctx.db
      .update(rateLimits)
      .set({ lastAt: new Date(Date.now() + 30_000) })
      .where(eq(rateLimits.key, 'login:fail:pair:objetivo@198.51.100.1'));
    const slowed = await attempt(c.password, '198.51.100.1');
    expect(slowed.statusCode).toBe(429);
    expect(slowed.json()).toMatchObject({ code: 'login_delay' });
    expect(slowed.json().message).toMatch(
      /^Demasiados intentos fallidos con este usuario desde tu conexión\. Espera \d+ s/,
    );
    expect(Number(slowed.headers['retry-after'])).toBeGreaterThan(0);
    // A solved captcha does not skip the delay (it used to skip every limit).
    const withCaptcha = await attempt(c.password, '198.51.100.1', await solveCaptcha(limited));
    expect(withCaptcha.statusCode).toBe(429);
    expect(withCaptcha.json()).toMatchObject({ code: 'login_delay' });
    // Other addresses are not delayed by that one's failures.
    expect((await attempt('mala', '198.51.100.2')).statusCode).toBe(401);
    expect((await attempt('mala', '198.51.100.3')).statusCode).toBe(401);
    // Five failures: from anywhere, even the right password needs a captcha now.
    const blocked = await attempt(c.password, '198.51.100.4');
    expect(blocked.statusCode).toBe(429);
    expect(blocked.json()).toEqual({
      message: 'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
      code: 'captcha_required',
    });
    const solved = await solveCaptcha(limited, 'username=objetivo', '198.51.100.4');
    expect((await attempt(c.password, '198.51.100.4', solved)).statusCode).toBe(200);
    // A good login forgets the failures: the next login needs nothing.
    expect((await attempt(c.password, '198.51.100.4')).statusCode).toBe(200);
    await limited.app.close();
  });

  it(
    'checks at most the policy count of 60 wrong passwords sent at once from 60 addresses; the rest need a captcha',
    { timeout: 600_000 },
    async () => {
      // The default policy's 10 failures, over 30 days: none drains while a slow machine runs the burst.
      const limited = await createTestApp({
        database: t.database,
        rateLimits: { loginFailuresPerAccount: { max: 10, windowSeconds: 30 * 86_400 } },
      });
      const c = await createCustomer(t, 'rafaga', 'clave-de-rafaga');
      const attempt = (password: string, address: string, captcha_token?: string) =>
        limited.app.inject({
          method: 'POST',
          url: '/api/client/login',
          remoteAddress: address,
          payload: { username: 'rafaga', password, ...(captcha_token ? { captcha_token } : {}) },
        });
      const burst = await Promise.all(
        Array.from({ length: 60 }, (_, i) => attempt(`mala-${i}`, `198.18.7.${i + 1}`)),
      );
      const checked = burst.filter((r) => r.statusCode === 401);
      const asked = burst.filter((r) => r.statusCode === 429 && r.json().code === 'captcha_required');
      expect(checked).toHaveLength(10);
      expect(asked).toHaveLength(50);
      // The customer, with a solved captcha, still gets in; that forgets the failures.
      const solved = await solveCaptcha(limited, 'username=rafaga', '203.0.113.70');
      expect((await attempt(c.password, '203.0.113.70', solved)).statusCode).toBe(200);
      expect((await attempt(c.password, '203.0.113.70')).statusCode).toBe(200);
      await limited.app.close();
    },
  );

  it('makes the captcha harder as failures for the account go on past the limit, and refuses an easier one', async () => {
    const limited = await createTestApp({
      database: t.database,
      rateLimits: { loginFailuresPerAccount: { max: 5, windowSeconds: 90_000 } },
    });
    const c = await createCustomer(t, 'asediado', 'clave-asediada');
    const challenge = async () =>
      (
        await limited.app.inject({
          url: '/api/client/captcha?username=asediado',
          remoteAddress: '203.0.113.9',
        })
      ).json<{ maxnumber: number }>().maxnumber;
    expect(await challenge()).toBe(50_000);
    // Wrong passwords from 20 addresses (counted as the route counts them, without 20 scrypt runs).
    for (let i = 0; i < 20; i++) await limited.ctx.loginThrottle.failed(`192.0.2.${100 + i}`, 'asediado');
    // 4 × the limit: the hardest challenge, 16 × the base work.
    expect(await challenge()).toBe(16 * 50_000);
    const easy = await solveCaptcha(limited, '', '203.0.113.9');
    const refused = await limited.app.inject({
      method: 'POST',
      url: '/api/client/login',
      remoteAddress: '203.0.113.9',
      payload: { username: 'asediado', password: c.password, captcha_token: easy },
    });
    expect(refused.statusCode).toBe(429);
    expect(refused.json().code).toBe('captcha_required');
    expect(refused.json().message).toBe(
      'Siguen llegando intentos fallidos para este usuario: completa de nuevo el captcha (ahora tarda algo más).',
    );
    await limited.app.close();
  });

  it(
    'never counts a successful login: 200 customers behind one address all get in',
    { timeout: 900_000 },
    async () => {
      const hash = await hashPassword('clave-compartida');
      await t.ctx.db
        .insert(customers)
        .values(Array.from({ length: 200 }, (_, i) => ({ username: `nat${i}`, passwordHash: hash })));
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          t.app.inject({
            method: 'POST',
            url: '/api/client/login',
            remoteAddress: '203.0.113.200',
            payload: { username: `nat${i}`, password: 'clave-compartida' },
          }),
        ),
      );
      expect(results.filter((r) => r.statusCode === 200)).toHaveLength(200);
      // The same customers logging in again (11 times in a row for one of them) are not refused.
      for (let k = 0; k < 11; k++) {
        const again = await t.app.inject({
          method: 'POST',
          url: '/api/client/login',
          remoteAddress: '203.0.113.200',
          payload: { username: 'nat0', password: 'clave-compartida' },
        });
        expect(again.statusCode).toBe(200);
      }
    },
  );

  // 41 full password hashes (unknown usernames are hashed too, so timing tells nothing): on a
  // shared 2-core machine that alone can pass the default 90 s.
  it(
    'throttles 40 wrong passwords from one address (across usernames); other addresses are unaffected',
    { timeout: 600_000 },
    async () => {
      // 30 per 30 days: none of the 40 drains away while they run, however slow the machine.
      const limited = await createTestApp({
        database: t.database,
        rateLimits: { loginFailuresPerIp: { max: 30, windowSeconds: 30 * 86_400 } },
      });
      const codes: number[] = [];
      for (let i = 0; i < 40; i++) {
        const res = await limited.app.inject({
          method: 'POST',
          url: '/api/client/login',
          remoteAddress: '192.0.2.50',
          payload: { username: `u${i}`, password: 'mala' },
        });
        codes.push(res.statusCode);
      }
      expect(codes.filter((c) => c === 401)).toHaveLength(30);
      expect(codes.slice(30).every((c) => c === 429)).toBe(true);
      const other = await limited.app.inject({
        method: 'POST',
        url: '/api/client/login',
        remoteAddress: '192.0.2.51',
        payload: { username: 'u9', password: 'mala' },
      });
      expect(other.statusCode).toBe(401);
      await limited.app.close();
    },
  );

  // Issue 31 §4: the address's failures were read before the password check and counted after it,
  // so a burst sent at once had all ~200 passwords checked before any failure was counted.
  it(
    'a burst of 200 wrong passwords from one address (across usernames) gets at most 30 + 4 checked before the captcha',
    { timeout: 600_000 },
    async () => {
      const limited = await createTestApp({
        database: t.database,
        rateLimits: { loginFailuresPerIp: { max: 30, windowSeconds: 30 * 86_400 } },
      });
      const hash = await hashPassword('la-buena');
      await t.ctx.db
        .insert(customers)
        .values(Array.from({ length: 100 }, (_, i) => ({ username: `burst${i}`, passwordHash: hash })));
      // Half existing usernames, half unknown ones: both are checked (a dummy hash for the unknown).
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          limited.app.inject({
            method: 'POST',
            url: '/api/client/login',
            remoteAddress: '192.0.2.60',
            payload: { username: i % 2 ? `burst${i >> 1}` : `nadie${i}`, password: 'mala' },
          }),
        ),
      );
      const codes = results.map((r) => r.statusCode);
      // A 401 is a password checked and found wrong; the rest were asked for a captcha before any check.
      const checked = codes.filter((c) => c === 401).length;
      expect(checked).toBeGreaterThanOrEqual(30);
      // At most the limit plus the hashes in flight at once (the scrypt gate runs at most 4).
      expect(checked).toBeLessThanOrEqual(34);
      const refused = results.filter((r) => r.statusCode !== 401);
      expect(refused.map((r) => r.json<{ code: string }>().code)).toEqual(
        refused.map(() => 'captcha_required'),
      );
      // A customer behind that address with the right password is asked for the captcha, not locked out.
      const owner = await limited.app.inject({
        method: 'POST',
        url: '/api/client/login',
        remoteAddress: '192.0.2.60',
        payload: { username: 'burst0', password: 'la-buena' },
      });
      expect(owner.statusCode).toBe(429);
      expect(owner.json<{ code: string }>().code).toBe('captcha_required');
      await limited.app.close();
    },
  );

  it('counts registrations per address only after the captcha, its first gate', async () => {
    const limited = await createTestApp({
      database: t.database,
      rateLimits: { registerPerIp: { max: 1, windowSeconds: 3600 } },
    });
    const register = async (username: string, captcha_token?: string) =>
      limited.app.inject({
        method: 'PUT',
        url: '/api/client/register',
        remoteAddress: '192.0.2.77',
        payload: { username, password: 'contraseña-segura', ...(captcha_token ? { captcha_token } : {}) },
      });
    // Bots without a captcha spend nothing of the address's budget.
    for (let i = 0; i < 3; i++) expect((await register(`bot${i}`)).statusCode).toBe(400);
    expect((await register('persona1', await solveCaptcha(limited))).statusCode).toBe(201);
    expect((await register('persona2', await solveCaptcha(limited))).statusCode).toBe(429);
    await limited.app.close();
  });
});

describe('GET /api/client/verify-token', () => {
  it('refuses a missing, malformed or tampered token', async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const tampered = access.slice(0, -3) + (access.endsWith('A') ? 'BBB' : 'AAA');
    for (const headers of [
      {},
      { authorization: 'Bearer' },
      { authorization: 'Basic abc' },
      bearer('x.y.z'),
      bearer(tampered),
    ]) {
      const res = await t.app.inject({ method: 'GET', url: '/api/client/verify-token', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('No autorizado. Por favor, inicia sesión.');
    }
  });

  it('reports the rooms and e-mail switches as web_settings', async () => {
    await setSettings(t, { allow_partys: true, allow_email: true });
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(access),
    });
    expect(res.json().web_settings).toEqual({ allow_partys: true, allow_email: true });
  });

  it('stops accepting a token once the account is disabled', async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    await t.ctx.db.update(customers).set({ active: false }).where(eq(customers.id, c.id));
    const res = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(access),
    });
    expect(res.statusCode).toBe(401);
  });
});
