/**
 * Two tabs of one remembered session refreshing an expired access token at the same moment. The
 * refresh token is single-use (a second spend looks like theft to the server), so the tabs take
 * turns through a Web Lock and the one that waited uses the pair the other stored. Each tab is its
 * own copy of the session module (its own in-flight map, as two documents have), sharing storage
 * and a `navigator.locks` stub that grants one holder at a time, in request order, like the
 * browser's LockManager. The browser journey (web/e2e/account.e2e.test.ts) shows the session
 * survives in Chromium; this is where the count is exact.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, fakeApi } from '../test/api';
import type { Reply } from '../test/api';
import type * as Session from './session';

type SessionModule = typeof Session;

/**
 * A LockManager with exclusive locks granted in request order, each grant in a task of its own (as
 * the browser queues it, never inside the releasing tab's microtasks); records the names asked for.
 */
function lockManager() {
  const tails = new Map<string, Promise<unknown>>();
  const requested: string[] = [];
  const manager = {
    request(name: string, callback: (lock: { name: string; mode: 'exclusive' }) => Promise<unknown>) {
      requested.push(name);
      const previous = tails.get(name) ?? Promise.resolve();
      const run = previous
        .then(() => new Promise((granted) => setTimeout(granted, 0)))
        .then(() => callback({ name, mode: 'exclusive' }));
      // The next holder waits for this callback to settle, however it ends.
      tails.set(
        name,
        run.catch(() => undefined),
      );
      return run;
    },
  };
  return { manager, requested };
}

/** A fresh copy of the session module: what a second tab of the same origin runs. */
async function tab(): Promise<SessionModule> {
  vi.resetModules();
  return import('./session');
}

function expiredEverywhere(api: ReturnType<typeof fakeApi>, fresh: string) {
  api.on('GET /api/client/verify-token', (call) =>
    call.headers.authorization === `Bearer ${fresh}` ? { body: { id: 1 } } : { status: 401, body: {} },
  );
}

afterEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

describe('two tabs refreshing at once', () => {
  it('spend the refresh token exactly once: the tab that waited for the lock uses the stored pair', async () => {
    const locks = lockManager();
    vi.stubGlobal('navigator', { ...window.navigator, locks: locks.manager });
    const first = await tab();
    const second = await tab();
    first.storeTokens('client', { access: 'caducado', refresh: 'refresh-1' }, true);
    const refresh = deferred<Reply>();
    const api = fakeApi({ 'POST /api/refresh-token': () => refresh.promise });
    expiredEverywhere(api, 'access-2');

    const both = Promise.all([
      first.authRequest('client', '/api/client/verify-token'),
      second.authRequest('client', '/api/client/verify-token'),
    ]);
    // Both tabs were refused and both asked for the lock; only the holder is spending the token.
    await vi.waitFor(() => expect(locks.requested).toEqual(['vpn-refresh-client', 'vpn-refresh-client']));
    await vi.waitFor(() => expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1));
    refresh.resolve({ body: { access: 'access-2', refresh: 'refresh-2' } });

    await expect(both).resolves.toEqual([{ id: 1 }, { id: 1 }]);
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
    expect(api.callsTo('POST /api/refresh-token')[0]?.body).toEqual({ refresh: 'refresh-1' });
    // Both retried with the one new access token; the session lives on in both.
    const retries = api
      .callsTo('GET /api/client/verify-token')
      .filter((c) => c.headers.authorization === 'Bearer access-2');
    expect(retries).toHaveLength(2);
    expect(second.getRefreshToken('client')).toBe('refresh-2');
    expect(first.getAccessToken('client')).toBe('access-2');
  });

  it('without the lock the same two tabs spend it twice (what the lock is for)', async () => {
    vi.stubGlobal('navigator', { ...window.navigator, locks: undefined });
    const first = await tab();
    const second = await tab();
    first.storeTokens('client', { access: 'caducado', refresh: 'refresh-1' }, true);
    const refresh = deferred<Reply>();
    const api = fakeApi({ 'POST /api/refresh-token': () => refresh.promise });
    expiredEverywhere(api, 'access-2');

    const both = Promise.all([
      first.authRequest('client', '/api/client/verify-token'),
      second.authRequest('client', '/api/client/verify-token'),
    ]);
    await vi.waitFor(() => expect(api.callsTo('POST /api/refresh-token')).toHaveLength(2));
    refresh.resolve({ body: { access: 'access-2', refresh: 'refresh-2' } });
    await both;
    expect(api.callsTo('POST /api/refresh-token').map((c) => c.body)).toEqual([
      { refresh: 'refresh-1' },
      { refresh: 'refresh-1' },
    ]);
  });

  it('a tab granted the lock after the session ended elsewhere spends nothing and ends its session', async () => {
    const locks = lockManager();
    vi.stubGlobal('navigator', { ...window.navigator, locks: locks.manager });
    const first = await tab();
    const second = await tab();
    const navigate = vi.fn<(to: string) => void>();
    first.setSessionNavigator(vi.fn());
    second.setSessionNavigator(navigate);
    first.storeTokens('client', { access: 'caducado', refresh: 'refresh-1' }, true);
    const refresh = deferred<Reply>();
    const api = fakeApi({ 'POST /api/refresh-token': () => refresh.promise });
    expiredEverywhere(api, 'access-2');

    const firstCall = first.authRequest('client', '/api/client/verify-token').catch((e: unknown) => e);
    await vi.waitFor(() => expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1));
    const secondCall = second.authRequest('client', '/api/client/verify-token').catch((e: unknown) => e);
    await vi.waitFor(() => expect(locks.requested).toHaveLength(2));
    // The server refuses the refresh: the first tab ends the session (tokens cleared).
    refresh.resolve({ status: 401, body: { message: 'La sesión ha expirado.' } });
    await firstCall;
    await secondCall;
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
    expect(second.getRefreshToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
  });
});
