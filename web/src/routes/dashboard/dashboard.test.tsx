import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeApi, samplePlans, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

function signIn(remember = true) {
  if (remember) {
    localStorage.setItem('access', 'a1');
    localStorage.setItem('refresh', 'r1');
  } else {
    sessionStorage.setItem('access', 'a1');
  }
}

const userWithout = (overrides: Partial<typeof sampleUser.web_settings>) => ({
  ...sampleUser,
  web_settings: { ...sampleUser.web_settings, ...overrides },
});

describe('dashboard gating', () => {
  it('sends a visitor without an access token to /login', async () => {
    const api = fakeApi();
    const app = renderApp('/dashboard/home');
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(app.path()).toBe('/login');
    expect(api.callsTo('GET /api/client/verify-token')).toHaveLength(0);
  });

  it("shows 'Verificando acceso' while the token is verified, then the dashboard", async () => {
    signIn();
    const pending = deferred<Reply>();
    fakeApi({ 'GET /api/client/verify-token': () => pending.promise });
    renderApp('/dashboard/home');
    expect(screen.getByRole('status')).toHaveTextContent('Verificando acceso');
    pending.resolve({ body: sampleUser });
    expect(await screen.findByRole('button', { name: 'Hola, juan' })).toBeInTheDocument();
    expect(screen.queryByText('Verificando acceso')).not.toBeInTheDocument();
  });

  it('clears a refused token and goes to /login', async () => {
    signIn();
    fakeApi({
      'GET /api/client/verify-token': { status: 401, body: { message: 'No autorizado' } },
      'POST /api/refresh-token': { status: 401, body: { message: 'La sesión ha expirado.' } },
    });
    const app = renderApp('/dashboard/peers');
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(app.path()).toBe('/login');
    expect(localStorage.getItem('access')).toBeNull();
    expect(localStorage.getItem('refresh')).toBeNull();
  });

  it('goes to /maintenance when the verify call answers 503', async () => {
    signIn();
    fakeApi({
      'GET /api/client/verify-token': { status: 503, body: { message: 'Mantenimiento' } },
      'GET /api/client': { status: 503, body: {} },
    });
    const app = renderApp('/dashboard/home');
    expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
    expect(app.path()).toBe('/maintenance');
    expect(localStorage.getItem('access')).toBe('a1');
  });

  it('opens /dashboard on the home page', async () => {
    signIn();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const app = renderApp('/dashboard');
    await screen.findByRole('button', { name: 'Hola, juan' });
    expect(app.path()).toBe('/dashboard/home');
  });
});

