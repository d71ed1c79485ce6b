import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { and, eq, gt, isNotNull, isNull } from 'drizzle-orm';
import { rateLimits, refreshTokens } from '../../db/schema.ts';
import { REFRESH_REUSE_GRACE_MS } from '../../services/identity/sessions.ts';
import {
  bearer,
  createCustomer,
  createManager,
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

const refresh = (token: unknown) =>
  t.app.inject({ method: 'POST', url: '/api/refresh-token', payload: { refresh: token } });

describe('POST /api/refresh-token', () => {
  it('rotates: each use returns a new access and a new refresh token', async () => {
    const c = await createCustomer(t);
    const first = await login(t, c.username, c.password, true);
    const res = await refresh(first.refresh);
    expect(res.statusCode).toBe(200);
    const second = res.json<{ access: string; refresh: string }>();
    expect(second.refresh).not.toBe(first.refresh);
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(second.access),
    });
    expect(me.json().id).toBe(c.id);
    expect((await refresh(second.refresh)).statusCode).toBe(200);
  });

  it('revokes the whole family when a spent token is presented after its successor was used', async () => {
    const c = await createCustomer(t);
    const first = await login(t, c.username, c.password);
    const second = (await refresh(first.refresh)).json<{ refresh: string }>();
    const third = (await refresh(second.refresh)).json<{ refresh: string }>();
    // A thief replays the old token: refused, and the legitimate newest token dies with it.
    const replay = await refresh(first.refresh);
    expect(replay.statusCode).toBe(401);
    expect(replay.json().message).toBe('La sesión ha expirado. Por favor, inicia sesión de nuevo.');
    expect((await refresh(third.refresh)).statusCode).toBe(401);
  });

  it('gives a new pair when the answer of a rotation was lost, and takes the unused one back', async () => {
    const c = await createCustomer(t);
    const first = await login(t, c.username, c.password);
    // The phone never receives this answer …
    const lost = (await refresh(first.refresh)).json<{ refresh: string }>();
    // … so it presents the token it still has, within the grace: a new pair, not a theft alarm.
    const again = await refresh(first.refresh);
    expect(again.statusCode).toBe(200);
    const retaken = again.json<{ access: string; refresh: string }>();
    const me = await t.app.inject({
      method: 'GET',
      url: '/api/client/verify-token',
      headers: bearer(retaken.access),
    });
    expect(me.json().id).toBe(c.id);
    const next = (await refresh(retaken.refresh)).json<{ refresh: string }>();
    // Had a thief replayed instead, the owner's pair would be the lost one: presenting it is a
    // reuse, and the whole family ends.
    expect((await refresh(lost.refresh)).statusCode).toBe(401);
    expect((await refresh(next.refresh)).statusCode).toBe(401);
  });

  it('revokes the whole family when a spent token is presented again after the grace', async () => {
    const c = await createCustomer(t);
    const first = await login(t, c.username, c.password);
    const second = (await refresh(first.refresh)).json<{ refresh: string }>();
    await t.ctx.db
      .update(refreshTokens)
      .set({ usedAt: new Date(Date.now() - REFRESH_REUSE_GRACE_MS - 60_000) })
      .where(and(eq(refreshTokens.subjectId, c.id), isNotNull(refreshTokens.usedAt)));
    expect((await refresh(first.refresh)).statusCode).toBe(401);
    expect((await refresh(second.refresh)).statusCode).toBe(401);
  });

  it('never leaves two live refresh tokens in a session after simultaneous uses of one', async () => {
    const c = await createCustomer(t);
    const first = await login(t, c.username, c.password);
    const answers = await Promise.all([refresh(first.refresh), refresh(first.refresh)]);
    expect(answers.some((r) => r.statusCode === 200)).toBe(true);
    const live = await t.ctx.db
      .select()
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.subjectId, c.id),
          eq(refreshTokens.realm, 'customer'),
          isNull(refreshTokens.usedAt),
          isNull(refreshTokens.revokedAt),
          gt(refreshTokens.expiresAt, new Date()),
        ),
      );
    expect(live.length).toBeLessThanOrEqual(1);
  });

  it('refuses unknown, empty and malformed refresh tokens with a message', async () => {
    for (const token of ['desconocido', '', undefined]) {
      const res = await refresh(token);
      expect(res.statusCode).toBe(401);
      expect(res.json().message).toBe('La sesión ha expirado. Por favor, inicia sesión de nuevo.');
    }
    expect((await refresh(12345)).statusCode).toBe(400);
  });

  it('keeps the realm: a manager refresh gives a manager token', async () => {
    const m = await createManager(t, 'jefa', 'clave-de-jefa');
    const tokens = (
      await t.app.inject({
        method: 'POST',
        url: '/api/admin/login',
        payload: { username: 'jefa', password: m.password },
      })
    ).json();
    const rotated = (await refresh(tokens.refresh)).json();
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/verify-token', headers: bearer(rotated.access) }))
        .statusCode,
    ).toBe(200);
    expect(
      (
        await t.app.inject({
          method: 'GET',
          url: '/api/client/verify-token',
          headers: bearer(rotated.access),
        })
      ).statusCode,
    ).toBe(401);
  });

  it('is rate limited per IP', async () => {
    const limited = await createTestApp({
      database: t.database,
      rateLimits: { refreshPerIp: { max: 2, windowSeconds: 3600 } },
    });
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) {
      codes.push(
        (await limited.app.inject({ method: 'POST', url: '/api/refresh-token', payload: { refresh: 'x' } }))
          .statusCode,
      );
    }
    expect(codes).toEqual([401, 401, 429]);
    await limited.app.close();
  });
});

describe('POST /api/logout', () => {
  it('revokes the refresh token so it cannot be used again', async () => {
    const c = await createCustomer(t);
    const tokens = await login(t, c.username, c.password);
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/logout',
      payload: { refresh: tokens.refresh },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().message).toBe('Sesión cerrada correctamente');
    expect((await refresh(tokens.refresh)).statusCode).toBe(401);
  });

  it('answers the same for an unknown token (nothing to leak)', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: 'no-existe' } });
    expect(res.statusCode).toBe(200);
  });

  it('ends only that session, not the customer’s other devices', async () => {
    const c = await createCustomer(t);
    const phone = await login(t, c.username, c.password);
    const laptop = await login(t, c.username, c.password);
    await t.app.inject({ method: 'POST', url: '/api/logout', payload: { refresh: phone.refresh } });
    expect((await refresh(laptop.refresh)).statusCode).toBe(200);
  });
});
