import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/api';
import type { Handler } from '../../test/api';
import { SETTINGS } from '../../test/console';
import { renderApp } from '../../test/render';

const manager = { id: 1, username: 'admin', role: 'owner' };

const settings = SETTINGS;

function signedIn(routes: Record<string, Handler>) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: manager }, ...routes });
}

describe('manager console', () => {
  it("shows 'Hubo un error al intentar cargar los datos.' when a page fails to load", async () => {
    signedIn({ 'GET /api/admin/servers': { status: 500, body: {} } });
    renderApp('/manager/dashboard/servers');
    // The page is a lazy chunk: its first load can take seconds on a busy machine.
    expect(await screen.findByRole('alert', {}, { timeout: 5000 })).toHaveTextContent(
      'Hubo un error al intentar cargar los datos.',
    );
  });

  it('saves a setting as it is toggled (PATCH with just that key) and highlights maintenance', async () => {
    const api = signedIn({
      'GET /api/admin/settings': { body: settings },
      'PATCH /api/admin/settings': (call) => ({ body: { ...settings, ...(call.body as object) } }),
    });
    renderApp('/manager/dashboard/settings');
    const maintenance = await screen.findByRole('switch', { name: 'Modo mantenimiento' });
    expect(maintenance).toHaveAttribute('aria-checked', 'false');
    await userEvent.click(maintenance);
    expect(await screen.findByText('Ajuste guardado')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/settings')[0]?.body).toEqual({ maintenance: true });
    await waitFor(() => expect(maintenance).toHaveAttribute('aria-checked', 'true'));
    expect(
      screen.getByText('El sitio está en mantenimiento: los clientes no pueden usarlo.'),
    ).toBeInTheDocument();

    await userEvent.click(screen.getByRole('switch', { name: 'Permitir salas' }));
    await waitFor(() => expect(api.callsTo('PATCH /api/admin/settings')).toHaveLength(2));
    expect(api.callsTo('PATCH /api/admin/settings')[1]?.body).toEqual({ allow_partys: true });
  });

  it('sets the peers a room admits: refuses a number out of range here, saves a good one (issue 31)', async () => {
    const api = signedIn({
      'GET /api/admin/settings': { body: settings },
      'PATCH /api/admin/settings': (call) => ({ body: { ...settings, ...(call.body as object) } }),
    });
    renderApp('/manager/dashboard/settings');
    const box = await screen.findByRole('spinbutton', { name: 'Peers por sala' });
    expect(box).toHaveValue(16);
    await userEvent.clear(box);
    await userEvent.type(box, '1');
    await userEvent.click(screen.getByRole('button', { name: 'Guardar' }));
    const error = await screen.findByText('Escribe un número entero entre 2 y 64.');
    expect(error).toHaveAttribute('role', 'alert');
    expect(box).toHaveAccessibleDescription('Escribe un número entero entre 2 y 64.');
    expect(api.callsTo('PATCH /api/admin/settings')).toHaveLength(0);
    await userEvent.clear(box);
    await userEvent.type(box, '8');
    await userEvent.click(screen.getByRole('button', { name: 'Guardar' }));
    expect(await screen.findByText('Ajuste guardado')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/settings')).toEqual([
      expect.objectContaining({ body: { room_member_limit: 8 } }),
    ]);
    expect(screen.queryByText('Escribe un número entero entre 2 y 64.')).not.toBeInTheDocument();
  });

  it('shows the server message when a setting cannot be saved', async () => {
    signedIn({
      'GET /api/admin/settings': { body: settings },
      'PATCH /api/admin/settings': { status: 400, body: { message: 'Ajuste no válido' } },
    });
    renderApp('/manager/dashboard/settings');
    await userEvent.click(await screen.findByRole('switch', { name: 'Permitir registros' }));
    expect(await screen.findByText('Ajuste no válido')).toBeInTheDocument();
    expect(screen.getByRole('switch', { name: 'Permitir registros' })).toHaveAttribute(
      'aria-checked',
      'true',
    );
  });
});
