/**
 * Issue 17, M3: a stolen owner session (an access token alone) must not take the account or the
 * installation over. Sensitive operations need a fresh password (and code, with two-factor on),
 * checked by the server, rate-limited, and counted like login failures.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { managers, rateLimits } from '../../db/schema.ts';
import { verifyPassword } from '../../lib/crypto.ts';
import { base32Decode, hotp } from '../../lib/totp.ts';
import { bearer, createManager, createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
/** The default limits' sizes over 30 days: nothing drains while a slow machine runs a test (GCRA). */
const MONTH = 30 * 86_400;
beforeAll(async () => {
  t = await createTestApp({
    scheduler: false,
    rateLimits: {
      loginPerUsername: { max: 10, windowSeconds: MONTH },
      sensitivePerManager: { max: 10, windowSeconds: MONTH },
    },
  });
});
afterAll(() => t.close());

const codeAt = (secret: string, s: number) => hotp(base32Decode(secret), s);
const step = () => Math.floor(Date.now() / 30_000);

async function owner(username: string) {
  const m = await createManager(t, username, `clave-de-${username}`, 'owner');
  const login = (totp?: string, remoteAddress = '127.0.0.1') =>
    t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      remoteAddress,
      payload: { username, password: m.password, ...(totp ? { totp } : {}) },
    });
  const token = (await login()).json().access as string;
  const call = (
    method: 'POST' | 'PATCH' | 'DELETE',
    url: string,
    payload?: object,
    reauth?: string,
    as = token,
  ) =>
    t.app.inject({
      method,
      url,
      headers: { ...bearer(as), ...(reauth ? { 'x-reauth': reauth } : {}) },
      ...(payload ? { payload } : {}),
    });
  const reauth = async (body: object, as = token) =>
    t.app.inject({ method: 'POST', url: '/api/admin/me/reauth', headers: bearer(as), payload: body });
  return { ...m, token, login, call, reauth };
}

