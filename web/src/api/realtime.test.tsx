import { QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { Peer } from '@vpn/contracts';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AppToaster } from '../components/AppToaster';
import { fakeApi, sampleUser } from '../test/api';
import { laptop, samplePeer, settled } from '../test/peers';
import { renderApp, testQueryClient } from '../test/render';
import { FakeWebSocket } from '../test/websocket';
import { queryKeys } from './queries';
import {
  RealtimeConnection,
  RECONNECT_DELAY_MS,
  applyPushToCache,
  realtimeRealmFor,
  websocketUrl,
} from './realtime';
import { RealtimeProvider, useRealtime } from './RealtimeProvider';

const manager = { id: 1, username: 'admin', role: 'admin' };

function signInCustomer(access = 'a1', refresh = 'r1') {
  localStorage.setItem('access', access);
  localStorage.setItem('refresh', refresh);
}

describe('realtime: which paths get a socket', () => {
  it.each([
    ['/dashboard/peers', 'client'],
    ['/dashboard/peers/extra', 'client'],
    ['/dashboard/partys', 'client'],
    ['/manager/dashboard', 'manager'],
    ['/manager/dashboard/servers', 'manager'],
    ['/dashboard/home', null],
    ['/dashboard/plans', null],
    ['/dashboard/peersx', null],
    ['/manager/login', null],
    ['/login', null],
    ['/', null],
  ])('%s → %s', (path, realm) => {
    expect(realtimeRealmFor(path)).toBe(realm);
  });

  it('uses ws: on http pages and wss: on https pages, with the token in the query', () => {
    expect(websocketUrl('a b', { protocol: 'http:', host: 'vpn.test:8080' })).toBe(
      'ws://vpn.test:8080/ws?token=a%20b',
    );
    expect(websocketUrl('tok', { protocol: 'https:', host: 'vpn.example.com' })).toBe(
      'wss://vpn.example.com/ws?token=tok',
    );
  });
});

