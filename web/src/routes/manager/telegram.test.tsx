import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/api';
import type { Handler } from '../../test/api';
import { SETTINGS } from '../../test/console';
import { renderApp } from '../../test/render';

function signedIn(routes: Record<string, Handler>, role = 'owner') {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: { id: 1, username: 'duena', role } }, ...routes });
}

const settings = SETTINGS;

describe('Telegram in the console', () => {
  it('Seguridad: links the manager with a one-time t.me link once two-factor is on', async () => {
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    signedIn({
      'GET /api/admin/me/totp': { body: { enabled: true, recovery_codes_left: 10 } },
      'GET /api/admin/me/telegram': { body: { available: true, linked: false, prefs: null } },
      'POST /api/admin/me/telegram/link': {
        body: {
          url: 'https://t.me/panel_bot?start=managercodemanagercodemanagerc0',
          expires_at: '2030-01-01T00:00:00Z',
        },
      },
    });
    renderApp('/manager/dashboard/security');
    await userEvent.click(await screen.findByRole('button', { name: 'Vincular Telegram' }));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        'https://t.me/panel_bot?start=managercodemanagercodemanagerc0',
        '_blank',
        'noopener',
      ),
    );
    expect(screen.getByRole('link', { name: 'Abrir Telegram' })).toHaveAttribute(
      'href',
      'https://t.me/panel_bot?start=managercodemanagercodemanagerc0',
    );
    open.mockRestore();
  });

  it('Seguridad: without two-factor the link waits for it', async () => {
    signedIn({
      'GET /api/admin/me/totp': { body: { enabled: false, recovery_codes_left: 0 } },
      'GET /api/admin/me/telegram': { body: { available: true, linked: false, prefs: null } },
    });
    renderApp('/manager/dashboard/security');
    expect(
      await screen.findByText('Active antes la verificación en dos pasos (arriba).'),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Vincular Telegram' })).toBeDisabled();
  });

  it('Ajustes: saves the bot token (never shown back) and forgets it', async () => {
    let source: 'env' | 'console' = 'env';
    const api = signedIn({
      'GET /api/admin/settings': { body: settings },
      'GET /api/admin/settings/gateways': {
        body: {
          allow_payments_qvapay: false,
          allow_payments_remesita: false,
          qvapay: { configured: false, source: 'none' },
          remesita: { configured: false, source: 'none' },
        },
      },
      'GET /api/admin/settings/telegram': () => ({ body: { source, bot: 'panel_bot', webhook: false } }),
      'PUT /api/admin/settings/telegram': (call) => {
        const token = (call.body as { token: string | null }).token;
        if (token === 'malo')
          return {
            status: 400,
            body: { message: 'Telegram no acepta este token (getMe falló). Compruébelo en BotFather.' },
          };
        source = token === null ? 'env' : 'console';
        return { body: { source, bot: 'panel_bot', webhook: false } };
      },
    });
    renderApp('/manager/dashboard/settings');
    const section = await screen.findByRole('region', { name: 'Bot de Telegram' });
    expect(await within(section).findByText('Token de TELEGRAM_BOT_TOKEN')).toBeInTheDocument();
    expect(within(section).getByText('Bot activo: @panel_bot')).toBeInTheDocument();
    const field = within(section).getByLabelText('Token del bot');
    await userEvent.type(field, 'malo');
    await userEvent.click(within(section).getByRole('button', { name: 'Guardar token' }));
    expect(await within(section).findByRole('alert')).toHaveTextContent('Telegram no acepta este token');
    await userEvent.clear(field);
    await userEvent.type(field, '123456789:AAE-valid-looking-token_xyz');
    await userEvent.click(within(section).getByRole('button', { name: 'Guardar token' }));
    expect(await within(section).findByText('Token guardado en Ajustes')).toBeInTheDocument();
    expect(field).toHaveValue('');
    await userEvent.click(within(section).getByRole('button', { name: 'Olvidar el token guardado' }));
    expect(await within(section).findByText('Token de TELEGRAM_BOT_TOKEN')).toBeInTheDocument();
    expect(api.callsTo('PUT /api/admin/settings/telegram').map((c) => c.body)).toEqual([
      { token: 'malo' },
      { token: '123456789:AAE-valid-looking-token_xyz' },
      { token: null },
    ]);
  });

  it('Contenido: "Enviar por Telegram" goes with the announcement', async () => {
    const api = signedIn({
      'POST /api/admin/advertisements': (call) => ({
        status: 201,
        body: { id: 7, ...(call.body as object), created: '2026-01-01T00:00:00Z' },
      }),
    });
    renderApp('/manager/dashboard/content');
    await userEvent.type(await screen.findByLabelText('Título'), 'Aviso');
    await userEvent.type(screen.getByLabelText('Mensaje'), 'Hola a todos');
    await userEvent.click(screen.getByRole('checkbox', { name: /Enviar por Telegram/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Publicar anuncio' }));
    await waitFor(() =>
      expect(api.callsTo('POST /api/admin/advertisements')[0]?.body).toEqual({
        name: 'Aviso',
        message: 'Hola a todos',
        telegram: true,
      }),
    );
  });
});
