import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { deferred, fakeApi } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

const manager = { id: 1, username: 'admin', role: 'superadmin' };

describe('manager area', () => {
  it('logs in through /api/admin/login and keeps manager tokens apart from customer tokens', async () => {
    const api = fakeApi({
      'POST /api/admin/login': { body: { access: 'm-a', refresh: 'm-r' } },
      'GET /api/admin/verify-token': { body: manager },
    });
    const app = renderApp('/manager/login');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'admin');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-segura');
    await userEvent.click(screen.getByRole('checkbox', { name: 'Recordarme' }));
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));

    expect(await screen.findByRole('heading', { name: 'Panel de administración' })).toBeInTheDocument();
    expect(screen.getByText('Sesión iniciada como admin')).toBeInTheDocument();
    expect(app.path()).toBe('/manager/dashboard');
    expect(localStorage.getItem('manager_access')).toBe('m-a');
    expect(localStorage.getItem('manager_refresh')).toBe('m-r');
    expect(localStorage.getItem('access')).toBeNull();
    expect(api.callsTo('POST /api/client/login')).toHaveLength(0);
  });

  it('shows the server message when the manager login fails', async () => {
    fakeApi({
      'POST /api/admin/login': { status: 401, body: { message: 'Usuario o contraseña incorrectos' } },
    });
    renderApp('/manager/login');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'admin');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'mala');
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Usuario o contraseña incorrectos');
  });

  it('sends a visitor without a manager token to /manager/login (a customer token does not count)', async () => {
    localStorage.setItem('access', 'customer-token');
    fakeApi();
    const app = renderApp('/manager/dashboard');
    await waitFor(() => expect(app.path()).toBe('/manager/login'));
  });

  it("shows 'Verificando acceso' while the manager token is verified", async () => {
    localStorage.setItem('manager_access', 'm-a');
    const pending = deferred<Reply>();
    fakeApi({ 'GET /api/admin/verify-token': () => pending.promise });
    renderApp('/manager/dashboard');
    expect(screen.getByRole('status')).toHaveTextContent('Verificando acceso');
    pending.resolve({ body: manager });
    expect(await screen.findByRole('heading', { name: 'Panel de administración' })).toBeInTheDocument();
  });

  it('sends a refused manager token back to /manager/login', async () => {
    localStorage.setItem('manager_access', 'm-a');
    fakeApi({ 'GET /api/admin/verify-token': { status: 401, body: {} } });
    const app = renderApp('/manager/dashboard');
    await waitFor(() => expect(app.path()).toBe('/manager/login'));
    expect(localStorage.getItem('manager_access')).toBeNull();
  });

  it('logs out to /manager/login', async () => {
    localStorage.setItem('manager_access', 'm-a');
    localStorage.setItem('manager_refresh', 'm-r');
    const api = fakeApi({
      'GET /api/admin/verify-token': { body: manager },
      'POST /api/logout': { body: { message: 'ok' } },
    });
    const app = renderApp('/manager/dashboard');
    await userEvent.click(await screen.findByRole('button', { name: 'Cerrar sesión' }));
    await waitFor(() => expect(app.path()).toBe('/manager/login'));
    expect(api.callsTo('POST /api/logout')[0]?.body).toEqual({ refresh: 'm-r' });
    expect(localStorage.getItem('manager_access')).toBeNull();
  });
});
