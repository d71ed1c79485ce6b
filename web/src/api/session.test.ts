import { afterEach, describe, expect, it, vi } from 'vitest';
import { deferred, fakeApi } from '../test/api';
import type { Reply } from '../test/api';
import { ApiError } from './http';
import {
  authRequest,
  getAccessToken,
  getRefreshToken,
  login,
  logout,
  onSessionEnd,
  setSessionNavigator,
  storeTokens,
} from './session';

function remembered(access = 'old-access', refresh = 'old-refresh', realm: 'client' | 'manager' = 'client') {
  storeTokens(realm, { access, refresh }, true);
}

function navigator() {
  const navigate = vi.fn<(to: string) => void>();
  setSessionNavigator(navigate);
  return navigate;
}

describe('session: authenticated calls', () => {
  it('sends the JSON content type, the CSRF header and the bearer token', async () => {
    remembered('tok');
    const api = fakeApi({ 'GET /api/client/verify-token': { body: { ok: true } } });
    await authRequest('client', '/api/client/verify-token');
    expect(api.calls[0]?.headers).toMatchObject({
      'content-type': 'application/json',
      'x-requested-with': 'XMLHttpRequest',
      authorization: 'Bearer tok',
    });
  });

  it('refreshes once on a 401, stores the rotated pair and retries with the new token', async () => {
    remembered();
    const navigate = navigator();
    const api = fakeApi({
      'GET /api/client/verify-token': (call) =>
        call.headers.authorization === 'Bearer new-access' ? { body: { id: 1 } } : { status: 401, body: {} },
      'POST /api/refresh-token': { body: { access: 'new-access', refresh: 'new-refresh' } },
    });

    await expect(authRequest('client', '/api/client/verify-token')).resolves.toEqual({ id: 1 });
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
    expect(api.callsTo('POST /api/refresh-token')[0]?.body).toEqual({ refresh: 'old-refresh' });
    expect(api.callsTo('GET /api/client/verify-token')).toHaveLength(2);
    expect(getAccessToken('client')).toBe('new-access');
    expect(getRefreshToken('client')).toBe('new-refresh');
    expect(navigate).not.toHaveBeenCalled();
  });

  it('also refreshes on a 403', async () => {
    remembered();
    fakeApi({
      'GET /api/client/plans': (call) =>
        call.headers.authorization === 'Bearer new-access' ? { body: [] } : { status: 403, body: {} },
      'POST /api/refresh-token': { body: { access: 'new-access', refresh: 'new-refresh' } },
    });
    await expect(authRequest('client', '/api/client/plans')).resolves.toEqual([]);
  });

  it('shares one refresh between concurrent 401s (the refresh token is single use)', async () => {
    remembered();
    const refresh = deferred<Reply>();
    const api = fakeApi({
      'GET /api/client/a': (call) =>
        call.headers.authorization === 'Bearer new-access' ? { body: 'a' } : { status: 401, body: {} },
      'GET /api/client/b': (call) =>
        call.headers.authorization === 'Bearer new-access' ? { body: 'b' } : { status: 401, body: {} },
      'POST /api/refresh-token': () => refresh.promise,
    });
    const both = Promise.all([
      authRequest('client', '/api/client/a'),
      authRequest('client', '/api/client/b'),
    ]);
    await vi.waitFor(() => expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1));
    refresh.resolve({ body: { access: 'new-access', refresh: 'new-refresh' } });
    await expect(both).resolves.toEqual(['a', 'b']);
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
  });

  it('clears the tokens and goes to /login when the refresh fails', async () => {
    remembered();
    const navigate = navigator();
    const ended = vi.fn();
    const stop = onSessionEnd(ended);
    fakeApi({
      'GET /api/client/verify-token': { status: 401, body: { message: 'No autorizado' } },
      'POST /api/refresh-token': { status: 401, body: { message: 'La sesión ha expirado.' } },
    });

    const error = await authRequest('client', '/api/client/verify-token').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).status).toBe(401);
    expect(getAccessToken('client')).toBeNull();
    expect(getRefreshToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
    expect(ended).toHaveBeenCalledWith('client');
    stop();
  });

  it('keeps the session when the refresh gets no answer or a server error: a connection error, tokens kept', async () => {
    for (const reply of ['network', 503] as const) {
      remembered();
      const navigate = navigator();
      fakeApi({
        'GET /api/client/verify-token': { status: 401, body: { message: 'No autorizado' } },
        'POST /api/refresh-token':
          reply === 'network'
            ? () => Promise.reject(new TypeError('Failed to fetch'))
            : { status: 503, body: { message: 'Servicio en mantenimiento' } },
      });

      const error = await authRequest('client', '/api/client/verify-token').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(reply === 'network' ? 0 : 503);
      expect(getAccessToken('client')).toBe('old-access');
      expect(getRefreshToken('client')).toBe('old-refresh');
      expect(navigate).not.toHaveBeenCalled();
    }
  });

  it('does not try to refresh a session that was not remembered', async () => {
    storeTokens('client', { access: 'a', refresh: 'r' }, false);
    const navigate = navigator();
    const api = fakeApi({ 'GET /api/client/verify-token': { status: 401, body: {} } });
    await expect(authRequest('client', '/api/client/verify-token')).rejects.toBeInstanceOf(ApiError);
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(0);
    expect(getAccessToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
  });

  it('retries only once: a second refusal ends the session', async () => {
    remembered();
    const navigate = navigator();
    const api = fakeApi({
      'GET /api/client/verify-token': { status: 401, body: {} },
      'POST /api/refresh-token': { body: { access: 'new-access', refresh: 'new-refresh' } },
    });
    await expect(authRequest('client', '/api/client/verify-token')).rejects.toBeInstanceOf(ApiError);
    expect(api.callsTo('GET /api/client/verify-token')).toHaveLength(2);
    expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1);
    expect(getAccessToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
  });

  it('sends managers to /manager/login and leaves the customer session alone', async () => {
    remembered('c-access', 'c-refresh', 'client');
    remembered('m-access', 'm-refresh', 'manager');
    const navigate = navigator();
    fakeApi({
      'GET /api/admin/verify-token': { status: 401, body: {} },
      'POST /api/refresh-token': { status: 401, body: {} },
    });
    await expect(authRequest('manager', '/api/admin/verify-token')).rejects.toBeInstanceOf(ApiError);
    expect(navigate).toHaveBeenCalledWith('/manager/login');
    expect(localStorage.getItem('manager_access')).toBeNull();
    expect(localStorage.getItem('manager_refresh')).toBeNull();
    expect(getAccessToken('client')).toBe('c-access');
  });

  it('passes non-auth errors through with the server message', async () => {
    remembered();
    fakeApi({ 'GET /api/client/x': { status: 409, body: { message: 'Conflicto' } } });
    const error = await authRequest('client', '/api/client/x').catch((e: unknown) => e);
    expect(error).toMatchObject({ status: 409, serverMessage: 'Conflicto' });
  });
});

