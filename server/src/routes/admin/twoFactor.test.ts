import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managers } from '../../db/schema.ts';
import { base32Decode, hotp } from '../../lib/totp.ts';
import {
  bearer,
  createManager,
  createTestApp,
  reauthHeader,
  solveCaptcha,
  type TestApp,
} from '../../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  // A tight per-username login limit, so the test can show that wrong codes spend it.
  t = await createTestApp({
    scheduler: false,
    rateLimits: { loginPerUsername: { max: 5, windowSeconds: 30_000 } },
  });
});
afterAll(() => t.close());

const step = () => Math.floor(Date.now() / 30_000);
const codeAt = (secret: string, s: number) => hotp(base32Decode(secret), s);

function login(
  username: string,
  password: string,
  totp?: string,
  remoteAddress = '127.0.0.1',
  captcha_token?: string,
) {
  return t.app.inject({
    method: 'POST',
    url: '/api/admin/login',
    remoteAddress,
    payload: {
      username,
      password,
      ...(totp === undefined ? {} : { totp }),
      ...(captcha_token ? { captcha_token } : {}),
    },
  });
}

async function signedIn(username: string, role: 'owner' | 'support' = 'support') {
  const m = await createManager(t, username, `clave-de-${username}`, role);
  const token = (await login(m.username, m.password)).json().access as string;
  // Enrolling and switching off are sensitive: the session confirms its password first (reauth.test.ts).
  const proof = await reauthHeader(t, token, m.password);
  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, payload?: object) =>
    t.app.inject({ method, url, headers: { ...bearer(token), ...proof }, ...(payload ? { payload } : {}) });
  return { ...m, token, call };
}

/** Enrols a manager and returns the secret (read from the URI like an app would) and recovery codes. */
async function enrol(m: Awaited<ReturnType<typeof signedIn>>) {
  const start = await m.call('POST', '/api/admin/me/totp');
  expect(start.statusCode).toBe(200);
  const { secret, uri } = start.json();
  expect(new URL(uri).searchParams.get('secret')).toBe(secret);
  const confirm = await m.call('POST', '/api/admin/me/totp/confirm', { code: codeAt(secret, step()) });
  expect(confirm.statusCode).toBe(200);
  return { secret: secret as string, recovery: confirm.json().recovery_codes as string[] };
}

