import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminServer, AdminServerDetail, MetricsSeries } from '../../api/adminFleet';
import { fakeApi } from '../../test/api';
import type { Handler } from '../../test/api';
import { MADRID, SETTINGS } from '../../test/console';
import { renderApp } from '../../test/render';
import { setViewportWidth } from '../../test/viewport';
import { FakeWebSocket } from '../../test/websocket';

// uPlot draws on a canvas jsdom does not have: a stand-in records what each chart was given.
const charts = vi.hoisted(() => [] as { opts: { series: { label?: string }[] }; data: number[][] }[]);
vi.mock('uplot', () => {
  class FakePlot {
    static tzDate = (d: Date) => d;
    static paths = { bars: () => () => null };
    constructor(opts: { series: { label?: string }[] }, data: number[][]) {
      charts.push({ opts, data });
    }
    setSize() {}
    destroy() {}
  }
  return { default: FakePlot };
});

const owner = { id: 1, username: 'admin', role: 'owner' };

const madrid: AdminServer = {
  ...MADRID,
  relay: { active: true, relayed: 1234, dropped: 56, reported_at: '2025-03-05T10:00:00.000Z', error: null },
  acked_revision: 5,
  peers: 12,
};
const madridDetail: AdminServerDetail = {
  ...madrid,
  agent_latest_version: '1.2.0',
  revision_lag: 2,
  online_peers: 4,
  drain: null,
};

function signedIn(routes: Record<string, Handler>, manager = owner) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: manager }, ...routes });
}

const serverRoutes = (extra: Record<string, Handler> = {}): Record<string, Handler> => ({
  'GET /api/admin/servers': { body: { count: 1, results: [madrid] } },
  'GET /api/admin/servers/3': { body: madridDetail },
  'GET /api/admin/servers/3/peers': {
    body: {
      count: 11,
      results: [
        {
          id: 40,
          name: 'movil',
          customer: 'pepa',
          address: '10.64.0.9',
          active: true,
          expires_at: null,
          party: null,
          online: true,
        },
      ],
    },
  },
  ...extra,
});

