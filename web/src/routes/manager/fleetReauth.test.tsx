/**
 * Issue 31 in the console: adding a server, rotating its agent token, changing its host or port,
 * deleting it and moving a customer's peer need the manager's password again. The fake answers as
 * the server does (403 `reauth_required` without a confirmation it issued); the page asks in the
 * re-confirmation dialog and repeats the call with X-Reauth. Renaming goes through without it.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import type { AdminPeerDetail } from '../../api/adminCatalog';
import type { AdminServerDetail } from '../../api/adminFleet';
import { fakeApi, type Handler, type Reply } from '../../test/api';
import { MADRID } from '../../test/console';
import { renderApp } from '../../test/render';
import { setViewportWidth } from '../../test/viewport';

beforeEach(() => setViewportWidth(1280));

const madrid = MADRID;
const madridDetail: AdminServerDetail = {
  ...madrid,
  agent_latest_version: '1.2.0',
  revision_lag: 0,
  online_peers: 0,
  drain: null,
};

const refusal: Reply = {
  status: 403,
  body: {
    message: 'Por seguridad, confirme su contraseña (y su código de verificación) para continuar',
    code: 'reauth_required',
  },
};

/**
 * A fake control plane whose confirmation (`token`) is issued for the password 'clave-buena' and
 * asked by the guarded routes, as plugins/reauth.ts does.
 */
function console_(token: string, routes: Record<string, Handler>, guarded: Record<string, Handler>) {
  localStorage.setItem('manager_access', 'm-a');
  const wrapped = Object.fromEntries(
    Object.entries(guarded).map(([route, handler]) => [
      route,
      (call: Parameters<Exclude<Handler, Reply>>[0]) =>
        call.headers['x-reauth'] !== token
          ? refusal
          : typeof handler === 'function'
            ? handler(call)
            : handler,
    ]),
  );
  return fakeApi({
    'GET /api/admin/verify-token': { body: { id: 1, username: 'admin', role: 'operations' } },
    'GET /api/admin/servers': { body: { count: 1, results: [madrid] } },
    'GET /api/admin/servers/3': { body: madridDetail },
    'GET /api/admin/servers/3/peers': { body: { count: 0, results: [] } },
    'POST /api/admin/me/reauth': (call) =>
      (call.body as { password: string }).password === 'clave-buena'
        ? { body: { token, expires_in: 300 } }
        : { status: 400, body: { message: 'La contraseña no es correcta' } },
    ...routes,
    ...wrapped,
  });
}

/** The re-confirmation dialog: it must be there; the password is typed and confirmed. */
async function confirmPassword(password = 'clave-buena') {
  const dialog = await screen.findByRole('dialog', { name: 'Confirme que es usted' });
  await userEvent.type(within(dialog).getByLabelText('Contraseña'), password);
  await userEvent.click(within(dialog).getByRole('button', { name: 'Confirmar' }));
  return dialog;
}

const headersOf = (api: ReturnType<typeof fakeApi>, route: string) =>
  api.callsTo(route).map((c) => c.headers['x-reauth'] ?? null);

