import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { catalogMsg } from '@vpn/contracts';
import type {
  AdminRoom,
  AdminRoomDetail,
  AdminPeer,
  AdminPeerDetail,
  AdminPlan,
} from '../../../api/adminCatalog';
import type { AdminServer } from '../../../api/adminFleet';
import { fakeApi, unlimitedSpeed, type Handler } from '../../../test/api';
import { renderApp } from '../../../test/render';
import { setViewportWidth } from '../../../test/viewport';

function signedIn(routes: Record<string, Handler>, role = 'owner') {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: { id: 1, username: 'admin', role } }, ...routes });
}
// Each test walks several dialogs, and the first render of a run loads the console's code: a
// loaded machine needs more than the default 5 s per test (finds wait up to 10 s: test/setup.ts).
vi.setConfig({ testTimeout: 20_000 });
beforeEach(() => setViewportWidth(1280));
afterEach(() => localStorage.clear());

/** The query strings the page asked a list with (the fake API matches paths only). */
function queriesTo(path: string): URLSearchParams[] {
  return vi
    .mocked(fetch)
    .mock.calls.map(([input]) => new URL(String(input), 'http://localhost'))
    .filter((u) => u.pathname === path)
    .map((u) => u.searchParams);
}

const plan = (over: Partial<AdminPlan> = {}): AdminPlan => ({
  id: 1,
  name: 'Mensual',
  description: 'Un mes',
  price: '5.00',
  validity_days: 30,
  hidden: false,
  data_gb: null,
  sort_order: 0,
  ...unlimitedSpeed,
  invoices: 0,
  created: '2025-03-05T10:00:00.000Z',
  ...over,
});

const madrid = { id: 3, name: 'Madrid', ubication: 'Madrid, España', active: true } as AdminServer;
const habana = { id: 4, name: 'Habana', ubication: 'La Habana', active: true } as AdminServer;

const peer: AdminPeer = {
  id: 9,
  name: 'Móvil de Ana',
  owner: { id: 5, username: 'ana', disabled: false },
  server: { id: 3, name: 'Madrid' },
  address: '10.64.0.9',
  public_key: 'pk9=',
  active: true,
  enabled: true,
  expires_at: '2025-04-05T10:00:00.000Z',
  manual_payment: false,
  party: null,
  processing: null,
  created: '2025-03-05T10:00:00.000Z',
  concurrent_use: null,
  speed: { down_mbit: null, up_mbit: null, reduced: null },
};
const detail: AdminPeerDetail = {
  ...peer,
  plans_history: [
    {
      plan_name: 'Regalo',
      plan_price: '5.00',
      validity_days: 30,
      created: '2025-03-06T10:00:00.000Z',
      invoice_id: null,
      manual: true,
      reason: 'Compensación',
      granted_by: 'soporte1',
      refunded: null,
    },
    {
      plan_name: 'Mensual',
      plan_price: '3.50',
      validity_days: 30,
      created: '2025-03-05T10:00:00.000Z',
      invoice_id: '0b8f5c2e-4a8e-4b8a-9d6e-3f1f2a0c9e11',
      manual: false,
      reason: null,
      granted_by: null,
      refunded: '2025-03-07T10:00:00.000Z',
    },
  ],
  usage: {
    rx_bytes: 3 * 1024 ** 3,
    tx_bytes: 512 * 1024 ** 2,
    rx_bytes_30d: 1024,
    tx_bytes_30d: 2048,
    last_handshake: '2025-03-06T10:00:00.000Z',
    endpoint: '203.0.113.5:4242',
    online: true,
    period: {
      since: '2025-03-05T10:00:00.000Z',
      upload: 1024,
      download: 2 * 1024 ** 2,
      allowance: null,
      used: 0,
    },
    days_from: '2025-02-05',
    upload: Array.from({ length: 30 }, () => 0),
    download: Array.from({ length: 30 }, (_, i) => (i === 29 ? 2 * 1024 ** 2 : 0)),
  },
};

