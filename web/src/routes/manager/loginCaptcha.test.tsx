/**
 * Issue 17, M1 in the console: past a username's failure limit the manager's sign-in needs a solved
 * captcha (never a lock) — at the password and at the two-factor step alike — and the challenge
 * names the account, whose failures make it longer.
 */
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/api';
import { renderApp } from '../../test/render';

// The captcha widget's contract with us is the element and its 'statechange' event (Register.test).
vi.mock('altcha', () => ({}));

const captchaRequired = {
  status: 429,
  body: {
    message: 'Demasiados intentos fallidos. Completa el captcha para iniciar sesión.',
    code: 'captcha_required',
  },
};

describe('manager sign-in past the failure limit', () => {
  it('shows the captcha at the two-factor step when the server asks, and sends its solution with the code', async () => {
    const api = fakeApi({
      'POST /api/admin/login': (call) => {
        const body = call.body as { totp?: string; captcha_token?: string };
        if (!body.totp)
          return { status: 401, body: { code: 'totp_required', message: 'Introduzca el código' } };
        if (!body.captcha_token) return captchaRequired;
        return { body: { access: 'm-a', refresh: 'm-r' } };
      },
      'GET /api/admin/verify-token': { body: { id: 1, username: 'admin', role: 'owner' } },
    });
    const app = renderApp('/manager/login');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'admin');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-segura');
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    await userEvent.type(await screen.findByLabelText('Código de verificación'), '123456');
    await userEvent.click(screen.getByRole('button', { name: 'Verificar' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Completa el captcha para iniciar sesión.');
    const widget = await screen.findByTestId('captcha');
    expect(widget.getAttribute('challengeurl')).toBe('/api/client/captcha?username=admin&realm=manager');
    act(() => {
      widget.dispatchEvent(
        new CustomEvent('statechange', { detail: { state: 'verified', payload: 'sol-7' } }),
      );
    });
    await userEvent.type(screen.getByLabelText('Código de verificación'), '654321');
    await userEvent.click(screen.getByRole('button', { name: 'Verificar' }));
    await waitFor(() => expect(app.path()).toBe('/manager/dashboard'));
    expect(api.callsTo('POST /api/admin/login').at(-1)?.body).toEqual({
      username: 'admin',
      password: 'clave-segura',
      remember: false,
      totp: '654321',
      captcha_token: 'sol-7',
    });
  });

  it('does not offer a captcha to skip a wait: the wait is shown as the server words it', async () => {
    fakeApi({
      'POST /api/admin/login': {
        status: 429,
        body: {
          message:
            'Demasiados intentos fallidos con este usuario desde tu conexión. Espera 8 s e inténtalo de nuevo.',
          code: 'login_delay',
        },
      },
    });
    renderApp('/manager/login');
    await userEvent.type(await screen.findByLabelText('Usuario'), 'admin');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-mala');
    await userEvent.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Espera 8 s');
    expect(screen.queryByTestId('captcha')).not.toBeInTheDocument();
  });
});