describe('dashboard layout', () => {
  it('shows the top navigation, with Salas only when rooms are allowed', async () => {
    signIn();
    const api = fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const withRooms = renderApp('/dashboard/home');
    const nav = await screen.findByRole('navigation', { name: 'Navegación del panel' });
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => [a.textContent, a.getAttribute('href')]),
    ).toEqual([
      ['Home', '/dashboard/home'],
      ['Peers', '/dashboard/peers'],
      ['Salas', '/dashboard/partys'],
      ['Planes', '/dashboard/plans'],
      ['Ayuda', '/dashboard/help'],
    ]);
    withRooms.unmount();

    api.on('GET /api/client/verify-token', { body: userWithout({ allow_partys: false }) });
    renderApp('/dashboard/home');
    const navWithout = await screen.findByRole('navigation', { name: 'Navegación del panel' });
    expect(within(navWithout).queryByRole('link', { name: 'Salas' })).not.toBeInTheDocument();
  });

  it('greets the user and opens account settings from the user menu', async () => {
    signIn();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const app = renderApp('/dashboard/home');
    await userEvent.click(await screen.findByRole('button', { name: 'Hola, juan' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Configuración de cuenta' }));
    expect(await screen.findByRole('heading', { name: 'Configuración de cuenta' })).toBeInTheDocument();
    expect(app.path()).toBe('/dashboard/settings');
    expect(screen.getByText('juan@example.com')).toBeInTheDocument();
  });

  it('logs out from the user menu: the refresh token is revoked and the user lands on /login', async () => {
    signIn();
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'POST /api/logout': { body: { message: 'Sesión cerrada correctamente' } },
    });
    const app = renderApp('/dashboard/home');
    await userEvent.click(await screen.findByRole('button', { name: 'Hola, juan' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Cerrar sesión' }));
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(app.path()).toBe('/login');
    expect(api.callsTo('POST /api/logout')[0]?.body).toEqual({ refresh: 'r1' });
    expect(localStorage.getItem('access')).toBeNull();
  });

  it("still logs out when the server fails, with the toast 'Hubo un error al intentar cerrar la sesión.'", async () => {
    signIn();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'POST /api/logout': { status: 500, body: {} },
    });
    const app = renderApp('/dashboard/home');
    await userEvent.click(await screen.findByRole('button', { name: 'Hola, juan' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Cerrar sesión' }));
    expect(await screen.findByText('Hubo un error al intentar cerrar la sesión.')).toBeInTheDocument();
    await waitFor(() => expect(app.path()).toBe('/login'));
    expect(localStorage.getItem('access')).toBeNull();
  });

  it("collapses the navigation into a menu behind 'Abrir menú' on small screens", async () => {
    signIn();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const app = renderApp('/dashboard/home');
    const toggle = await screen.findByRole('button', { name: 'Abrir menú' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getAllByRole('navigation', { name: 'Navegación del panel' })).toHaveLength(1);

    await userEvent.click(toggle);
    expect(screen.getByRole('button', { name: 'Cerrar menú' })).toHaveAttribute('aria-expanded', 'true');
    const menus = screen.getAllByRole('navigation', { name: 'Navegación del panel' });
    expect(menus).toHaveLength(2);
    await userEvent.click(within(menus[1]!).getByRole('link', { name: 'Ayuda' }));
    expect(await screen.findByRole('heading', { name: 'Centro de ayuda' })).toBeInTheDocument();
    expect(app.path()).toBe('/dashboard/help');
    // The menu closes once the page changed.
    expect(screen.getByRole('button', { name: 'Abrir menú' })).toBeInTheDocument();
  });
});

describe('dashboard pages', () => {
  it("shows the peers page's empty state", async () => {
    signIn();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/accounts/peers': { body: [] },
    });
    renderApp('/dashboard/peers');
    expect(await screen.findByRole('heading', { name: 'Peers Wireguard' })).toBeInTheDocument();
    expect(await screen.findByText('Aún no tienes peers.')).toBeInTheDocument();
  });

  it('sends /dashboard/partys home when rooms are not allowed', async () => {
    signIn();
    fakeApi({ 'GET /api/client/verify-token': { body: userWithout({ allow_partys: false }) } });
    const app = renderApp('/dashboard/partys');
    await screen.findByRole('button', { name: 'Hola, juan' });
    await waitFor(() => expect(app.path()).toBe('/dashboard/home'));
  });

  it('lists the real plans, each with its Seleccionar Plan button', async () => {
    signIn();
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/plans': { body: samplePlans },
    });
    renderApp('/dashboard/plans');
    const card = await screen.findByRole('article', { name: 'Trimestral' });
    expect(within(card).getByText('12,50 US$')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Seleccionar Plan' })).toBeEnabled();
  });

  it('shows the help centre, with the rooms section only when rooms are allowed', async () => {
    signIn();
    const api = fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const withRooms = renderApp('/dashboard/help');
    expect(await screen.findByRole('heading', { name: 'Uso de las salas' })).toBeInTheDocument();
    expect(screen.getByText(/MikroTik son compatibles a partir de RouterOS 7.1/)).toBeInTheDocument();
    withRooms.unmount();

    api.on('GET /api/client/verify-token', { body: userWithout({ allow_partys: false }) });
    renderApp('/dashboard/help');
    await screen.findByRole('heading', { name: 'Preguntas frecuentes' });
    expect(screen.queryByRole('heading', { name: 'Uso de las salas' })).not.toBeInTheDocument();
  });

  it('shows the payment result named in the query', async () => {
    signIn();
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    renderApp('/dashboard/payment?status=canceled&transaction_uuid=tx-42');
    expect(await screen.findByRole('heading', { name: 'Pago cancelado' })).toBeInTheDocument();
    expect(screen.getByText('tx-42')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/dashboard/home');
  });
});
