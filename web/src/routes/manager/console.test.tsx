import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { AdminServer, AuditEntry, SiteSettings } from '../../api/admin';
import { fakeApi } from '../../test/api';
import type { Handler } from '../../test/api';
import { renderApp } from '../../test/render';

const manager = { id: 1, username: 'admin', role: 'superadmin' };

const madrid: AdminServer = {
  id: 3,
  name: 'Madrid',
  endpoint: 'mad.vpn.example.com:51820',
  ubication: 'Madrid, España',
  active: true,
  allow_partys: true,
  dns: null,
  mtu: null,
  interface_name: null,
  public_key: 'pk',
  agent_online: true,
  agent_version: '1.2.0',
  last_seen_at: '2025-03-05T10:00:00.000Z',
  revision: 7,
  acked_revision: 6,
  peers: 12,
};

const settings: SiteSettings = {
  maintenance: false,
  allow_registration: true,
  allow_password_recovery: true,
  show_landing: true,
  allow_payments_qvapay: false,
  allow_email: true,
  allow_partys: false,
  allow_payments_remesita: false,
};

function signedIn(routes: Record<string, Handler>) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({ 'GET /api/admin/verify-token': { body: manager }, ...routes });
}

function auditEntry(id: number): AuditEntry {
  return {
    id,
    manager: 'admin',
    action: id % 2 ? 'PATCH /api/admin/settings' : 'POST /api/admin/servers',
    target: null,
    fields: id % 2 ? ['maintenance'] : ['endpoint', 'name', 'ubication'],
    ip: '127.0.0.1',
    created: '2025-03-05T10:00:00.000Z',
  };
}