describe('sensitive manager operations', () => {
  it('refuse an owner token alone, change nothing, and go through with a fresh password', async () => {
    const o = await owner('duenaReauth');
    const other = await createManager(t, 'apoyo-reauth', 'clave-apoyo-1', 'support');
    const attempts: [string, 'POST' | 'PATCH' | 'DELETE', string, object | undefined][] = [
      ['own password', 'PATCH', `/api/admin/managers/${o.id}`, { password: 'robada-123456' }],
      ['role', 'PATCH', `/api/admin/managers/${other.id}`, { role: 'owner' }],
      [
        'new owner',
        'POST',
        '/api/admin/managers',
        { username: 'intruso', password: 'intruso-12345', role: 'owner' },
      ],
      ['enrol totp', 'POST', '/api/admin/me/totp', undefined],
      [
        'gateway credentials',
        'PATCH',
        '/api/admin/settings/gateways',
        { qvapay: { app_id: 'x', app_secret: 'y' } },
      ],
    ];
    for (const [what, method, url, payload] of attempts) {
      const res = await o.call(method, url, payload);
      expect(res.statusCode, what).toBe(403);
      expect(res.json(), what).toMatchObject({ code: 'reauth_required' });
    }
    const [row] = await t.ctx.db.select().from(managers).where(eq(managers.id, o.id));
    expect(await verifyPassword(o.password, row!.passwordHash)).toBe(true);
    const [sup] = await t.ctx.db.select().from(managers).where(eq(managers.id, other.id));
    expect(sup!.role).toBe('support');
    expect(await t.ctx.db.select().from(managers).where(eq(managers.username, 'intruso'))).toHaveLength(0);

    const wrong = await o.reauth({ password: 'no-es-esta' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().message).toBe('La contraseña no es correcta');
    const ok = await o.reauth({ password: o.password });
    expect(ok.statusCode).toBe(200);
    const proof = ok.json().token as string;
    expect(
      (await o.call('PATCH', `/api/admin/managers/${other.id}`, { role: 'owner' }, proof)).statusCode,
    ).toBe(200);
    // Another session's or another manager's token does not carry this confirmation.
    const second = (await o.login()).json().access as string;
    const elsewhere = await o.call(
      'PATCH',
      `/api/admin/managers/${other.id}`,
      { role: 'support' },
      proof,
      second,
    );
    expect(elsewhere.statusCode).toBe(403);
  });

  it("refuse a stolen owner session another owner's password, name, 2FA, state, role and deletion, and new managers", async () => {
    const thief = await owner('duenaRobada');
    const b = await owner('duenaB');
    const proofB = (await b.reauth({ password: b.password })).json().token as string;
    const { secret } = (await b.call('POST', '/api/admin/me/totp', undefined, proofB)).json();
    expect(
      (await b.call('POST', '/api/admin/me/totp/confirm', { code: codeAt(secret, step()) })).statusCode,
    ).toBe(200);
    const attempts: [string, 'POST' | 'PATCH' | 'DELETE', string, object | undefined][] = [
      ['password', 'PATCH', `/api/admin/managers/${b.id}`, { password: 'robada-123456' }],
      ['username', 'PATCH', `/api/admin/managers/${b.id}`, { username: 'duena-b-robada' }],
      ['disable', 'PATCH', `/api/admin/managers/${b.id}`, { disabled: true }],
      ['role', 'PATCH', `/api/admin/managers/${b.id}`, { role: 'support' }],
      ['2FA reset', 'DELETE', `/api/admin/managers/${b.id}/totp`, undefined],
      ['delete', 'DELETE', `/api/admin/managers/${b.id}`, undefined],
      [
        'new support manager',
        'POST',
        '/api/admin/managers',
        { username: 'cuenta-del-ladron', password: 'ladron-12345', role: 'support' },
      ],
    ];
    for (const [what, method, url, payload] of attempts) {
      const res = await thief.call(method, url, payload);
      expect(res.statusCode, what).toBe(403);
      expect(res.json(), what).toMatchObject({ code: 'reauth_required' });
    }
    // B is untouched: the old password still opens the account, and only with B's code.
    const [row] = await t.ctx.db.select().from(managers).where(eq(managers.id, b.id));
    expect(row).toMatchObject({ username: 'duenaB', role: 'owner', active: true });
    expect(row!.totpEnabledAt).not.toBeNull();
    expect(await verifyPassword(b.password, row!.passwordHash)).toBe(true);
    expect((await b.login(undefined, '203.0.113.60')).json().code).toBe('totp_required');
    expect(await t.ctx.db.select().from(managers).where(eq(managers.username, 'cuenta-del-ladron'))).toEqual(
      [],
    );
    // The real owner, with the password again, can do each of them.
    const proof = (await thief.reauth({ password: thief.password })).json().token as string;
    const reset = await thief.call('DELETE', `/api/admin/managers/${b.id}/totp`, undefined, proof);
    expect(reset.statusCode).toBe(200);
    const disabled = await thief.call('PATCH', `/api/admin/managers/${b.id}`, { disabled: true }, proof);
    expect(disabled.json()).toMatchObject({ disabled: true });
    expect((await thief.call('DELETE', `/api/admin/managers/${b.id}`, undefined, proof)).statusCode).toBe(
      200,
    );
  });

  it('ask for the code too when two-factor is on; enrolling it ends the other sessions', async () => {
    const o = await owner('duenaTotp');
    const proof = (await o.reauth({ password: o.password })).json().token as string;
    const other = (await o.login()).json().access as string;
    const { secret } = (await o.call('POST', '/api/admin/me/totp', undefined, proof)).json();
    const confirmed = await o.call('POST', '/api/admin/me/totp/confirm', { code: codeAt(secret, step()) });
    expect(confirmed.statusCode).toBe(200);
    // The other session is over; this one goes on.
    const probe = (as: string) =>
      t.app.inject({ method: 'GET', url: '/api/admin/verify-token', headers: bearer(as) });
    expect((await probe(other)).statusCode).toBe(401);
    expect((await probe(o.token)).statusCode).toBe(200);
    const noCode = await o.reauth({ password: o.password });
    expect(noCode.statusCode).toBe(400);
    expect(noCode.json().code).toBe('totp_required');
    const code = codeAt(secret, step() + 1);
    const withCode = await o.reauth({ password: o.password, code });
    expect(withCode.statusCode).toBe(200);
    // The console sends the code it was asked for in both places: the same code is not refused as
    // replayed; another wrong one would be.
    const wrong = await o.call('DELETE', '/api/admin/me/totp', { code: '000000' }, withCode.json().token);
    expect(wrong.statusCode).toBe(400);
    const off = await o.call('DELETE', '/api/admin/me/totp', { code }, withCode.json().token);
    expect(off.statusCode).toBe(200);
  });

  it('check at most the limit of 60 wrong passwords sent at once, and still confirm the right one later', async () => {
    const o = await owner('duenaRafaga');
    const burst = await Promise.all(
      Array.from({ length: 60 }, (_, i) => o.reauth({ password: `mala-${i}` })),
    );
    expect(burst.filter((r) => r.statusCode === 400)).toHaveLength(10);
    expect(burst.filter((r) => r.statusCode === 429)).toHaveLength(50);
    expect(burst.find((r) => r.statusCode === 429)!.headers['retry-after']).toBeDefined();
    // Confirmations that succeed give their try back: the limit only ever fills with wrong ones.
    await t.ctx.db.delete(rateLimits);
    for (let i = 0; i < 12; i++) expect((await o.reauth({ password: o.password })).statusCode).toBe(200);
  });

  it('count wrong passwords and codes like login failures, and stop answering past the limit', async () => {
    const o = await owner('duenaGuess');
    await t.ctx.db.delete(rateLimits);
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await o.reauth({ password: `mala-${i}` })).statusCode);
    expect(codes.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(codes[10]).toBe(429);
    // The username is past its login limit too: a sign-in (from another address: this one is also
    // slowed down) now needs a captcha.
    const signIn = await o.login(undefined, '203.0.113.40');
    expect(signIn.statusCode).toBe(429);
    expect(signIn.json().code).toBe('captcha_required');
    // Guesses at DELETE /api/admin/me/totp count the same way.
    const p = await owner('duenaDelete');
    const before = await t.ctx.managerLoginThrottle.captchaFactor('127.0.0.1', 'duenaDelete');
    const proof = (await p.reauth({ password: p.password })).json().token as string;
    const { secret } = (await p.call('POST', '/api/admin/me/totp', undefined, proof)).json();
    await p.call('POST', '/api/admin/me/totp/confirm', { code: codeAt(secret, step()) });
    const fresh = (await p.reauth({ password: p.password, code: codeAt(secret, step() + 1) })).json().token;
    for (let i = 0; i < 10; i++) await p.call('DELETE', '/api/admin/me/totp', { code: '000000' }, fresh);
    expect(before).toBe(1);
    const locked = await p.login(codeAt(secret, step() + 2), '203.0.113.41');
    expect(locked.json().code).toBe('captcha_required');
  });
});
