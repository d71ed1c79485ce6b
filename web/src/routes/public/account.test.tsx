/**
 * The account pages outside the dashboard: password recovery (now a real call), and the two pages
 * reached from e-mailed links — reset password and verify e-mail — with their token in the fragment.
 */
import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { StrictMode } from 'react';
import { createMemoryRouter } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { App } from '../../App';
import { DEFAULT_CONFIG } from '../../config/runtime';
import { queryKeys } from '../../api/queries';
import { routes } from '..';
import { defaultSettings, deferred, fakeApi, sampleUser } from '../../test/api';
import type { Reply } from '../../test/api';
import { renderApp, testQueryClient } from '../../test/render';

// The captcha widget's contract with us is the element and its 'statechange' event (Register.test).
vi.mock('altcha', () => ({}));

const SENT =
  'Si la cuenta tiene un email verificado o un chat de Telegram vinculado, recibirás allí un enlace para restablecer la contraseña.';

describe('password recovery', () => {
  it("posts the username, shows 'Email enviado' with the server's sentence and lets the user try again", async () => {
    const api = fakeApi({ 'POST /api/client/password-recovery': { body: { message: SENT } } });
    renderApp('/password-recovery');
    expect(await screen.findByRole('heading', { name: 'Recuperar Contraseña' })).toBeInTheDocument();
    // A username field only.
    expect(screen.getAllByRole('textbox')).toHaveLength(1);
    expect(document.querySelector('input[type=password]')).toBeNull();

    await userEvent.type(screen.getByLabelText('Usuario'), '  juan ');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));

    expect(await screen.findByRole('heading', { name: 'Email enviado' })).toBeInTheDocument();
    expect(screen.getByText(SENT)).toBeInTheDocument();
    expect(api.callsTo('POST /api/client/password-recovery').map((c) => c.body)).toEqual([
      { username: 'juan' },
    ]);

    const again = screen.getByRole('link', { name: 'Intentar de nuevo' });
    await userEvent.click(again);
    expect(screen.getByRole('heading', { name: 'Recuperar Contraseña' })).toBeInTheDocument();
    expect(screen.getByLabelText('Usuario')).toHaveValue('');
  });

  it("disables the form and reads 'Procesando...' while the call runs", async () => {
    const pending = deferred<Reply>();
    fakeApi({ 'POST /api/client/password-recovery': () => pending.promise });
    renderApp('/password-recovery');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'juan');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(screen.getByRole('button', { name: 'Procesando...' })).toBeDisabled();
    expect(screen.getByLabelText('Usuario')).toBeDisabled();
    pending.resolve({ body: { message: SENT } });
    expect(await screen.findByRole('heading', { name: 'Email enviado' })).toBeInTheDocument();
  });

  it('shows a refusal (too many attempts) in the red box and stays on the form', async () => {
    fakeApi({
      'POST /api/client/password-recovery': {
        status: 429,
        body: { message: 'Demasiados intentos. Por favor, espera un momento e inténtalo de nuevo.' },
      },
    });
    renderApp('/password-recovery');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'juan');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Demasiados intentos.');
    expect(screen.queryByRole('heading', { name: 'Email enviado' })).not.toBeInTheDocument();
  });

  it('past the per-username limit shows the captcha and sends the request again with its solution', async () => {
    let calls = 0;
    const api = fakeApi({
      'POST /api/client/password-recovery': () =>
        ++calls === 1
          ? {
              status: 429,
              body: {
                message: 'Demasiadas solicitudes para este usuario. Completa el captcha para continuar.',
                code: 'captcha_required',
              },
            }
          : { body: { message: SENT } },
    });
    renderApp('/password-recovery');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'juan');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Completa el captcha para continuar.');
    const widget = await screen.findByTestId('captcha');
    act(() => {
      widget.dispatchEvent(
        new CustomEvent('statechange', { detail: { state: 'verified', payload: 'sol-3' } }),
      );
    });
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(await screen.findByRole('heading', { name: 'Email enviado' })).toBeInTheDocument();
    expect(api.callsTo('POST /api/client/password-recovery').map((c) => c.body)).toEqual([
      { username: 'juan' },
      { username: 'juan', captcha_token: 'sol-3' },
    ]);
  });

  it("falls back to 'Hubo un error al realizar la solicitud' when the network fails", async () => {
    fakeApi({ 'POST /api/client/password-recovery': () => Promise.reject(new TypeError('offline')) });
    renderApp('/password-recovery');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'juan');
    await userEvent.click(screen.getByRole('button', { name: 'Enviar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Hubo un error al realizar la solicitud');
  });
});

