/**
 * Revocation is exact to the millisecond: a token issued just before a revocation, in the same
 * second, stops working; one issued just after it keeps working.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCustomer, createTestApp, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
});
afterAll(() => t.close());
afterEach(() => vi.useRealTimers());

describe('SessionService revocation', () => {
  it('refuses a token issued earlier in the same second as the revocation, and not a later one', async () => {
    const c = await createCustomer(t, 'mismo-segundo');
    const who = { realm: 'customer' as const, id: c.id };
    const second = Math.ceil(Date.now() / 1000) * 1000 + 5_000;
    vi.useFakeTimers({ toFake: ['Date'] });

    vi.setSystemTime(second + 100);
    const before = await t.ctx.sessions.signAccess(who);
    vi.setSystemTime(second + 500);
    await t.ctx.sessions.revokeAll(who);
    vi.setSystemTime(second + 900);
    const after = await t.ctx.sessions.signAccess(who);

    await expect(t.ctx.sessions.verifyAccess(before, 'customer')).rejects.toMatchObject({ status: 401 });
    await expect(t.ctx.sessions.verifyAccess(after, 'customer')).resolves.toMatchObject({ id: c.id });
  });

  it('keeps the session that a password change hands back', async () => {
    const c = await createCustomer(t, 'cambia-clave');
    const who = { realm: 'customer' as const, id: c.id };
    await t.ctx.sessions.revokeAll(who);
    const pair = await t.ctx.sessions.issue(who, true);
    await expect(t.ctx.sessions.verifyAccess(pair.access, 'customer')).resolves.toMatchObject({ id: c.id });
    await expect(t.ctx.sessions.rotate(pair.refresh)).resolves.toMatchObject({ realm: 'customer' });
  });
});
