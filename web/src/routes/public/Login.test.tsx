import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { defaultSettings, deferred, fakeApi, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp } from '../../test/render';

// The captcha widget's contract with us is the element and its 'statechange' event (Register.test).
vi.mock('altcha', () => ({}));

async function fillAndSubmit(username = 'juan', password = 'secreto123') {
  await userEvent.type(await screen.findByLabelText('Usuario'), username);
  await userEvent.type(screen.getByLabelText('Contraseña'), password);
  await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
}

describe('/login', () => {
  it('shows the captcha when the server asks for one after repeated failures, and sends its solution', async () => {
    let calls = 0;
    const api = fakeApi({
      'POST /api/client/login': () => {
        calls++;
        return calls === 1
          ? {
              status: 429,
              body: {
                message: 'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
                code: 'captcha_required',
              },
            }
          : { body: { access: 'a1', refresh: 'r1' } };
      },
      'GET /api/client/verify-token': { body: sampleUser },
    });
    const app = renderApp('/login');
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument();
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
    );
    const widget = await screen.findByTestId('captcha');
    // The challenge names the account: its work grows with that account's failures.
    expect(widget.getAttribute('challengeurl')).toBe('/api/client/captcha?username=juan');
    // Without solving it, the form does not send the password again.
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Por favor, complete el captcha');
    expect(api.callsTo('POST /api/client/login')).toHaveLength(1);
    act(() => {
      widget.dispatchEvent(
        new CustomEvent('statechange', { detail: { state: 'verified', payload: 'sol-9' } }),
      );
    });
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    await waitFor(() => expect(app.path()).toBe('/dashboard/home'));
    expect(api.callsTo('POST /api/client/login')[1]?.body).toEqual({
      username: 'juan',
      password: 'secreto123',
      remember: false,
      captcha_token: 'sol-9',
    });
  });

  it('shows the server message in a red box when the login fails', async () => {
    fakeApi({
      'POST /api/client/login': { status: 401, body: { message: 'Usuario o contraseña incorrectos' } },
    });
    renderApp('/login');
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent('Usuario o contraseña incorrectos');
    expect(screen.getByRole('button', { name: 'Iniciar sesión' })).toBeEnabled();
  });

  it('falls back to the spec text when the failure carries no message', async () => {
    fakeApi({ 'POST /api/client/login': { status: 500, body: {} } });
    renderApp('/login');
    await fillAndSubmit();
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Error al iniciar sesión. Por favor, intente de nuevo.',
    );
  });

  it("reads 'Procesando...' and disables inputs and button while busy, then opens the dashboard", async () => {
    const pending = deferred<Reply>();
    const api = fakeApi({
      'POST /api/client/login': () => pending.promise,
      'GET /api/client/verify-token': { body: sampleUser },
    });
    const app = renderApp('/login');
    await fillAndSubmit();

    const button = screen.getByRole('button', { name: 'Procesando...' });
    expect(button).toBeDisabled();
    expect(screen.getByLabelText('Usuario')).toBeDisabled();
    expect(screen.getByLabelText('Contraseña')).toBeDisabled();
    expect(screen.getByRole('checkbox', { name: 'Recordarme' })).toBeDisabled();

    pending.resolve({ body: { access: 'a1', refresh: 'r1' } });
    expect(await screen.findByRole('button', { name: 'Hola, juan' })).toBeInTheDocument();
    expect(app.path()).toBe('/dashboard/home');
    expect(api.callsTo('POST /api/client/login')[0]?.body).toEqual({
      username: 'juan',
      password: 'secreto123',
      remember: false,
    });
  });

  it('keeps the refresh token only when Recordarme is checked', async () => {
    fakeApi({
      'POST /api/client/login': { body: { access: 'a1', refresh: 'r1' } },
      'GET /api/client/verify-token': { body: sampleUser },
    });
    const first = renderApp('/login');
    await fillAndSubmit();
    await waitFor(() => expect(first.path()).toBe('/dashboard/home'));
    expect(sessionStorage.getItem('access')).toBe('a1');
    expect(localStorage.getItem('refresh')).toBeNull();
    expect(sessionStorage.getItem('refresh')).toBeNull();
    first.unmount();
    sessionStorage.clear();

    const second = renderApp('/login');
    await userEvent.click(await screen.findByRole('checkbox', { name: 'Recordarme' }));
    await fillAndSubmit();
    await waitFor(() => expect(second.path()).toBe('/dashboard/home'));
    expect(localStorage.getItem('access')).toBe('a1');
    expect(localStorage.getItem('refresh')).toBe('r1');
  });

  it('toggles the password visibility', async () => {
    fakeApi();
    renderApp('/login');
    const password = await screen.findByLabelText('Contraseña');
    expect(password).toHaveAttribute('type', 'password');
    await userEvent.click(screen.getByRole('button', { name: 'Mostrar contraseña' }));
    expect(password).toHaveAttribute('type', 'text');
    await userEvent.click(screen.getByRole('button', { name: 'Ocultar contraseña' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('shows the forgot-password, register and back-to-landing links when the settings allow them', async () => {
    fakeApi();
    renderApp('/login');
    expect(await screen.findByRole('link', { name: '¿Olvidaste tu contraseña?' })).toHaveAttribute(
      'href',
      '/password-recovery',
    );
    expect(screen.getByRole('link', { name: 'Regístrate' })).toHaveAttribute('href', '/register');
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/');
  });

  it('hides those links when recovery, registration and the landing are off', async () => {
    // The server reports recovery off also while neither e-mail nor Telegram could carry a link.
    fakeApi({
      'GET /api/client': {
        body: {
          ...defaultSettings,
          allow_password_recovery: false,
          allow_registration: false,
          show_landing: false,
        },
      },
    });
    renderApp('/login');
    await screen.findByLabelText('Usuario');
    expect(screen.queryByRole('link', { name: '¿Olvidaste tu contraseña?' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Regístrate' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Volver al inicio' })).not.toBeInTheDocument();
  });

  it('goes to /maintenance when the status check reports maintenance or answers 503', async () => {
    // Maintenance switched on after the settings were read: the status check is the first to know.
    let settingsCalls = 0;
    const api = fakeApi({
      'GET /api/client': () => ({ body: { ...defaultSettings, maintenance: settingsCalls++ > 0 } }),
      'GET /api/client/status': { body: { maintenance: true } },
    });
    const first = renderApp('/login');
    expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
    expect(first.path()).toBe('/maintenance');
    first.unmount();

    settingsCalls = 0;
    api.on('GET /api/client/status', { status: 503, body: {} });
    const second = renderApp('/login');
    await waitFor(() => expect(second.path()).toBe('/maintenance'));
  });

  it('goes straight to the dashboard when a token is already stored', async () => {
    localStorage.setItem('access', 'a1');
    fakeApi({ 'GET /api/client/verify-token': { body: sampleUser } });
    const app = renderApp('/login');
    await waitFor(() => expect(app.path()).toBe('/dashboard/home'));
  });
});
