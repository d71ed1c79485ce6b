import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { fakeApi, sampleUser } from '../../test/api';
import { renderApp } from '../../test/render';

const prefs = { reminders: true, allowance: true, payments: true, announcements: true, concurrent: true };

describe('Settings → Telegram', () => {
  it('links with a one-time t.me link, then offers the switches and Desvincular', async () => {
    localStorage.setItem('access', 'a1');
    localStorage.setItem('refresh', 'r1');
    const open = vi.spyOn(window, 'open').mockReturnValue(null);
    let linked = false;
    let reminders = true;
    const status = () => ({
      body: { available: true, linked, prefs: linked ? { ...prefs, reminders } : null },
    });
    const api = fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/telegram': status,
      'POST /api/client/telegram/link': {
        body: {
          url: 'https://t.me/panel_bot?start=abcdefghijklmnopqrstuvwxyz012345',
          expires_at: '2030-01-01T00:10:00Z',
        },
      },
      'PATCH /api/client/telegram': (call) => {
        reminders = (call.body as { reminders: boolean }).reminders;
        return status();
      },
      'DELETE /api/client/telegram': () => {
        linked = false;
        return status();
      },
    });
    renderApp('/dashboard/settings');
    await userEvent.click(await screen.findByRole('button', { name: 'Vincular Telegram' }));
    await waitFor(() =>
      expect(open).toHaveBeenCalledWith(
        'https://t.me/panel_bot?start=abcdefghijklmnopqrstuvwxyz012345',
        '_blank',
        'noopener',
      ),
    );
    expect(screen.getByRole('status')).toHaveTextContent('vale 10 minutos');

    linked = true; // the customer pressed Iniciar in the bot's chat
    await userEvent.click(screen.getByRole('button', { name: 'Ya lo vinculé' }));
    const box = await screen.findByRole('checkbox', { name: 'Vencimientos (72 h y 24 h antes)' });
    expect(box).toBeChecked();
    await userEvent.click(box);
    await waitFor(() => expect(box).not.toBeChecked());
    expect(api.calls.find((c) => c.method === 'PATCH')?.body).toEqual({ reminders: false });

    await userEvent.click(screen.getByRole('button', { name: 'Desvincular' }));
    expect(await screen.findByRole('button', { name: 'Vincular Telegram' })).toBeInTheDocument();
    expect(api.calls.some((c) => c.method === 'DELETE' && c.path === '/api/client/telegram')).toBe(true);
    open.mockRestore();
  });

  it('says so when the panel has no bot', async () => {
    localStorage.setItem('access', 'a1');
    localStorage.setItem('refresh', 'r1');
    fakeApi({
      'GET /api/client/verify-token': { body: sampleUser },
      'GET /api/client/telegram': { body: { available: false, linked: false, prefs: null } },
    });
    renderApp('/dashboard/settings');
    expect(await screen.findByText('Telegram no está disponible en este panel.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Vincular Telegram' })).not.toBeInTheDocument();
  });
});