describe('manager console', () => {
  it('shows the metric cards on Resumen', async () => {
    signedIn({
      'GET /api/admin/metrics': {
        body: {
          customers: 42,
          peers: 50,
          active_peers: 31,
          servers: 3,
          servers_online: 2,
          invoices_paid_30d: 9,
          revenue_usd_30d: 45.5,
        },
      },
    });
    renderApp('/manager/dashboard');
    expect(await screen.findByRole('heading', { name: 'Resumen' })).toBeInTheDocument();
    expect(await screen.findByText('42')).toBeInTheDocument();
    expect(screen.getByText('Peers activos').nextSibling).toHaveTextContent('31');
    expect(screen.getByText('Ingresos (30 días)').nextSibling).toHaveTextContent(/45,50\sUS\$/);
  });

  it("shows 'Hubo un error al intentar cargar los datos.' when a page fails to load", async () => {
    signedIn({ 'GET /api/admin/servers': { status: 500, body: {} } });
    renderApp('/manager/dashboard/servers');
    expect(await screen.findByRole('alert')).toHaveTextContent('Hubo un error al intentar cargar los datos.');
  });

  it('lists servers and shows the agent token once after creating a server', async () => {
    const writeText = vi.fn(() => Promise.resolve());
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const created: AdminServer = {
      ...madrid,
      id: 4,
      name: 'Toronto',
      endpoint: 'tor.example.com:51821',
      ubication: 'Toronto',
      agent_online: false,
      agent_version: null,
      peers: 0,
    };
    let list = [madrid];
    const api = signedIn({
      'GET /api/admin/servers': () => ({ body: list }),
      'POST /api/admin/servers': () => {
        list = [madrid, created];
        return { status: 201, body: { server: created, agent_token: 'tok-secreto-123' } };
      },
    });
    renderApp('/manager/dashboard/servers');

    const table = await screen.findByRole('table', { name: 'Servidores' });
    const row = within(table).getByRole('row', { name: /Madrid/ });
    expect(within(row).getByText('Activo')).toBeInTheDocument();
    expect(within(row).getByText('12')).toBeInTheDocument();
    expect(within(row).getByText('7 (6)')).toBeInTheDocument();

    await userEvent.click(screen.getByRole('button', { name: 'Nuevo servidor' }));
    const form = await screen.findByRole('dialog', { name: 'Nuevo servidor' });
    await userEvent.type(within(form).getByLabelText('Nombre'), 'Toronto');
    await userEvent.type(within(form).getByLabelText('Endpoint (host:puerto)'), 'tor.example.com');
    await userEvent.type(within(form).getByLabelText('Ubicación'), 'Toronto');
    await userEvent.click(within(form).getByRole('button', { name: 'Crear servidor' }));
    expect(await within(form).findByRole('alert')).toHaveTextContent(
      'El endpoint debe tener la forma host:puerto',
    );
    expect(api.callsTo('POST /api/admin/servers')).toHaveLength(0);

    await userEvent.type(within(form).getByLabelText('Endpoint (host:puerto)'), ':51821');
    await userEvent.click(within(form).getByRole('button', { name: 'Crear servidor' }));

    const dialog = await screen.findByRole('dialog', { name: 'Token del agente' });
    expect(api.callsTo('POST /api/admin/servers')[0]?.body).toEqual({
      name: 'Toronto',
      endpoint: 'tor.example.com:51821',
      ubication: 'Toronto',
      allow_partys: false,
    });
    expect(within(dialog).getByText('Copia el token ahora: no se volverá a mostrar.')).toBeInTheDocument();
    expect(within(dialog).getByText('tok-secreto-123')).toBeInTheDocument();
    const command = `npm run agent -- --url ${window.location.origin} --token tok-secreto-123`;
    expect(within(dialog).getByText(command)).toBeInTheDocument();
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copiar el token del agente' }));
    expect(writeText).toHaveBeenCalledWith('tok-secreto-123');

    await userEvent.click(within(dialog).getAllByRole('button', { name: 'Cerrar' })[0]!);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByText('tok-secreto-123')).not.toBeInTheDocument();
    expect(await within(table).findByRole('row', { name: /Toronto/ })).toHaveTextContent('Inactivo');
  });

  it('rotates a token only after confirming, then shows the new one', async () => {
    const api = signedIn({
      'GET /api/admin/servers': { body: [madrid] },
      'POST /api/admin/servers/3/token': { body: { agent_token: 'tok-nuevo' } },
    });
    renderApp('/manager/dashboard/servers');
    await userEvent.click(await screen.findByRole('button', { name: 'Rotar el token del agente de Madrid' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Rotar token' });
    expect(api.callsTo('POST /api/admin/servers/3/token')).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Rotar token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Token del agente' });
    expect(within(dialog).getByText('tok-nuevo')).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/servers/3/token')).toHaveLength(1);
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

  it("pages the audit log with 'Cargar más' (before = oldest id shown)", async () => {
    const first = Array.from({ length: 50 }, (_, i) => auditEntry(120 - i));
    const second = [auditEntry(70), auditEntry(69)];
    let page = 0;
    signedIn({
      'GET /api/admin/audit': () => {
        page += 1;
        return { body: page === 1 ? first : second };
      },
    });
    // The fake records paths without their query: keep the query strings the page sends.
    const queries: string[] = [];
    const realFetch = globalThis.fetch;
    vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(typeof input === 'string' ? input : input.toString(), 'http://localhost');
      if (url.pathname === '/api/admin/audit') queries.push(url.search);
      return realFetch(input, init);
    });

    renderApp('/manager/dashboard/audit');
    const table = await screen.findByRole('table', { name: 'Registro de auditoría' });
    expect(within(table).getAllByRole('row')).toHaveLength(51);
    await userEvent.click(screen.getByRole('button', { name: 'Cargar más' }));
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(53));
    expect(queries).toEqual(['?limit=50', '?limit=50&before=71']);
    expect(screen.queryByRole('button', { name: 'Cargar más' })).not.toBeInTheDocument();
    expect(within(table).getAllByText('PATCH /api/admin/settings').length).toBeGreaterThan(0);
  });

  it('creates a manual peer with the chosen plan and server', async () => {
    const api = signedIn({
      'GET /api/client/plans': {
        body: [{ id: 2, name: 'Trimestral', description: 'x', price: 12.5, validity: '90 days 00:00:00' }],
      },
      'GET /api/admin/servers': { body: [madrid] },
      'POST /api/admin/peers': { status: 201, body: { id: 9, name: 'movil' } },
    });
    renderApp('/manager/dashboard/peer');
    await userEvent.type(await screen.findByLabelText('Usuario del cliente'), 'pepa');
    await userEvent.selectOptions(await screen.findByLabelText('Plan'), 'Trimestral');
    await userEvent.type(screen.getByLabelText('Nombre del peer'), 'movil');
    await userEvent.selectOptions(screen.getByLabelText('Servidor'), 'Madrid — Madrid, España');
    await userEvent.click(screen.getByRole('button', { name: 'Crear peer' }));
    expect(await screen.findByText('Peer movil creado para pepa')).toBeInTheDocument();
    expect(api.callsTo('POST /api/admin/peers')[0]?.body).toEqual({
      username: 'pepa',
      plan: 2,
      name: 'movil',
      server: 3,
    });
  });
});