// Typing into several fields takes a few seconds on a loaded machine.
describe('Servidores', { timeout: 20_000 }, () => {
  beforeEach(() => setViewportWidth(1280));

  it('searches (in the URL), opens a server with its live status and paged peers', async () => {
    const queries: string[] = [];
    const api = signedIn(serverRoutes());
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
      if (url.pathname === '/api/admin/servers') queries.push(url.search);
      return realFetch(input, init);
    });
    const app = renderApp('/manager/dashboard/servers');
    const table = await screen.findByRole('table', { name: 'Servidores' });
    const row = within(table).getByRole('row', { name: /Madrid/ });
    expect(row).toHaveTextContent('En línea');
    expect(row).toHaveTextContent('12');

    await userEvent.type(screen.getByLabelText('Buscar servidores'), 'mad');
    await waitFor(() => expect(queries.at(-1)).toBe('?page=1&page_size=25&q=mad'));
    expect(app.router.state.location.search).toBe('?q=mad');

    await userEvent.click(within(table).getByText('Madrid'));
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    expect(app.router.state.location.search).toContain('server=3');
    expect(within(panel).getByText('Cambios pendientes de aplicar').nextSibling).toHaveTextContent(
      '2 revisión(es)',
    );
    expect(within(panel).getByText('Versión del agente').nextSibling).toHaveTextContent(
      '1.2.0 (Node 18.19.1)',
    );
    expect(panel).not.toHaveTextContent('desactualizado');
    expect(within(panel).getByText('Peers en línea (últimos 3 min)').nextSibling).toHaveTextContent('4 / 12');
    const peers = await within(panel).findByRole('table', { name: 'Peers del servidor' });
    expect(within(peers).getByRole('row', { name: /movil/ })).toHaveTextContent('pepa');
    // 11 peers, 10 per page: a second page.
    await userEvent.click(within(panel).getByRole('button', { name: 'Página siguiente' }));
    await waitFor(() => expect(api.callsTo('GET /api/admin/servers/3/peers')).toHaveLength(2));
  });

  it('creates a server and shows the install command once, with a copy button', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const command =
      "{ echo AGENT_TOKEN='tok-secreto'; curl -fsSL 'https://panel.example.com/api/agent/install.sh'; } | sudo bash";
    const api = signedIn(
      serverRoutes({
        'POST /api/admin/servers': {
          status: 201,
          body: {
            server: { ...madrid, id: 4, name: 'Toronto' },
            agent_token: 'tok-secreto',
            install_command: command,
          },
        },
      }),
    );
    renderApp('/manager/dashboard/servers');
    await userEvent.click(await screen.findByRole('button', { name: 'Nuevo servidor' }));
    const form = await screen.findByRole('dialog', { name: 'Nuevo servidor' });
    await userEvent.type(within(form).getByLabelText('Nombre'), 'Toronto');
    await userEvent.type(within(form).getByLabelText('Endpoint (host:puerto)'), 'tor.example.com:51821');
    await userEvent.type(within(form).getByLabelText('Ubicación'), 'Toronto');
    await userEvent.click(within(form).getByRole('button', { name: 'Crear servidor' }));
    const dialog = await screen.findByRole('dialog', { name: 'Instalar el agente' });
    expect(api.callsTo('POST /api/admin/servers')[0]?.body).toMatchObject({ name: 'Toronto' });
    expect(within(dialog).getByLabelText('Comando de instalación').textContent).toBe(command);
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copiar el comando de instalación' }));
    expect(writeText).toHaveBeenCalledWith(command);
    await userEvent.click(within(dialog).getAllByRole('button', { name: 'Cerrar' })[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByText(/tok-secreto/)).not.toBeInTheDocument();
  });

  it('edits a server sending only what changed', async () => {
    const api = signedIn(
      serverRoutes({
        'PATCH /api/admin/servers/3': (call) => ({ body: { ...madrid, ...(call.body as object) } }),
      }),
    );
    renderApp('/manager/dashboard/servers?server=3');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Editar' }));
    const form = await screen.findByRole('dialog', { name: 'Editar servidor' });
    const port = within(form).getByLabelText('Puerto');
    await userEvent.clear(port);
    await userEvent.type(port, '70000');
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar cambios' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('El puerto debe estar entre 1 y 65535');
    await userEvent.clear(port);
    await userEvent.type(port, '51900');
    await userEvent.click(within(form).getByLabelText('Permitir salas'));
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByText('Servidor actualizado correctamente')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/servers/3')[0]?.body).toEqual({ port: 51900, allow_partys: false });
  });

  it('shows whether each node relays game discovery, and switches it off for one server', async () => {
    const quiet: AdminServer = {
      ...madrid,
      id: 5,
      name: 'Lima',
      ubication: 'Perú',
      allow_discovery: false,
      relay: { active: false, relayed: 10, dropped: 0, reported_at: null, error: null },
    };
    const old: AdminServer = {
      ...madrid,
      id: 6,
      name: 'Quito',
      ubication: 'Ecuador',
      relay: { active: null, relayed: 0, dropped: 0, reported_at: null, error: null },
    };
    // This test's own counters (not the shared fixture's), so no other test's data can reach it.
    const relay = { active: true, relayed: 12345, dropped: 56, reported_at: null, error: null };
    const relaying: AdminServer = { ...madrid, allow_discovery: true, relay };
    const api = signedIn(
      serverRoutes({
        'GET /api/admin/servers': { body: { count: 3, results: [relaying, quiet, old] } },
        'GET /api/admin/servers/3': { body: { ...madridDetail, allow_discovery: true, relay } },
        'PATCH /api/admin/servers/3': (call) => ({ body: { ...relaying, ...(call.body as object) } }),
      }),
    );
    renderApp('/manager/dashboard/servers');
    const table = await screen.findByRole('table', { name: 'Servidores' });
    expect(within(table).getByRole('columnheader', { name: 'Descubrimiento' })).toBeInTheDocument();
    expect(within(table).getByRole('row', { name: /Madrid/ })).toHaveTextContent('Reenvía');
    expect(within(table).getByRole('row', { name: /Lima/ })).toHaveTextContent('No reenvía');
    expect(within(table).getByRole('row', { name: /Quito/ })).toHaveTextContent('Sin datos');

    await userEvent.click(within(table).getByText('Madrid'));
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    // Written out: Spanish groups thousands with a point.
    expect(within(panel).getByText('Descubrimiento de juegos').nextSibling).toHaveTextContent(
      'Reenvía · 12.345 reenviados, 56 descartados',
    );
    await userEvent.click(await within(panel).findByRole('button', { name: 'Editar' }));
    const form = await screen.findByRole('dialog', { name: 'Editar servidor' });
    const box = within(form).getByLabelText('Descubrimiento de juegos en las salas (difusión y multicast)');
    expect(box).toBeChecked();
    await userEvent.click(box);
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar cambios' }));
    expect(await screen.findByText('Servidor actualizado correctamente')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/servers/3')[0]?.body).toEqual({ allow_discovery: false });
  });

  it('drains after confirming with a reason, and the bar follows the admin_drain pushes', async () => {
    // The server's side: the drain's persisted progress, as GET /servers/3 reports it.
    let drain: AdminServerDetail['drain'] = null;
    const progress = (moved: number) => ({
      moved,
      total: 12,
      done: moved === 12,
      started_at: '2025-03-05T10:00:00Z',
      finished_at: null,
      error: null,
    });
    const api = signedIn(
      serverRoutes({
        'GET /api/admin/servers/3': () => ({ body: { ...madridDetail, drain } }),
        'POST /api/admin/servers/3/drain': () => {
          drain = progress(0);
          return { status: 202, body: drain };
        },
      }),
    );
    renderApp('/manager/dashboard/servers?server=3');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Drenar' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Drenar servidor' });
    expect(confirm).toHaveTextContent('sus 12 peers se moverán a otros servidores activos');
    expect(api.callsTo('POST /api/admin/servers/3/drain')).toHaveLength(0);
    await userEvent.type(within(confirm).getByLabelText('Motivo (opcional)'), 'mantenimiento');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Drenar Madrid' }));
    await waitFor(() =>
      expect(api.callsTo('POST /api/admin/servers/3/drain')[0]?.body).toEqual({ reason: 'mantenimiento' }),
    );
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    const bar = await within(panel).findByRole('progressbar', { name: 'Progreso del drenado' });
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    drain = progress(6);
    socket.push({ type: 'admin_drain', server_id: 3, moved: 6, total: 12, done: false });
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '6'));
    expect(panel).toHaveTextContent('6 de 12 peers movidos');
    drain = progress(12);
    socket.push({ type: 'admin_drain', server_id: 3, moved: 12, total: 12, done: true });
    expect(await within(panel).findByText(/Drenado completado/)).toBeInTheDocument();
  });

  it('asks before deleting and shows the 409 sentence when peers remain', async () => {
    const message =
      'No se puede eliminar un servidor con peers (12). Drénelo antes para moverlos a otros servidores.';
    const api = signedIn(serverRoutes({ 'DELETE /api/admin/servers/3': { status: 409, body: { message } } }));
    renderApp('/manager/dashboard/servers?server=3');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    await userEvent.click(await within(panel).findByRole('button', { name: 'Eliminar' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Eliminar servidor' });
    expect(api.callsTo('DELETE /api/admin/servers/3')).toHaveLength(0);
    // Dangerous: red, and it names the server it deletes (issue 34).
    expect(within(confirm).getByRole('button', { name: 'Eliminar Madrid' })).toHaveClass('bg-red-600');
    await userEvent.click(within(confirm).getByRole('button', { name: 'Eliminar Madrid' }));
    expect(await screen.findByText(message)).toBeInTheDocument();
  });

  it('marks an outdated agent, asks it to upgrade, and shows why an upgrade failed', async () => {
    const outdated = { ...madrid, agent_version: '1.1.0', agent_outdated: true };
    let detail: AdminServerDetail = { ...madridDetail, ...outdated, agent_latest_version: '1.2.0' };
    const api = signedIn(
      serverRoutes({
        'GET /api/admin/servers': { body: { count: 1, results: [outdated] } },
        'GET /api/admin/servers/3': () => ({ body: detail }),
        'POST /api/admin/servers/3/agent-upgrade': () => {
          detail = {
            ...detail,
            agent_upgrade: {
              status: 'pending',
              version: '1.2.0',
              error: null,
              at: '2026-01-01T00:00:00.000Z',
            },
          };
          return { status: 202, body: detail };
        },
      }),
    );
    renderApp('/manager/dashboard/servers?server=3');
    const table = await screen.findByRole('table', { name: 'Servidores' });
    expect(within(table).getByRole('row', { name: /Madrid/ })).toHaveTextContent('1.1.0desactualizado');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    expect(await within(panel).findByText('Versión disponible en el panel')).toBeInTheDocument();
    expect(within(panel).getByText('Versión del agente').nextSibling).toHaveTextContent('desactualizado');
    await userEvent.click(within(panel).getByRole('button', { name: 'Actualizar agente' }));
    await waitFor(() => expect(api.callsTo('POST /api/admin/servers/3/agent-upgrade')).toHaveLength(1));
    expect(await within(panel).findByRole('status', { name: 'Actualización del agente' })).toHaveTextContent(
      'Pedida la actualización a la versión 1.2.0',
    );
    // The agent answers that it could not: the push makes the page re-read the server.
    detail = {
      ...detail,
      agent_upgrade: {
        status: 'failed',
        version: '1.2.0',
        error: 'no se pudo reemplazar /opt/vpn-agent/vpn-agent.mjs: EROFS',
        at: '2026-01-01T00:00:00.000Z',
      },
    };
    await waitFor(() => expect(FakeWebSocket.instances.length).toBeGreaterThan(0));
    const socket = FakeWebSocket.latest()!;
    socket.accept();
    socket.push({ type: 'admin_server', server_id: 3 });
    expect(await within(panel).findByRole('alert', { name: 'Actualización del agente' })).toHaveTextContent(
      'sigue funcionando la versión anterior: no se pudo reemplazar /opt/vpn-agent/vpn-agent.mjs: EROFS',
    );
  });

  it('hides writing actions from a support manager', async () => {
    signedIn(serverRoutes(), { id: 2, username: 'sara', role: 'support' });
    renderApp('/manager/dashboard/servers?server=3');
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    await within(panel).findByText('Versión del agente');
    expect(screen.queryByRole('button', { name: 'Nuevo servidor' })).not.toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Drenar' })).not.toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Actualizar agente' })).not.toBeInTheDocument();
  });

  it('shows a relay the node refused, with nft’s reason, in the list and the live status (issue 31)', async () => {
    const reason = 'nft -f - falló (1): Error: Could not process rule: Operation not supported';
    const failing = { active: false, relayed: 0, dropped: 0, reported_at: null, error: reason };
    signedIn(
      serverRoutes({
        'GET /api/admin/servers': { body: { count: 1, results: [{ ...madrid, relay: failing }] } },
        'GET /api/admin/servers/3': { body: { ...madridDetail, relay: failing } },
      }),
    );
    renderApp('/manager/dashboard/servers');
    const table = await screen.findByRole('table', { name: 'Servidores' });
    const badge = within(within(table).getByRole('row', { name: /Madrid/ })).getByText('Falla');
    expect(badge.closest('[title]')).toHaveAttribute(
      'title',
      `El sistema del servidor rechazó las reglas del reenvío: ${reason}. Los peers se aplican igual; el agente lo reintenta.`,
    );
    await userEvent.click(within(table).getByText('Madrid'));
    const panel = await screen.findByRole('complementary', { name: 'Estado en vivo' });
    expect(within(panel).getByText('Descubrimiento de juegos').nextSibling).toHaveTextContent(
      `No reenvía: el sistema del servidor rechazó sus reglas (${reason}). Los peers se aplican igual y el agente lo reintenta.`,
    );
  });
});