describe('reset password (/reset-password#token=…)', () => {
  it('takes the token out of the address bar, validates, posts it with the new password and links to login', async () => {
    const api = fakeApi({
      'POST /api/client/reset-password': {
        body: { message: 'Contraseña restablecida. Ya puedes iniciar sesión.' },
      },
    });
    const app = renderApp('/reset-password#token=tok-123');
    expect(await screen.findByRole('heading', { name: 'Restablecer Contraseña' })).toBeInTheDocument();
    await waitFor(() => expect(app.router.state.location.hash).toBe(''));
    expect(app.path()).toBe('/reset-password');

    const submit = screen.getByRole('button', { name: 'Restablecer contraseña' });
    await userEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Las contraseñas no pueden estar en blanco.');
    await userEvent.type(screen.getByLabelText('Nueva contraseña'), 'nueva-clave-1');
    await userEvent.type(screen.getByLabelText('Confirmar nueva contraseña'), 'nueva-clave-2');
    await userEvent.click(submit);
    expect(screen.getByRole('alert')).toHaveTextContent('Las contraseñas no coinciden.');
    expect(api.callsTo('POST /api/client/reset-password')).toHaveLength(0);

    await userEvent.clear(screen.getByLabelText('Confirmar nueva contraseña'));
    await userEvent.type(screen.getByLabelText('Confirmar nueva contraseña'), 'nueva-clave-1');
    await userEvent.click(submit);
    expect(await screen.findByRole('heading', { name: 'Contraseña restablecida' })).toBeInTheDocument();
    expect(screen.getByText('Contraseña restablecida. Ya puedes iniciar sesión.')).toBeInTheDocument();
    expect(api.callsTo('POST /api/client/reset-password').map((c) => c.body)).toEqual([
      { token: 'tok-123', password: 'nueva-clave-1' },
    ]);
    await userEvent.click(screen.getByRole('link', { name: 'Ir a iniciar sesión' }));
    expect(app.path()).toBe('/login');
  });

  it("shows 'El enlace no es válido o ha caducado' from the server and offers a new link", async () => {
    fakeApi({
      'POST /api/client/reset-password': {
        status: 400,
        body: { message: 'El enlace no es válido o ha caducado' },
      },
    });
    const app = renderApp('/reset-password#token=gastado');
    await userEvent.type(await screen.findByLabelText('Nueva contraseña'), 'nueva-clave-1');
    await userEvent.type(screen.getByLabelText('Confirmar nueva contraseña'), 'nueva-clave-1');
    await userEvent.click(screen.getByRole('button', { name: 'Restablecer contraseña' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('El enlace no es válido o ha caducado');
    await userEvent.click(screen.getByRole('link', { name: 'Solicitar un enlace nuevo' }));
    expect(app.path()).toBe('/password-recovery');
  });

  it('says the link is not valid when it carries no token, without calling the server', async () => {
    const api = fakeApi();
    renderApp('/reset-password');
    expect(await screen.findByText('El enlace no es válido o ha caducado')).toBeInTheDocument();
    expect(screen.queryByLabelText('Nueva contraseña')).not.toBeInTheDocument();
    expect(api.callsTo('POST /api/client/reset-password')).toHaveLength(0);
  });

  it('opens with the landing off (a mailed link is not sent to /login) but obeys maintenance', async () => {
    const api = fakeApi({ 'GET /api/client': { body: { ...defaultSettings, show_landing: false } } });
    const open = renderApp('/reset-password#token=t');
    expect(await screen.findByRole('heading', { name: 'Restablecer Contraseña' })).toBeInTheDocument();
    expect(open.path()).toBe('/reset-password');
    open.unmount();

    api.on('GET /api/client', { body: { ...defaultSettings, maintenance: true } });
    const closed = renderApp('/reset-password#token=t');
    expect(await screen.findByRole('heading', { name: 'Servicio en Mantenimiento' })).toBeInTheDocument();
    expect(closed.path()).toBe('/maintenance');
  });
});

describe('verify e-mail (/verify-email#token=…)', () => {
  it("posts the token once on load (even under StrictMode) and says 'Email verificado correctamente'", async () => {
    const api = fakeApi({
      'POST /api/client/verify-email': { body: { message: 'Email verificado correctamente' } },
    });
    const router = createMemoryRouter(routes, { initialEntries: ['/verify-email#token=abc'] });
    render(
      <StrictMode>
        <App config={DEFAULT_CONFIG} queryClient={testQueryClient()} router={router} />
      </StrictMode>,
    );
    expect(await screen.findByRole('heading', { name: 'Email verificado' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('Email verificado correctamente');
    expect(api.callsTo('POST /api/client/verify-email').map((c) => c.body)).toEqual([{ token: 'abc' }]);
    expect(router.state.location.hash).toBe('');
    expect(screen.getByRole('link', { name: 'Ir a iniciar sesión' })).toHaveAttribute('href', '/login');
  });

  it("shows 'Verificando email...' meanwhile and the server's error when the link is spent", async () => {
    const pending = deferred<Reply>();
    fakeApi({ 'POST /api/client/verify-email': () => pending.promise });
    renderApp('/verify-email#token=viejo');
    expect(await screen.findByText('Verificando email...')).toBeInTheDocument();
    pending.resolve({ status: 400, body: { message: 'El enlace no es válido o ha caducado' } });
    expect(await screen.findByRole('heading', { name: 'No se pudo verificar el email' })).toBeInTheDocument();
    expect(screen.getByRole('alert')).toHaveTextContent('El enlace no es válido o ha caducado');
  });

  it("refreshes a signed-in customer's cached account and leads to the account settings", async () => {
    localStorage.setItem('access', 'a1');
    localStorage.setItem('refresh', 'r1');
    fakeApi({
      'POST /api/client/verify-email': { body: { message: 'Email verificado correctamente' } },
      'GET /api/client/verify-token': { body: { ...sampleUser, email_verified: true } },
    });
    const router = createMemoryRouter(routes, { initialEntries: ['/verify-email#token=abc'] });
    const queryClient = testQueryClient();
    // The dashboard had loaded the account before the link was opened: still unverified, and fresh.
    queryClient.setQueryData(queryKeys.currentUser, { ...sampleUser, email_verified: false });
    render(<App config={DEFAULT_CONFIG} queryClient={queryClient} router={router} />);
    await userEvent.click(await screen.findByRole('link', { name: 'Ir a Configuración de cuenta' }));
    expect(router.state.location.pathname).toBe('/dashboard/settings');
    expect(await screen.findByText('Verificado')).toBeInTheDocument();
    expect(screen.queryByText('Sin verificar')).not.toBeInTheDocument();
  });

  it('says the link is not valid when it carries no token', async () => {
    const api = fakeApi();
    renderApp('/verify-email');
    expect(await screen.findByRole('alert')).toHaveTextContent('El enlace no es válido o ha caducado');
    expect(api.callsTo('POST /api/client/verify-email')).toHaveLength(0);
  });
});