describe('Servidores asks for the password before what could hand a node over', { timeout: 30_000 }, () => {
  it('a new server: asks, then creates it and shows the install command; a later host change reuses the confirmation', async () => {
    const api = console_(
      'conf-nuevo',
      { 'PATCH /api/admin/servers/3': (call) => ({ body: { ...madrid, ...(call.body as object) } }) },
      {
        'POST /api/admin/servers': {
          status: 201,
          body: {
            server: { ...madrid, id: 4, name: 'Toronto' },
            agent_token: 'tok-secreto',
            install_command: 'curl … tok-secreto',
          },
        },
      },
    );
    renderApp('/manager/dashboard/servers');
    await userEvent.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    const form = await screen.findByRole('dialog', { name: 'Nuevo servidor' });
    await userEvent.type(within(form).getByLabelText('Nombre'), 'Toronto');
    await userEvent.type(within(form).getByLabelText('Endpoint (host:puerto)'), 'tor.example.com:51821');
    await userEvent.type(within(form).getByLabelText('Ubicación'), 'Toronto');
    await userEvent.click(within(form).getByRole('button', { name: 'Crear servidor' }));
    // A wrong password is said in the dialog; the right one sends the creation again.
    const dialog = await confirmPassword('clave-mala');
    expect(await within(dialog).findByText('La contraseña no es correcta')).toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText('Contraseña'));
    await confirmPassword();
    expect(await screen.findByRole('dialog', { name: 'Instalar el agente' })).toBeInTheDocument();
    expect(headersOf(api, 'POST /api/admin/servers')).toEqual([null, 'conf-nuevo']);
    await userEvent.click(screen.getAllByRole('button', { name: 'Cerrar' })[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    // A rename goes without asking; the same page's confirmation covers a new host a moment later.
    api.on('PATCH /api/admin/servers/3', (call) =>
      'host' in (call.body as object) && call.headers['x-reauth'] !== 'conf-nuevo'
        ? refusal
        : { body: { ...madrid, ...(call.body as object) } },
    );
    await userEvent.click(await screen.findByText('Madrid'));
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Editar' }));
    const edit = await screen.findByRole('dialog', { name: 'Editar servidor' });
    await userEvent.clear(within(edit).getByLabelText('Host'));
    await userEvent.type(within(edit).getByLabelText('Host'), 'mad2.vpn.example.com');
    await userEvent.click(within(edit).getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByText('Servidor actualizado correctamente')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/servers/3').map((c) => c.body)).toEqual([
      { host: 'mad2.vpn.example.com' },
      { host: 'mad2.vpn.example.com' },
    ]);
    expect(headersOf(api, 'PATCH /api/admin/servers/3')).toEqual([null, 'conf-nuevo']);
    expect(screen.queryByRole('dialog', { name: 'Confirme que es usted' })).not.toBeInTheDocument();
  });

  it('a cancelled deletion changes nothing; rotating the token asks, then goes through', async () => {
    const api = console_(
      'conf-rotar',
      {},
      {
        'POST /api/admin/servers/3/token': {
          body: { agent_token: 'tok-nuevo', install_command: 'curl … tok-nuevo' },
        },
        'DELETE /api/admin/servers/3': { status: 204 },
      },
    );
    renderApp('/manager/dashboard/servers?server=3');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });

    // Cancelled: the refusal's own message, no second call.
    await userEvent.click(await within(panel).findByRole('button', { name: 'Eliminar' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog', { name: 'Eliminar servidor' })).getByRole('button', {
        name: 'Eliminar Madrid',
      }),
    );
    const asked = await screen.findByRole('dialog', { name: 'Confirme que es usted' });
    await userEvent.click(within(asked).getByRole('button', { name: 'Cancelar' }));
    expect(
      await screen.findByText(
        'Por seguridad, confirme su contraseña (y su código de verificación) para continuar',
      ),
    ).toBeInTheDocument();
    expect(headersOf(api, 'DELETE /api/admin/servers/3')).toEqual([null]);

    await userEvent.click(within(panel).getByRole('button', { name: 'Rotar token' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog', { name: 'Rotar token' })).getByRole('button', {
        name: 'Rotar el token de Madrid',
      }),
    );
    await confirmPassword();
    expect(await screen.findByRole('dialog', { name: 'Instalar el agente' })).toBeInTheDocument();
    expect(headersOf(api, 'POST /api/admin/servers/3/token')).toEqual([null, 'conf-rotar']);
  });
});

describe(
  'Peers asks for the password before moving a customer to another server',
  { timeout: 30_000 },
  () => {
    it('asks, then moves the peer', async () => {
      const peer = {
        id: 9,
        name: 'Móvil de Ana',
        owner: { id: 5, username: 'ana', disabled: false },
        server: { id: 3, name: 'Madrid' },
        address: '10.64.0.9',
        public_key: 'pk9=',
        active: true,
        enabled: true,
        expires_at: null,
        manual_payment: false,
        party: null,
        processing: null,
        created: '2025-03-05T10:00:00.000Z',
        concurrent_use: null,
        speed: { down_mbit: null, up_mbit: null, reduced: null },
      };
      const detail = {
        ...peer,
        plans_history: [],
        usage: {
          rx_bytes: 0,
          tx_bytes: 0,
          rx_bytes_30d: 0,
          tx_bytes_30d: 0,
          last_handshake: null,
          endpoint: null,
          online: false,
          period: { since: '2025-03-05T10:00:00.000Z', upload: 0, download: 0, allowance: null, used: 0 },
          days_from: '2025-02-05',
          upload: [],
          download: [],
        },
      } as unknown as AdminPeerDetail;
      const habana = { ...madrid, id: 4, name: 'Habana', ubication: 'La Habana' };
      const api = console_(
        'conf-mover',
        {
          'GET /api/admin/peers': { body: { count: 1, results: [peer] } },
          'GET /api/admin/servers': { body: { count: 2, results: [madrid, habana] } },
          'GET /api/admin/peers/9': { body: detail },
        },
        {
          'PATCH /api/admin/peers/9': {
            body: { ...detail, server: { id: 4, name: 'Habana' }, processing: 'change_server' },
          },
        },
      );
      renderApp('/manager/dashboard/peers');
      await userEvent.click(await screen.findByText('Móvil de Ana'));
      const panel = await screen.findByRole('dialog', { name: 'Peer Móvil de Ana' });
      await userEvent.click(await within(panel).findByRole('button', { name: 'Cambiar servidor' }));
      const move = await screen.findByRole('dialog', { name: 'Cambiar de servidor Móvil de Ana' });
      await userEvent.selectOptions(
        await within(move).findByLabelText('Servidor de destino'),
        'Habana — La Habana',
      );
      await userEvent.click(within(move).getByRole('button', { name: 'Cambiar servidor' }));
      await confirmPassword();
      expect(await screen.findByText('Peer Móvil de Ana enviado al servidor Habana')).toBeInTheDocument();
      expect(headersOf(api, 'PATCH /api/admin/peers/9')).toEqual([null, 'conf-mover']);
    });
  },
);