const series: MetricsSeries = {
  from: '2026-01-10',
  to: '2026-01-12',
  days: ['2026-01-10', '2026-01-11', '2026-01-12'],
  revenue_usd: [5, 0, 7.5],
  new_customers: [2, 0, 1],
  active_peers: [10, 11, 12],
  servers: [
    {
      id: 3,
      name: 'Madrid',
      agent_online: true,
      peers: 12,
      online_peers: 4,
      rx_bytes: [1, 2, 3],
      tx_bytes: [1, 1, 1],
    },
  ],
};
const headline = { customers: 42, peers: 50, active_peers: 31, servers: 3, servers_online: 2 };

describe('Resumen', { timeout: 20_000 }, () => {
  it('shows the cards and the charts, and reloads the series for another period', async () => {
    charts.length = 0;
    const queries: string[] = [];
    signedIn({
      'GET /api/admin/metrics': { body: { ...headline, invoices_paid_30d: 9, revenue_usd_30d: 45.5 } },
      'GET /api/admin/metrics/series': { body: series },
    });
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
      if (url.pathname === '/api/admin/metrics/series') queries.push(url.search);
      return realFetch(input, init);
    });
    const app = renderApp('/manager/dashboard');
    expect(await screen.findByText('Peers activos')).toBeInTheDocument();
    expect(screen.getByText('Ingresos (30 días)').nextSibling).toHaveTextContent(/45,50\sUS\$/);
    // The charts (a lazy chunk) get the series; their numbers are also in an accessible table.
    const revenue = await screen.findByRole('table', { name: 'Ingresos por día' });
    expect(within(revenue).getByRole('row', { name: /2026-01-12/ })).toHaveTextContent(/7,50\sUS\$/);
    await waitFor(() => expect(charts.length).toBeGreaterThanOrEqual(4));
    const active = charts.find((c) => c.opts.series[1]?.label === 'Peers activos');
    expect(active?.data[1]).toEqual([10, 11, 12]);
    expect(active?.data[0]).toEqual([1768003200, 1768089600, 1768176000]);
    const traffic = charts.find((c) => c.opts.series[1]?.label === 'Madrid');
    expect(traffic?.data[1]).toEqual([2, 3, 4]);
    expect(screen.getByRole('listitem', { name: 'Madrid: Peers 12, En línea 4' })).toBeInTheDocument();

    expect(queries[0]).toMatch(/^\?from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}$/);
    await userEvent.selectOptions(screen.getByLabelText('Periodo'), 'Últimos 7 días');
    await waitFor(() => expect(queries).toHaveLength(2));
    const [from, to] = [...queries[1]!.matchAll(/\d{4}-\d{2}-\d{2}/g)].map((m) => Date.parse(m[0]));
    expect((to! - from!) / 86_400_000).toBe(6);
    expect(app.router.state.location.search).toBe('?range=7');
  });

  it('has no revenue chart or card for a role without revenue', async () => {
    const { revenue_usd: _drop, ...noRevenue } = series;
    signedIn(
      {
        'GET /api/admin/metrics': { body: headline },
        'GET /api/admin/metrics/series': { body: noRevenue },
      },
      { id: 5, username: 'ops', role: 'operations' },
    );
    renderApp('/manager/dashboard');
    await screen.findByRole('table', { name: 'Clientes nuevos por día' });
    expect(screen.queryByText('Ingresos (30 días)')).not.toBeInTheDocument();
    expect(screen.queryByRole('table', { name: 'Ingresos por día' })).not.toBeInTheDocument();
  });
});

