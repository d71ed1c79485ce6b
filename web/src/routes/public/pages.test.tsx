import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { defaultSettings, fakeApi } from '../../test/api';
import { renderApp } from '../../test/render';
import { MAINTENANCE_POLL_MS } from './Maintenance';

describe('landing', () => {
  it('links to plans, login and register, and to the WireGuard clients', async () => {
    fakeApi();
    renderApp('/');
    const main = await screen.findByRole('main');
    expect(within(main).getAllByRole('link', { name: /Ver planes/ })[0]).toHaveAttribute('href', '/plans');
    expect(within(main).getByRole('link', { name: 'Ya tengo cuenta' })).toHaveAttribute('href', '/login');
    expect(within(main).getAllByRole('link', { name: 'Crear cuenta' })[0]).toHaveAttribute(
      'href',
      '/register',
    );
    const download = within(main).getByRole('link', { name: /Descargar cliente WireGuard/ });
    expect(download).toHaveAttribute('href', 'https://www.wireguard.com/install/');
    expect(download).toHaveAttribute('target', '_blank');
    for (const title of [
      'Seguridad',
      'Privacidad',
      'Velocidad',
      'Planes flexibles',
      'Compatible con WireGuard',
    ]) {
      expect(within(main).getByRole('heading', { name: title })).toBeInTheDocument();
    }
  });

  it('names the payment methods the operator enabled (issue 32), and none when none is', async () => {
    const api = fakeApi();
    const none = renderApp('/');
    const card = async () =>
      (await screen.findByRole('heading', { name: 'Pagos pensados para Cuba' })).parentElement!;
    expect(await card()).not.toHaveTextContent(/QvaPay|Remesita/);
    none.unmount();

    api.on('GET /api/client', {
      body: { ...defaultSettings, allow_payments_qvapay: true, allow_payments_remesita: true },
    });
    const both = renderApp('/');
    expect(await card()).toHaveTextContent('paga tu plan con QvaPay y Remesita');
    both.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, allow_payments_remesita: true } });
    renderApp('/');
    expect(await card()).toHaveTextContent('paga tu plan con Remesita,');
    expect(await card()).not.toHaveTextContent('QvaPay');
  });

  it('offers no register link when registration is off', async () => {
    fakeApi({ 'GET /api/client': { body: { ...defaultSettings, allow_registration: false } } });
    renderApp('/');
    await screen.findByRole('main');
    expect(screen.queryByRole('link', { name: /Crear cuenta|Registrarse/ })).not.toBeInTheDocument();
  });
});

describe('not found', () => {
  it("says 'Página no encontrada' and leads back to the login", async () => {
    fakeApi();
    const app = renderApp('/esto/no/existe');
    expect(await screen.findByRole('heading', { name: 'Página no encontrada' })).toBeInTheDocument();
    expect(screen.getByText('La página que buscas no existe o ha sido movida.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('link', { name: 'Volver al inicio de sesión' }));
    expect(app.path()).toBe('/login');
  });
});

describe('maintenance', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('links back home: / with the landing on, /login with it off', async () => {
    const api = fakeApi({ 'GET /api/client': { body: { ...defaultSettings, maintenance: true } } });
    const on = renderApp('/maintenance');
    expect(await screen.findByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
    on.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, maintenance: true, show_landing: false } });
    renderApp('/maintenance');
    expect(await screen.findByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/login');
  });

  it('sends a visitor who opens it while maintenance is off to / (landing on) or /login (off)', async () => {
    const api = fakeApi();
    const on = renderApp('/maintenance');
    await waitFor(() => expect(on.path()).toBe('/'));
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('desde Cuba');
    on.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, show_landing: false } });
    const off = renderApp('/maintenance');
    await waitFor(() => expect(off.path()).toBe('/login'));
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
  });

  it('polls the status every 30 s and leaves once the maintenance is over', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const api = fakeApi({
      'GET /api/client': { body: { ...defaultSettings, maintenance: true } },
      'GET /api/client/status': { body: { maintenance: true } },
    });
    const app = renderApp('/maintenance');
    expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
    await waitFor(() => expect(api.callsTo('GET /api/client/status')).toHaveLength(1));

    api.on('GET /api/client', { body: defaultSettings });
    api.on('GET /api/client/status', { body: { maintenance: false } });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(MAINTENANCE_POLL_MS);
    });
    await waitFor(() => expect(app.path()).toBe('/'));
    expect(api.callsTo('GET /api/client/status')).toHaveLength(2);
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('desde Cuba');
  });
});
