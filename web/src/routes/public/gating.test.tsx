import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { defaultSettings, deferred, fakeApi } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

function settings(overrides: Partial<typeof defaultSettings>) {
  return { 'GET /api/client': { body: { ...defaultSettings, ...overrides } } };
}

describe('public gating', () => {
  it("shows 'Cargando información...' while the public settings load", async () => {
    const pending = deferred<Reply>();
    fakeApi({ 'GET /api/client': () => pending.promise });
    renderApp('/');
    expect(screen.getByRole('status')).toHaveTextContent('Cargando información...');
    pending.resolve({ body: defaultSettings });
    expect(await screen.findByRole('heading', { level: 1 })).toBeInTheDocument();
  });

  it('sends every public page to /maintenance when maintenance is on', async () => {
    fakeApi({
      ...settings({ maintenance: true }),
      'GET /api/client/status': { body: { maintenance: true } },
    });
    for (const path of ['/', '/plans', '/login', '/register', '/password-recovery', '/no-existe']) {
      const app = renderApp(path);
      expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
      expect(app.path()).toBe('/maintenance');
      app.unmount();
    }
  });

  it('sends a visitor to /maintenance when the settings call answers 503', async () => {
    fakeApi({
      'GET /api/client': { status: 503, body: { message: 'El servicio está en mantenimiento.' } },
      'GET /api/client/status': { status: 503, body: {} },
    });
    const app = renderApp('/plans');
    expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
    expect(app.path()).toBe('/maintenance');
  });

  it('shows an error with a retry when the settings cannot be loaded', async () => {
    const api = fakeApi({ 'GET /api/client': { status: 500, body: {} } });
    renderApp('/');
    expect(await screen.findByRole('alert')).toHaveTextContent('Hubo un error al intentar cargar los datos.');
    api.on('GET /api/client', { body: defaultSettings });
    screen.getByRole('button', { name: 'Reintentar' }).click();
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('desde Cuba');
  });

  it('sends every page but login to /login when the landing is off', async () => {
    fakeApi(settings({ show_landing: false }));
    for (const path of ['/', '/plans', '/register', '/password-recovery']) {
      const app = renderApp(path);
      expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
      expect(app.path()).toBe('/login');
      app.unmount();
    }
  });

  it('keeps /login reachable with the landing on (the landing links to it)', async () => {
    fakeApi(settings({ show_landing: true }));
    const app = renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(app.path()).toBe('/login');
  });

  it('still shows the not-found page for unknown paths when the landing is off', async () => {
    fakeApi(settings({ show_landing: false }));
    const app = renderApp('/no-existe');
    expect(await screen.findByRole('heading', { name: 'Página no encontrada' })).toBeInTheDocument();
    expect(app.path()).toBe('/no-existe');
  });

  it('sends /register to /login when registration is off', async () => {
    fakeApi(settings({ allow_registration: false }));
    const app = renderApp('/register');
    expect(await screen.findByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
    expect(app.path()).toBe('/login');
  });

  it('sends /password-recovery home when recovery is off: / with the landing, else /login', async () => {
    fakeApi(settings({ allow_password_recovery: false }));
    const withLanding = renderApp('/password-recovery');
    await waitFor(() => expect(withLanding.path()).toBe('/'));
    expect(await screen.findByRole('heading', { level: 1 })).toHaveTextContent('desde Cuba');
    withLanding.unmount();

    fakeApi(settings({ allow_password_recovery: false, show_landing: false }));
    const withoutLanding = renderApp('/password-recovery');
    await waitFor(() => expect(withoutLanding.path()).toBe('/login'));
  });

  it('shows the recovery and register pages when they are allowed', async () => {
    fakeApi();
    renderApp('/password-recovery');
    expect(await screen.findByRole('heading', { name: 'Recuperar Contraseña' })).toBeInTheDocument();
  });

  it('sets the page title from the runtime company name', async () => {
    fakeApi();
    renderApp('/', {
      config: {
        company_name: 'Nube VPN',
        support_url: null,
        public_url: null,
        captcha: { provider: 'altcha', challenge_url: '/api/client/captcha' },
      },
    });
    await screen.findByRole('heading', { level: 1 });
    await waitFor(() => expect(document.title).toBe('Nube VPN - Bienvenido'));
  });
});