const gateways = {
  allow_payments_qvapay: false,
  allow_payments_remesita: false,
  qvapay: { configured: true, source: 'env' },
  remesita: { configured: false, source: 'none' },
};

describe('Ajustes — pasarelas', { timeout: 20_000 }, () => {
  it('shows only set / not set, saves credentials without ever showing them, flips a switch', async () => {
    let state = { ...gateways };
    const api = signedIn({
      'GET /api/admin/settings': { body: SETTINGS },
      'GET /api/admin/settings/gateways': () => ({ body: state }),
      'PATCH /api/admin/settings/gateways': (call) => {
        const body = call.body as { allow_payments_qvapay?: boolean; qvapay?: object };
        state = {
          ...state,
          ...(body.allow_payments_qvapay !== undefined
            ? { allow_payments_qvapay: body.allow_payments_qvapay }
            : {}),
          ...(body.qvapay ? { qvapay: { configured: true, source: 'console' } } : {}),
        };
        return { body: state };
      },
    });
    renderApp('/manager/dashboard/settings');
    const section = await screen.findByRole('region', { name: 'Pasarelas de pago' });
    expect(await within(section).findByText('Configurado por el entorno')).toBeInTheDocument();
    expect(within(section).getByText('No configurado')).toBeInTheDocument();
    // Gateway switches live here only, not among the public ones.
    expect(screen.getAllByRole('switch', { name: 'Pagos con QvaPay' })).toHaveLength(1);

    const form = within(section).getByRole('form', { name: 'Guardar credenciales: Pagos con QvaPay' });
    await userEvent.type(within(form).getByLabelText('App ID'), 'app-9');
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar credenciales' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent('Completa todos los campos.');
    expect(api.callsTo('PATCH /api/admin/settings/gateways')).toHaveLength(0);
    await userEvent.type(within(form).getByLabelText('App Secret'), 's3cr3t');
    expect(within(form).getByLabelText('App Secret')).toHaveAttribute('type', 'password');
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar credenciales' }));
    expect(await screen.findByText('Credenciales guardadas')).toBeInTheDocument();
    expect(api.callsTo('PATCH /api/admin/settings/gateways')[0]?.body).toEqual({
      qvapay: { app_id: 'app-9', app_secret: 's3cr3t' },
    });
    expect(await within(section).findByText('Configurado en Ajustes')).toBeInTheDocument();
    expect(within(form).getByLabelText('App Secret')).toHaveValue('');

    await userEvent.click(within(section).getByRole('switch', { name: 'Pagos con QvaPay' }));
    await waitFor(() =>
      expect(api.callsTo('PATCH /api/admin/settings/gateways')[1]?.body).toEqual({
        allow_payments_qvapay: true,
      }),
    );
  });

  it('Remesita: the API URL is optional and sent only when given', async () => {
    const api = signedIn({
      'GET /api/admin/settings': { body: SETTINGS },
      'GET /api/admin/settings/gateways': { body: gateways },
      'PATCH /api/admin/settings/gateways': { body: gateways },
    });
    renderApp('/manager/dashboard/settings');
    const section = await screen.findByRole('region', { name: 'Pasarelas de pago' });
    const form = await within(section).findByRole('form', {
      name: 'Guardar credenciales: Pagos con Remesita',
    });
    const fill = async (label: string, value: string) =>
      userEvent.type(within(form).getByLabelText(label), value);
    await fill('API key', 'k');
    await fill('API secret', 's');
    await fill('ID de la unidad de negocio', 'bu');
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar credenciales' }));
    await waitFor(() =>
      expect(api.callsTo('PATCH /api/admin/settings/gateways')[0]?.body).toEqual({
        remesita: { api_key: 'k', api_secret: 's', business_id: 'bu' },
      }),
    );
    await fill('API key', 'k');
    await fill('API secret', 's');
    await fill('ID de la unidad de negocio', 'bu');
    await fill('URL de la API (opcional)', 'https://remesita.test');
    await userEvent.click(within(form).getByRole('button', { name: 'Guardar credenciales' }));
    await waitFor(() =>
      expect(api.callsTo('PATCH /api/admin/settings/gateways')[1]?.body).toEqual({
        remesita: { api_key: 'k', api_secret: 's', business_id: 'bu', base_url: 'https://remesita.test' },
      }),
    );
  });

  it('is not shown to operations, whose public switches still work', async () => {
    const api = signedIn(
      { 'GET /api/admin/settings': { body: SETTINGS } },
      { id: 5, username: 'ops', role: 'operations' },
    );
    renderApp('/manager/dashboard/settings');
    await screen.findByRole('switch', { name: 'Modo mantenimiento' });
    expect(screen.queryByRole('region', { name: 'Pasarelas de pago' })).not.toBeInTheDocument();
    expect(api.callsTo('GET /api/admin/settings/gateways')).toHaveLength(0);
  });
});