describe('two-factor sign-in (TOTP)', () => {
  it('enrols with an otpauth URI, stores the secret encrypted and asks for the code at login', async () => {
    const m = await signedIn('ana2fa');
    expect((await m.call('GET', '/api/admin/me/totp')).json()).toEqual({
      enabled: false,
      recovery_codes_left: 0,
    });
    const start = (await m.call('POST', '/api/admin/me/totp')).json();
    const uri = new URL(start.uri);
    expect(uri.protocol).toBe('otpauth:');
    expect(decodeURIComponent(uri.pathname)).toBe('/VPN Service:ana2fa');
    expect(start.secret).toMatch(/^[A-Z2-7]{32}$/);
    const [row] = await t.ctx.db.select().from(managers).where(eq(managers.id, m.id));
    expect(row!.totpSecretEnc).toMatch(/^v1:/);
    expect(row!.totpSecretEnc).not.toContain(start.secret);

    // Not yet required: enrolment is pending until a code confirms it.
    expect((await login(m.username, m.password)).statusCode).toBe(200);
    const wrong = await m.call('POST', '/api/admin/me/totp/confirm', { code: '000000' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('El código de verificación no es válido o ya se usó');
    const badFormat = await m.call('POST', '/api/admin/me/totp/confirm', { code: '12' });
    expect(badFormat.statusCode).toBe(400);

    const confirm = await m.call('POST', '/api/admin/me/totp/confirm', {
      code: codeAt(start.secret, step()),
    });
    const codes: string[] = confirm.json().recovery_codes;
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const c of codes) expect(c).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const [enabled] = await t.ctx.db.select().from(managers).where(eq(managers.id, m.id));
    expect(enabled!.recoveryCodes).toHaveLength(10);
    expect(enabled!.recoveryCodes.join()).not.toContain(codes[0]!.replace('-', ''));
    expect((await m.call('GET', '/api/admin/me/totp')).json()).toEqual({
      enabled: true,
      recovery_codes_left: 10,
    });
    const again = await m.call('POST', '/api/admin/me/totp');
    expect(again.statusCode).toBe(409);

    const missing = await login(m.username, m.password);
    expect(missing.statusCode).toBe(401);
    expect(missing.json()).toEqual({
      code: 'totp_required',
      message: 'Introduzca el código de verificación en dos pasos de su aplicación de autenticación',
    });
    // A wrong password never reveals that two-factor is on.
    expect((await login(m.username, 'otra-clave', '123456')).json().code).toBe('unauthorized');
  });

  it('accepts a code once: the same step is refused when replayed, the next step works', async () => {
    const m = await signedIn('beto2fa');
    const { secret } = await enrol(m);
    // The confirmation spent the current step; the next one (within the ±1 window) signs in.
    const next = codeAt(secret, step() + 1);
    const ok = await login(m.username, m.password, next);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().access).toEqual(expect.any(String));
    const replay = await login(m.username, m.password, next);
    expect(replay.statusCode).toBe(401);
    expect(replay.json()).toMatchObject({
      code: 'totp_invalid',
      message: 'El código de verificación no es válido o ya se usó',
    });
    // An older step than the last one used is refused too.
    expect((await login(m.username, m.password, codeAt(secret, step()))).statusCode).toBe(401);
    // Two steps away is outside the window.
    expect((await login(m.username, m.password, codeAt(secret, step() + 3))).statusCode).toBe(401);
  });

  it('lets a recovery code sign in once, in any case and with or without the dash', async () => {
    const m = await signedIn('caro2fa');
    const { recovery } = await enrol(m);
    const typed = recovery[0]!.toUpperCase().replace('-', ' ');
    expect((await login(m.username, m.password, typed)).statusCode).toBe(200);
    expect((await login(m.username, m.password, recovery[0]!)).statusCode).toBe(401);
    expect((await m.call('GET', '/api/admin/me/totp')).json().recovery_codes_left).toBe(9);
    expect((await login(m.username, m.password, recovery[1]!)).statusCode).toBe(200);
  });

  it('counts wrong codes toward the login rate limit', async () => {
    const m = await signedIn('dani2fa');
    const { secret } = await enrol(m);
    // Only failures count: 5 wrong codes fill the limit of 5, the successful sign-in did not count.
    // (Each from its own address: one address's repeated failures are slowed down on their own.)
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await login(m.username, m.password, '999999', `198.51.100.${i + 1}`)).statusCode);
    expect(statuses.every((s) => s === 401)).toBe(true);
    const asked = await login(m.username, m.password, codeAt(secret, step() + 1));
    expect(asked.statusCode).toBe(429);
    expect(asked.json().code).toBe('captcha_required');
    const token = await solveCaptcha(t, `username=${m.username}&realm=manager`);
    expect(
      (await login(m.username, m.password, codeAt(secret, step() + 1), '127.0.0.1', token)).statusCode,
    ).toBe(200);
  }, 60_000);

  it('turns off with a code or the password, never with a wrong one', async () => {
    const m = await signedIn('eva2fa');
    const { secret } = await enrol(m);
    const wrong = await m.call('DELETE', '/api/admin/me/totp', { password: 'no-es-esta' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('La contraseña no es correcta');
    const none = await m.call('DELETE', '/api/admin/me/totp', {});
    expect(none.statusCode).toBe(400);
    expect((await m.call('DELETE', '/api/admin/me/totp', { code: '000000' })).statusCode).toBe(400);
    expect((await m.call('GET', '/api/admin/me/totp')).json().enabled).toBe(true);
    const off = await m.call('DELETE', '/api/admin/me/totp', { code: codeAt(secret, step() + 1) });
    expect(off.json()).toEqual({ message: 'Verificación en dos pasos desactivada' });
    expect((await login(m.username, m.password)).statusCode).toBe(200);
    const [row] = await t.ctx.db.select().from(managers).where(eq(managers.id, m.id));
    expect(row).toMatchObject({ totpSecretEnc: null, totpEnabledAt: null, recoveryCodes: [] });

    const m2 = await signedIn('eva2fa-b');
    await enrol(m2);
    const byPassword = await m2.call('DELETE', '/api/admin/me/totp', { password: m2.password });
    expect(byPassword.statusCode).toBe(200);
  });

  it('lets an owner reset another manager’s two-factor, audited', async () => {
    const m = await signedIn('fede2fa');
    await enrol(m);
    const owner = await signedIn('propietaria2fa', 'owner');
    const support = await signedIn('soporte2fa');
    expect((await support.call('DELETE', `/api/admin/managers/${m.id}/totp`)).statusCode).toBe(403);
    const reset = await owner.call('DELETE', `/api/admin/managers/${m.id}/totp`);
    expect(reset.statusCode).toBe(200);
    expect((await login(m.username, m.password)).statusCode).toBe(200);
    expect((await owner.call('DELETE', `/api/admin/managers/${m.id}/totp`)).statusCode).toBe(409);
    const log = (await owner.call('GET', `/api/admin/audit?target_type=manager&target_id=${m.id}`)).json();
    expect(log.results.map((e: { action: string; manager: string }) => [e.action, e.manager])).toEqual([
      ['manager.totp_reset', 'propietaria2fa'],
      ['manager.totp_enable', 'fede2fa'],
    ]);
    expect(log.results[0].changes).toEqual({ totp_enabled: { before: true, after: false } });
  });
});