describe('realtime: the provider opens and closes the socket as the path changes', () => {
  it('opens only under /dashboard/peers and /dashboard/partys, keeps one socket across them, closes elsewhere', async () => {
    signInCustomer();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': { body: [] },
    });
    const app = renderApp('/dashboard/home');
    await screen.findByRole('button', { name: 'Hola, juan' });
    expect(FakeWebSocket.instances).toHaveLength(0);

    await act(() => app.router.navigate('/dashboard/peers'));
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    expect(socket.url).toBe(`ws://${window.location.host}/ws?token=a1`);
    socket.accept();

    await act(() => app.router.navigate('/dashboard/partys'));
    expect(FakeWebSocket.instances).toHaveLength(1);
    expect(socket.closedByClient).toBe(false);

    await act(() => app.router.navigate('/dashboard/help'));
    await waitFor(() => expect(socket.closedByClient).toBe(true));
    expect(FakeWebSocket.open()).toHaveLength(0);
  });

  it('opens nothing without a token', async () => {
    fakeApi();
    const app = renderApp('/dashboard/peers');
    await screen.findByRole('heading', { name: 'Iniciar sesión' });
    expect(app.path()).toBe('/login');
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it('opens nothing on public pages, even with a token', async () => {
    signInCustomer();
    fakeApi();
    renderApp('/password-recovery');
    await screen.findByRole('heading', { name: 'Recuperar Contraseña' });
    expect(FakeWebSocket.instances).toHaveLength(0);
  });

  it("uses the manager's token under /manager/dashboard", async () => {
    signInCustomer();
    sessionStorage.setItem('manager_access', 'm1');
    fakeApi({ 'GET /api/admin/verify-token': { body: manager } });
    renderApp('/manager/dashboard');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    expect(FakeWebSocket.latest()?.token).toBe('m1');
  });

  it('closes the socket when the customer logs out', async () => {
    signInCustomer();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': { body: [] },
      'POST /api/logout': { body: { message: 'Sesión cerrada correctamente' } },
    });
    const app = renderApp('/dashboard/peers');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    await userEvent.click(await screen.findByRole('button', { name: 'Hola, juan' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Cerrar sesión' }));
    await waitFor(() => expect(app.path()).toBe('/login'));
    expect(socket.closedByClient).toBe(true);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('reads the peer list again once the server accepts the socket (pushes before it were lost)', async () => {
    signInCustomer();
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': { body: [samplePeer()] },
    });
    renderApp('/dashboard/peers');
    await screen.findByText('movil');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const before = api.callsTo('GET /api/client/accounts/peers').length;
    FakeWebSocket.latest()!.accept();
    await waitFor(() => expect(api.callsTo('GET /api/client/accounts/peers')).toHaveLength(before + 1));
  });

  it('toasts info messages as blank toasts, and success and error messages', async () => {
    signInCustomer();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    renderApp('/dashboard/partys');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    socket.push({ type: 'info', message: 'El servidor vuelve en breve.' });
    socket.push({ type: 'success', message: 'Todo listo.' });
    socket.push({ type: 'error', message: 'Algo falló.' });
    const info = await screen.findByText('El servidor vuelve en breve.');
    expect(info.closest('[role="status"]')).toBeInTheDocument();
    expect(await screen.findByText('Todo listo.')).toBeInTheDocument();
    expect(await screen.findByText('Algo falló.')).toBeInTheDocument();
  });
});

describe('realtime: the last message resets on each path change', () => {
  function Probe() {
    const { lastMessage, status, realm } = useRealtime();
    return (
      <p data-testid="probe">
        {realm ?? 'sin-socket'} {status} {lastMessage?.type ?? 'ninguno'}
      </p>
    );
  }

  it('forgets the last message when the path changes', async () => {
    signInCustomer();
    const router = createMemoryRouter(
      [
        {
          element: (
            <RealtimeProvider>
              <Outlet />
              <Probe />
            </RealtimeProvider>
          ),
          children: [
            { path: '/dashboard/peers', element: null },
            { path: '/dashboard/partys', element: null },
          ],
        },
      ],
      { initialEntries: ['/dashboard/peers'] },
    );
    render(
      <QueryClientProvider client={testQueryClient()}>
        <RouterProvider router={router} />
        <AppToaster />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    expect(screen.getByTestId('probe')).toHaveTextContent('client connecting ninguno');
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    expect(screen.getByTestId('probe')).toHaveTextContent('client open auth');
    socket.push({ type: 'new_party_operation', party_id: 3 });
    expect(screen.getByTestId('probe')).toHaveTextContent('client open new_party_operation');

    await act(() => router.navigate('/dashboard/partys'));
    expect(screen.getByTestId('probe')).toHaveTextContent('client open ninguno');
    expect(FakeWebSocket.instances).toHaveLength(1);
  });
});

describe('realtime: reconnecting', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function connection(onMessage = vi.fn()) {
    const conn = new RealtimeConnection({
      realm: 'client',
      onMessage,
      createSocket: (url) => new FakeWebSocket(url),
    });
    conn.start();
    return conn;
  }

  it('re-opens 5 s after a connection that had been open closes, and keeps trying every 5 s', () => {
    vi.useFakeTimers();
    signInCustomer();
    const conn = connection();
    FakeWebSocket.latest()!.accept();
    FakeWebSocket.latest()!.drop();

    vi.advanceTimersByTime(RECONNECT_DELAY_MS - 1);
    expect(FakeWebSocket.instances).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(2);

    // The control plane is still down: the attempt fails before opening, and is tried again.
    FakeWebSocket.latest()!.drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    expect(FakeWebSocket.instances).toHaveLength(3);
    conn.stop();
  });

  it('reconnects with the token current at that moment (it may have been refreshed)', () => {
    vi.useFakeTimers();
    signInCustomer('a1');
    const conn = connection();
    FakeWebSocket.latest()!.accept();
    localStorage.setItem('access', 'a2');
    FakeWebSocket.latest()!.drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS);
    expect(FakeWebSocket.latest()?.token).toBe('a2');
    conn.stop();
  });

  it('does not retry a first connection that never opened', () => {
    vi.useFakeTimers();
    signInCustomer();
    const conn = connection();
    FakeWebSocket.latest()!.drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS * 3);
    expect(FakeWebSocket.instances).toHaveLength(1);
    conn.stop();
  });

  it('never reconnects once stopped', () => {
    vi.useFakeTimers();
    signInCustomer();
    const conn = connection();
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    conn.stop();
    expect(socket.closedByClient).toBe(true);
    socket.drop();
    vi.advanceTimersByTime(RECONNECT_DELAY_MS * 2);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('refreshes the token once when the server refuses it, and reconnects with the new one', async () => {
    signInCustomer('viejo', 'r1');
    const api = fakeApi({ 'POST /api/refresh-token': { body: { access: 'nuevo', refresh: 'r2' } } });
    const conn = connection();
    FakeWebSocket.latest()!.refuse();
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(2));
    expect(FakeWebSocket.latest()?.token).toBe('nuevo');
    expect(api.callsTo('POST /api/refresh-token')[0]?.body).toEqual({ refresh: 'r1' });
    conn.stop();
  });

  it('stays closed when the refused token cannot be refreshed (no loop)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    signInCustomer('viejo', 'r1');
    const api = fakeApi({ 'POST /api/refresh-token': { status: 401, body: {} } });
    const conn = connection();
    FakeWebSocket.latest()!.refuse();
    await vi.waitFor(() => expect(api.callsTo('POST /api/refresh-token')).toHaveLength(1));
    await vi.advanceTimersByTimeAsync(RECONNECT_DELAY_MS * 3);
    expect(FakeWebSocket.instances).toHaveLength(1);
    conn.stop();
  });
});

describe('realtime: push messages update the cached peers', () => {
  function cacheWith(peers: Peer[] | undefined) {
    const client = testQueryClient();
    if (peers) client.setQueryData(queryKeys.peers, peers);
    return { client, peers: () => client.getQueryData<Peer[]>(queryKeys.peers) };
  }

  it('appends created peers, replaces updated ones and drops deleted ones', () => {
    const { client, peers } = cacheWith([samplePeer()]);
    applyPushToCache(client, { type: 'created_peer', peer: laptop() });
    expect(peers()?.map((p) => p.name)).toEqual(['movil', 'portatil']);
    applyPushToCache(client, { type: 'updated_peer', peer: settled(samplePeer(), { name: 'telefono' }) });
    expect(peers()?.map((p) => p.name)).toEqual(['telefono', 'portatil']);
    applyPushToCache(client, { type: 'deleted_peer', peer_id: 12 });
    expect(peers()?.map((p) => p.name)).toEqual(['telefono']);
  });

  it.each(['success', 'error', 'info'] as const)('ends the busy state of the peer a %s names', (type) => {
    const { client, peers } = cacheWith([
      samplePeer({ processing: 'regenerate' }),
      laptop({ processing: 'regenerate' }),
    ]);
    applyPushToCache(client, { type, message: 'x', peer_id: 11 });
    expect(peers()?.map((p) => p.processing)).toEqual([null, 'regenerate']);
    applyPushToCache(client, { type, message: 'sin peer' });
    expect(peers()?.map((p) => p.processing)).toEqual([null, 'regenerate']);
  });

  it('leaves the cache alone when no list has been loaded', () => {
    const { client, peers } = cacheWith(undefined);
    applyPushToCache(client, { type: 'created_peer', peer: samplePeer() });
    expect(peers()).toBeUndefined();
  });
});