describe('Planes', () => {
  it('creates a plan, refusing a bad price with the API’s own message before any request', async () => {
    const api = signedIn({
      'GET /api/admin/plans': { body: { count: 1, results: [plan()] } },
      'POST /api/admin/plans': { status: 201, body: plan({ id: 2, name: 'Anual', price: '40.00' }) },
    });
    renderApp('/manager/dashboard/plans');
    expect(await screen.findByRole('table', { name: 'Planes' })).toHaveTextContent('Mensual');
    await userEvent.click(screen.getByRole('button', { name: 'Nuevo plan' }));
    const dialog = await screen.findByRole('dialog', { name: 'Nuevo plan' });
    await userEvent.type(within(dialog).getByLabelText('Nombre'), 'Anual');
    await userEvent.type(within(dialog).getByLabelText('Precio (USD)'), '40.001');
    await userEvent.clear(within(dialog).getByLabelText('Validez (días)'));
    await userEvent.type(within(dialog).getByLabelText('Validez (días)'), '365');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear plan' }));
    expect(await within(dialog).findByText(catalogMsg.planPriceFormat)).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/plans')).toHaveLength(0);

    await userEvent.clear(within(dialog).getByLabelText('Precio (USD)'));
    await userEvent.type(within(dialog).getByLabelText('Precio (USD)'), '40,00');
    // A data allowance in GB: 0 is refused with the API's message; empty would mean unlimited.
    await userEvent.type(within(dialog).getByLabelText('Datos (GB)'), '0');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear plan' }));
    expect(await within(dialog).findByText(catalogMsg.planDataGb)).toBeInTheDocument();
    await userEvent.clear(within(dialog).getByLabelText('Datos (GB)'));
    await userEvent.type(within(dialog).getByLabelText('Datos (GB)'), '2,5');
    // Issue 35: sold at 2 Mbit/s down and 1.5 up; out of data, reduced instead of cut; 3 days of grace.
    await userEvent.type(within(dialog).getByLabelText('Velocidad de bajada (Mbit/s)'), '2');
    await userEvent.type(within(dialog).getByLabelText('Velocidad de subida (Mbit/s)'), '1,5');
    await userEvent.selectOptions(
      within(dialog).getByLabelText('Al agotar los datos'),
      'Reducir la velocidad hasta un nuevo plan',
    );
    await userEvent.clear(within(dialog).getByLabelText('Gracia tras el vencimiento (días)'));
    await userEvent.type(within(dialog).getByLabelText('Gracia tras el vencimiento (días)'), '3');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear plan' }));
    expect(await screen.findByText('Plan Anual creado')).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/plans')).toHaveLength(1);
    expect(api.callsTo('POST /api/admin/plans')[0]?.body).toEqual({
      name: 'Anual',
      description: '',
      price: '40.00',
      validity_days: 365,
      data_gb: 2.5,
      hidden: false,
      sort_order: 0,
      speed_down_mbit: 2,
      speed_up_mbit: 1.5,
      on_data_exhausted: 'reduce',
      reduced_kbit: 256,
      grace_days: 3,
    });
  });

  it('hides a plan, and shows the 409 message when a plan with invoices cannot be deleted', async () => {
    const api = signedIn({
      'GET /api/admin/plans': { body: { count: 1, results: [plan({ invoices: 3 })] } },
      'PATCH /api/admin/plans/1': { body: plan({ hidden: true }) },
      'DELETE /api/admin/plans/1': { status: 409, body: { message: catalogMsg.planHasInvoices } },
    });
    renderApp('/manager/dashboard/plans');
    await userEvent.click(await screen.findByRole('button', { name: 'Ocultar Mensual' }));
    expect(await screen.findByText('Plan Mensual oculto: ya no se ofrece')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/plans/1')[0]?.body).toEqual({ hidden: true });

    await userEvent.click(screen.getByRole('button', { name: 'Eliminar Mensual' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Eliminar plan' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Eliminar Mensual' }));
    expect(await screen.findByText(catalogMsg.planHasInvoices)).toBeInTheDocument();
  });

  it('lets support read plans without any write button', async () => {
    signedIn({ 'GET /api/admin/plans': { body: { count: 1, results: [plan()] } } }, 'support');
    renderApp('/manager/dashboard/plans');
    expect(await screen.findByRole('table', { name: 'Planes' })).toHaveTextContent('Mensual');
    expect(screen.queryByRole('button', { name: 'Nuevo plan' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Eliminar Mensual' })).not.toBeInTheDocument();
  });
});

describe('Peers', () => {
  it('searches, filters by server and state in the URL, and pages through the database', async () => {
    signedIn({
      'GET /api/admin/peers': { body: { count: 60, results: [peer] } },
      'GET /api/admin/servers': { body: { count: 2, results: [madrid, habana] } },
    });
    const { router } = renderApp('/manager/dashboard/peers');
    expect(await screen.findByRole('table', { name: 'Peers' })).toHaveTextContent('Móvil de Ana');
    expect(screen.queryByRole('link', { name: 'Peer manual' })).not.toBeInTheDocument();

    await userEvent.type(screen.getByLabelText('Buscar'), 'ana');
    await waitFor(() => expect(router.state.location.search).toBe('?q=ana'));
    // The page has re-rendered with the search once it asked the API for it.
    await waitFor(() => expect(queriesTo('/api/admin/peers').at(-1)?.get('q')).toBe('ana'));
    await userEvent.selectOptions(await screen.findByLabelText('Servidor'), 'Habana');
    await waitFor(() => expect(queriesTo('/api/admin/peers').at(-1)?.get('server')).toBe('4'));
    await userEvent.selectOptions(screen.getByLabelText('Estado'), 'Vencen en 7 días');
    await waitFor(() => expect(router.state.location.search).toBe('?q=ana&server=4&state=expiring'));
    await waitFor(() =>
      expect(queriesTo('/api/admin/peers').at(-1)?.toString()).toBe(
        'q=ana&page=1&page_size=25&server=4&state=expiring',
      ),
    );
    await userEvent.click(screen.getByRole('button', { name: 'Página siguiente' }));
    await waitFor(() => expect(queriesTo('/api/admin/peers').at(-1)?.get('page')).toBe('2'));
  });

  it('opens a peer with its history and usage, and grants a plan with a required reason', async () => {
    const api = signedIn({
      'GET /api/admin/peers': { body: { count: 1, results: [peer] } },
      'GET /api/admin/servers': { body: { count: 2, results: [madrid, habana] } },
      'GET /api/admin/peers/9': { body: detail },
      'GET /api/admin/plans': {
        body: { count: 2, results: [plan(), plan({ id: 7, name: 'Cortesía', hidden: true })] },
      },
      'PATCH /api/admin/peers/9': { body: detail },
    });
    renderApp('/manager/dashboard/peers');
    await userEvent.click(await screen.findByText('Móvil de Ana'));
    const panel = await screen.findByRole('dialog', { name: 'Peer Móvil de Ana' });
    expect(await within(panel).findByText('Concedido por soporte1')).toBeInTheDocument();
    expect(within(panel).getByText('Compensación')).toBeInTheDocument();
    expect(within(panel).getByText(/^Pago reembolsado el .*: su periodo se retiró$/)).toBeInTheDocument();
    expect(within(panel).getByText('↓ 3 GB · ↑ 512 MB')).toBeInTheDocument();
    // What the customer sees, per peer: online, the period's traffic, the 30-day chart.
    expect(within(panel).getByText('En línea')).toBeInTheDocument();
    expect(panel).toHaveTextContent('Bajada 2 MB · Subida 1 KB');
    expect(within(panel).getByRole('img', { name: /últimos 30 días: 2 MB en total/ })).toBeInTheDocument();

    await userEvent.click(within(panel).getByRole('button', { name: 'Conceder plan' }));
    const grant = await screen.findByRole('dialog', { name: 'Conceder plan a Móvil de Ana' });
    const planSelect = await within(grant).findByLabelText('Plan');
    await within(planSelect).findByText(/^Cortesía \(oculto\) — 5,00\sUS\$ · 30 días$/);
    await userEvent.selectOptions(planSelect, '7');
    await userEvent.click(within(grant).getByRole('button', { name: 'Conceder plan' }));
    expect(await within(grant).findByText('Indique el motivo (al menos 3 caracteres)')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/peers/9')).toHaveLength(0);
    await userEvent.type(within(grant).getByLabelText('Motivo'), 'Caída del martes');
    await userEvent.click(within(grant).getByRole('button', { name: 'Conceder plan' }));
    expect(await screen.findByText('Plan Cortesía concedido a Móvil de Ana')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/peers/9')[0]?.body).toEqual({
      operation: 'grant',
      plan: 7,
      reason: 'Caída del martes',
    });
  });

  it('moves a peer to another server and switches it off', async () => {
    const api = signedIn({
      'GET /api/admin/peers': { body: { count: 1, results: [peer] } },
      'GET /api/admin/servers': { body: { count: 2, results: [madrid, habana] } },
      'GET /api/admin/peers/9': { body: detail },
      'PATCH /api/admin/peers/9': (call) => ({
        body:
          (call.body as { operation?: string }).operation === 'change_server'
            ? { ...detail, server: { id: 4, name: 'Habana' }, processing: 'change_server' }
            : { ...detail, active: false, enabled: false },
      }),
    });
    renderApp('/manager/dashboard/peers');
    await userEvent.click(await screen.findByText('Móvil de Ana'));
    const panel = await screen.findByRole('dialog', { name: 'Peer Móvil de Ana' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Cambiar servidor' }));
    const move = await screen.findByRole('dialog', { name: 'Cambiar de servidor Móvil de Ana' });
    const select = await within(move).findByLabelText('Servidor de destino');
    // The peer's own server is not offered.
    expect(within(select).queryByText('Madrid — Madrid, España')).not.toBeInTheDocument();
    await userEvent.selectOptions(select, 'Habana — La Habana');
    await userEvent.click(within(move).getByRole('button', { name: 'Cambiar servidor' }));
    expect(await screen.findByText('Peer Móvil de Ana enviado al servidor Habana')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/peers/9')[0]?.body).toEqual({
      operation: 'change_server',
      server: 4,
    });

    api.on('GET /api/admin/peers/9', { body: detail });
    await userEvent.click(within(panel).getByRole('button', { name: 'Desactivar' }));
    const off = await screen.findByRole('dialog', { name: 'Desactivar Móvil de Ana' });
    await userEvent.type(within(off).getByLabelText('Motivo (opcional)'), 'Impago');
    await userEvent.click(within(off).getByRole('button', { name: 'Desactivar' }));
    expect(await screen.findByText('Peer Móvil de Ana desactivado')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/peers/9')[1]?.body).toEqual({ active: false, reason: 'Impago' });
  });

  it("creates a manual peer from the Peers page's button, hidden plans included", async () => {
    const api = signedIn({
      'GET /api/admin/peers': { body: { count: 0, results: [] } },
      'GET /api/admin/servers': { body: { count: 1, results: [madrid] } },
      'GET /api/admin/plans': {
        body: { count: 1, results: [plan({ id: 2, name: 'Trimestral', hidden: true })] },
      },
      'POST /api/admin/peers': { status: 201, body: { id: 9, name: 'movil' } },
    });
    renderApp('/manager/dashboard/peer');
    expect(await screen.findByText('Aún no hay peers.')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Peer manual' }));
    const dialog = await screen.findByRole('dialog', { name: 'Peer manual' });
    await userEvent.type(within(dialog).getByLabelText('Usuario del cliente'), 'pepa');
    await userEvent.selectOptions(await within(dialog).findByLabelText('Plan'), 'Trimestral (oculto)');
    await userEvent.type(within(dialog).getByLabelText('Nombre del peer'), 'movil');
    await userEvent.selectOptions(within(dialog).getByLabelText('Servidor'), 'Madrid — Madrid, España');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Crear peer' }));
    expect(await screen.findByText('Peer movil creado para pepa')).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/peers')[0]?.body).toEqual({
      username: 'pepa',
      plan: 2,
      name: 'movil',
      server: 3,
    });
  });
});

describe('Salas', () => {
  const room: AdminRoom = {
    id: 4,
    name: 'Minecraft',
    owner: { id: 5, username: 'ana', alias: 'Ana' },
    members: 2,
    servers: [{ id: 3, name: 'Madrid' }],
    processing: false,
    created: '2025-03-05T10:00:00.000Z',
  };
  const roomDetail: AdminRoomDetail = {
    ...room,
    peers: [
      {
        peer: { id: 9, name: 'PC de Ana' },
        customer: { id: 5, username: 'ana', alias: 'Ana' },
        private_ip: '10.64.0.9',
        server: { id: 3, name: 'Madrid' },
        joined: null,
      },
    ],
  };

  it('lists rooms, opens one with its members and deletes it with a required reason', async () => {
    const api = signedIn({
      'GET /api/admin/partys': { body: { count: 1, results: [room] } },
      'GET /api/admin/partys/4': { body: roomDetail },
      'DELETE /api/admin/partys/4': { status: 204 },
    });
    renderApp('/manager/dashboard/partys');
    const table = await screen.findByRole('table', { name: 'Salas' });
    expect(table).toHaveTextContent('Ana (ana)');
    await userEvent.click(within(table).getByText('Minecraft'));
    const panel = await screen.findByRole('dialog', { name: 'Sala Minecraft' });
    expect(await within(panel).findByText('10.64.0.9')).toBeInTheDocument();
    expect(within(panel).getByText('PC de Ana')).toBeInTheDocument();

    await userEvent.click(within(panel).getByRole('button', { name: 'Eliminar sala' }));
    const confirm = await screen.findByRole('dialog', { name: 'Eliminar sala' });
    await userEvent.click(within(confirm).getByRole('button', { name: 'Eliminar sala' }));
    expect(await within(confirm).findByText('Indique el motivo (al menos 3 caracteres)')).toBeInTheDocument();
    expect(api.callsTo('DELETE /api/admin/partys/4')).toHaveLength(0);
    await userEvent.type(within(confirm).getByLabelText('Motivo'), 'Nombre ofensivo');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Eliminar sala' }));
    expect(await screen.findByText('Sala Minecraft eliminada')).toBeInTheDocument();
    expect(api.callsTo('DELETE /api/admin/partys/4')[0]?.body).toEqual({ reason: 'Nombre ofensivo' });
  });

  it('shows rooms as cards on a phone', async () => {
    setViewportWidth(390);
    signedIn({ 'GET /api/admin/partys': { body: { count: 1, results: [room] } } });
    renderApp('/manager/dashboard/partys');
    const list = await screen.findByRole('list', { name: 'Salas' });
    expect(within(list).getByRole('button', { name: 'Minecraft' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });
});
