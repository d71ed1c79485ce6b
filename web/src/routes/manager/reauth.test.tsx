/**
 * Issue 17, M3 in the console: a sensitive call refused with 403 `reauth_required` asks the manager
 * for the password (and code) in a dialog, gets a confirmation from POST /api/admin/me/reauth and
 * sends the call again with it (X-Reauth). The server decides; the page only asks.
 */
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/api';
import { renderApp } from '../../test/render';
import { setViewportWidth } from '../../test/viewport';

beforeEach(() => setViewportWidth(1280));

describe('fresh confirmation of sensitive operations', () => {
  it('asks for the password when the server wants it, shows a wrong one, and repeats the call with the confirmation', async () => {
    localStorage.setItem('manager_access', 'm-a');
    const api = fakeApi({
      'GET /api/admin/verify-token': { body: { id: 1, username: 'duena', role: 'owner' } },
      'GET /api/admin/me/totp': { body: { enabled: false, recovery_codes_left: 0 } },
      'POST /api/admin/me/totp': (call) =>
        call.headers['x-reauth'] === 'confirmacion-1'
          ? {
              body: {
                secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
                uri: 'otpauth://totp/VPN%20Service:duena?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP',
              },
            }
          : {
              status: 403,
              body: {
                message: 'Por seguridad, confirme su contraseña (y su código de verificación) para continuar',
                code: 'reauth_required',
              },
            },
      'POST /api/admin/me/reauth': (call) =>
        (call.body as { password: string }).password === 'clave-buena'
          ? { body: { token: 'confirmacion-1', expires_in: 300 } }
          : { status: 400, body: { message: 'La contraseña no es correcta' } },
    });
    renderApp('/manager/dashboard/security');
    await userEvent.click(await screen.findByRole('button', { name: 'Activar verificación en dos pasos' }));
    const dialog = await screen.findByRole('dialog', { name: 'Confirme que es usted' });
    expect(dialog).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Confirmar' }));
    expect(screen.getByRole('alert')).toHaveTextContent('Indique su contraseña.');
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-mala');
    await userEvent.click(screen.getByRole('button', { name: 'Confirmar' }));
    expect(await screen.findByText('La contraseña no es correcta')).toBeInTheDocument();
    await userEvent.clear(screen.getByLabelText('Contraseña'));
    await userEvent.type(screen.getByLabelText('Contraseña'), 'clave-buena');
    await userEvent.click(screen.getByRole('button', { name: 'Confirmar' }));
    expect(
      await screen.findByRole('img', { name: 'Código QR de la verificación en dos pasos' }),
    ).toBeInTheDocument();
    const starts = api.callsTo('POST /api/admin/me/totp');
    expect(starts.map((c) => c.headers['x-reauth'] ?? null)).toEqual([null, 'confirmacion-1']);
    expect(api.callsTo('POST /api/admin/me/reauth').map((c) => c.body)).toEqual([
      { password: 'clave-mala' },
      { password: 'clave-buena' },
    ]);
  }, 20_000);
});