describe('session: logout', () => {
  it('sends the refresh token, clears both tokens and goes to /login', async () => {
    remembered('a', 'r');
    const navigate = navigator();
    const api = fakeApi({ 'POST /api/logout': { body: { message: 'Sesión cerrada correctamente' } } });
    await expect(logout('client')).resolves.toBe(true);
    expect(api.callsTo('POST /api/logout')[0]?.body).toEqual({ refresh: 'r' });
    expect(getAccessToken('client')).toBeNull();
    expect(getRefreshToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
  });

  it('still clears the tokens and redirects when the server call fails, reporting the failure', async () => {
    remembered('a', 'r');
    const navigate = navigator();
    fakeApi({ 'POST /api/logout': { status: 500, body: {} } });
    await expect(logout('client')).resolves.toBe(false);
    expect(getAccessToken('client')).toBeNull();
    expect(navigate).toHaveBeenCalledWith('/login');
  });
});

describe('session: answers the pre-rendered page already asked for (src/boot.ts, issue 28)', () => {
  const body = { username: 'juan', password: 'clave-secreta-1', remember: true };
  afterEach(() => {
    delete window.__vpnEarly;
  });
  const early = (entries: [string, { status: number; text: string } | null][]) => {
    window.__vpnEarly = new Map(entries.map(([key, answer]) => [key, Promise.resolve(answer)]));
  };

  it('takes the login the boot script sent and the home data it asked for, instead of asking again', async () => {
    early([
      [
        `POST /api/client/login ${JSON.stringify({ username: body.username, remember: body.remember })}`,
        { status: 200, text: '{"access":"a9","refresh":"r9"}' },
      ],
      ['GET /api/client/verify-token a9', { status: 200, text: '{"id":7}' }],
    ]);
    const api = fakeApi({ 'GET /api/client/verify-token': { body: { id: 1 } } });
    await login('client', body);
    expect(getAccessToken('client')).toBe('a9');
    expect(getRefreshToken('client')).toBe('r9');
    await expect(authRequest('client', '/api/client/verify-token')).resolves.toEqual({ id: 7 });
    expect(api.calls).toEqual([]);
    // Each answer is taken once: the next read asks the server.
    await expect(authRequest('client', '/api/client/verify-token')).resolves.toEqual({ id: 1 });
    expect(api.calls).toHaveLength(1);
  });

  it('reports a refused early login with the server’s message, without a second attempt', async () => {
    early([
      [
        `POST /api/client/login ${JSON.stringify({ username: body.username, remember: body.remember })}`,
        { status: 401, text: '{"message":"Usuario o contraseña incorrectos"}' },
      ],
    ]);
    const api = fakeApi({});
    await expect(login('client', body)).rejects.toMatchObject({
      status: 401,
      serverMessage: 'Usuario o contraseña incorrectos',
    });
    expect(api.calls).toEqual([]);
  });

  it('sends a form that differs from the one sent early, and asks again when the early request failed', async () => {
    early([
      [
        `POST /api/client/login ${JSON.stringify({ username: body.username, remember: body.remember })}`,
        { status: 200, text: '{"access":"a9","refresh":"r9"}' },
      ],
    ]);
    const api = fakeApi({
      'POST /api/client/login': { body: { access: 'a2', refresh: 'r2' } },
      'GET /api/client/agent': { body: { version: null, url: null } },
    });
    await login('client', { ...body, username: 'otra-persona' });
    expect(getAccessToken('client')).toBe('a2');
    expect(api.callsTo('POST /api/client/login')).toHaveLength(1);
    early([['GET /api/client/agent a2', null]]);
    await authRequest('client', '/api/client/agent');
    expect(api.callsTo('GET /api/client/agent')).toHaveLength(1);
  });
});
