import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { AdminCustomer, AdminCustomerDetail, AdminInvoice } from '../../../api/adminCustomers';
import { fakeApi, type Handler } from '../../../test/api';
import { renderApp } from '../../../test/render';
import { setViewportWidth } from '../../../test/viewport';
import { FakeWebSocket } from '../../../test/websocket';

beforeEach(() => setViewportWidth(1280));

function signedIn(role: string, routes: Record<string, Handler>) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({
    'GET /api/admin/verify-token': { body: { id: 1, username: 'gestora', role } },
    ...routes,
  });
}

const ana: AdminCustomer = {
  id: 7,
  username: 'ana',
  email: 'ana@nauta.cu',
  email_verified: true,
  alias: 'Anita',
  disabled: false,
  created: '2025-03-01T10:00:00.000Z',
  peers: 2,
  live_peers: 1,
};

const invoice: AdminInvoice = {
  id: '0b6f3c1e-1111-4222-8333-444455556666',
  customer: { id: 7, username: 'ana' },
  operation: 'new_peer',
  peer: null,
  new_peer_name: 'Router',
  plan_name: 'Mensual',
  amount: '3.50',
  currency: 'USD',
  gateway: 'sandbox',
  status: 'pending',
  remote_id: '0b6f3c1e-1111-4222-8333-444455556666',
  transaction_uuid: null,
  created: '2025-03-02T10:00:00.000Z',
  paid: null,
  delivered: null,
  marked_by: null,
  mark_reason: null,
  refunded: null,
  refunded_by: null,
  refund_reason: null,
  refund_reference: null,
  refundable_by_gateway: false,
};

const detail: AdminCustomerDetail = {
  ...ana,
  peer_list: [
    {
      id: 1,
      name: 'Móvil',
      address: '10.64.0.2',
      server: { id: 3, name: 'Madrid' },
      active: true,
      live: true,
      expires_at: '2099-01-01T00:00:00.000Z',
      party: { id: 4, name: 'Los Primos' },
      created: '2025-03-01T10:00:00.000Z',
    },
    {
      id: 2,
      name: 'Router',
      address: '10.64.0.3',
      server: { id: 3, name: 'Madrid' },
      active: false,
      live: false,
      expires_at: null,
      party: null,
      created: '2025-03-01T10:00:00.000Z',
    },
  ],
  invoices: [invoice],
  invoice_count: 1,
  rooms: [{ id: 4, name: 'Los Primos', role: 'owner', members: 3 }],
  sessions: [
    {
      id: 'fam-1',
      started: '2025-03-01T10:00:00.000Z',
      last_used: '2025-03-03T10:00:00.000Z',
      expires_at: '2025-04-01T10:00:00.000Z',
      remember: true,
      ip: '152.206.1.2',
      user_agent: 'Firefox en Android',
    },
  ],
};

/** The fake API records paths only: this keeps the full URLs (with their query strings) the page asked for. */
function recordUrls(): string[] {
  const urls: string[] = [];
  const fake = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    urls.push(String(input));
    return fake(input, init);
  });
  return urls;
}

describe('Clientes', () => {
  it('searches as the operator types, filters by state, pages, and keeps it all in the URL', async () => {
    const api = signedIn('support', {
      'GET /api/admin/customers': () => ({ body: { count: 30, results: [ana] } }),
    });
    const urls = recordUrls();
    const { router } = renderApp('/manager/dashboard/customers');

    const table = await screen.findByRole('table', { name: 'Clientes' });
    const row = within(table).getByRole('row', { name: /ana/ });
    expect(row).toHaveTextContent('ana@nauta.cu (verificado)');
    expect(row).toHaveTextContent('Anita');
    expect(row).toHaveTextContent('2 (1)');
    expect(row).toHaveTextContent('Activo');

    await userEvent.type(screen.getByRole('searchbox', { name: 'Buscar clientes' }), 'an');
    await waitFor(() => expect(urls.some((u) => u.includes('q=an'))).toBe(true));
    // Debounced: one request for the whole word, not one per key.
    expect(urls.filter((u) => /q=a(&|$)/.test(u))).toHaveLength(0);
    expect(router.state.location.search).toBe('?q=an');

    await userEvent.selectOptions(screen.getByLabelText('Estado'), 'disabled');
    await waitFor(() => expect(urls.at(-1)).toContain('state=disabled'));
    expect(urls.at(-1)).toContain('q=an');

    await userEvent.click(screen.getByRole('button', { name: 'Página siguiente' }));
    await waitFor(() => expect(urls.at(-1)).toContain('page=2'));
    expect(router.state.location.search).toBe('?q=an&state=disabled&page=2');
    expect(screen.getByText('26–30 de 30')).toBeInTheDocument();
    expect(api.callsTo('GET /api/admin/customers').length).toBeGreaterThanOrEqual(4);
  });

  it('shows customers as cards on a phone', async () => {
    setViewportWidth(375);
    signedIn('support', { 'GET /api/admin/customers': { body: { count: 1, results: [ana] } } });
    renderApp('/manager/dashboard/customers');
    const cards = await screen.findByRole('list', { name: 'Clientes' });
    expect(within(cards).getByRole('button', { name: 'ana' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('opens a customer with their peers, invoices, rooms and sessions', async () => {
    signedIn('support', { 'GET /api/admin/customers/7': { body: detail } });
    renderApp('/manager/dashboard/customers/7');
    expect(await screen.findByRole('heading', { name: 'ana' })).toBeInTheDocument();
    const peers = screen.getByRole('table', { name: 'Peers del cliente' });
    expect(within(peers).getByRole('row', { name: /Móvil/ })).toHaveTextContent('En servidor');
    expect(within(peers).getByRole('row', { name: /Móvil/ })).toHaveTextContent('Los Primos');
    expect(within(peers).getByRole('row', { name: /10\.64\.0\.3/ })).toHaveTextContent('Deshabilitado');
    const invoices = screen.getByRole('table', { name: 'Facturas' });
    expect(within(invoices).getByRole('row', { name: /Mensual/ })).toHaveTextContent('Pendiente');
    expect(screen.getByText('Los Primos', { selector: 'span' })).toBeInTheDocument();
    expect(screen.getByText('Propietario · 3 miembros')).toBeInTheDocument();
    const sessions = screen.getByRole('table', { name: 'Sesiones abiertas' });
    expect(within(sessions).getByRole('row', { name: /Firefox en Android/ })).toHaveTextContent(
      '152.206.1.2',
    );
    // Support may send a reset but not disable.
    expect(screen.getByRole('button', { name: 'Enviar enlace de restablecimiento' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Deshabilitar' })).not.toBeInTheDocument();
  });

  it('disables only after a reason is given, then shows the account as disabled', async () => {
    const api = signedIn('owner', {
      'GET /api/admin/customers/7': { body: detail },
      'PATCH /api/admin/customers/7': (call) => ({
        body: {
          ...detail,
          disabled: (call.body as { disabled: boolean }).disabled,
          live_peers: 0,
          sessions: [],
        },
      }),
    });
    renderApp('/manager/dashboard/customers/7');
    await userEvent.click(await screen.findByRole('button', { name: 'Deshabilitar' }));
    const dialog = await screen.findByRole('dialog', { name: 'Deshabilitar a ana' });
    expect(dialog).toHaveTextContent('sus sesiones se cierran al instante');
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'x');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Deshabilitar ana' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Indique el motivo (al menos 3 caracteres)',
    );
    expect(api.callsTo('PATCH /api/admin/customers/7')).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText('Motivo'), ' fraude con tarjetas');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Deshabilitar ana' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo('PATCH /api/admin/customers/7')[0]?.body).toEqual({
      disabled: true,
      reason: 'x fraude con tarjetas',
    });
    expect(await screen.findByText('Cliente deshabilitado')).toBeInTheDocument();
    expect(screen.getByText(/^Esta cuenta está deshabilitada/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Habilitar' })).toBeInTheDocument();
    expect(screen.getByText('Sin sesiones abiertas.')).toBeInTheDocument();
  });

  it('sends a reset link after confirming, and shows the server’s refusal as it came', async () => {
    let answer: { status: number; body: unknown } = {
      status: 200,
      body: { message: 'Enlace de restablecimiento enviado a ana@nauta.cu' },
    };
    const api = signedIn('support', {
      'GET /api/admin/customers/7': { body: detail },
      'POST /api/admin/customers/7/password-reset': () => answer,
    });
    renderApp('/manager/dashboard/customers/7');
    await userEvent.click(await screen.findByRole('button', { name: 'Enviar enlace de restablecimiento' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Enviar enlace de restablecimiento' });
    expect(confirm).toHaveTextContent('Se enviará a ana@nauta.cu un enlace');
    expect(api.callsTo('POST /api/admin/customers/7/password-reset')).toHaveLength(0);
    await userEvent.click(within(confirm).getByRole('button', { name: 'Enviar enlace' }));
    expect(await screen.findByText('Enlace de restablecimiento enviado a ana@nauta.cu')).toBeInTheDocument();

    answer = {
      status: 400,
      body: {
        message: 'El correo está desactivado en este servidor (falta SMTP_URL): no se puede enviar el enlace',
      },
    };
    await userEvent.click(screen.getByRole('button', { name: 'Enviar enlace de restablecimiento' }));
    await userEvent.click(
      within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Enviar enlace' }),
    );
    expect(
      await screen.findByText(
        'El correo está desactivado en este servidor (falta SMTP_URL): no se puede enviar el enlace',
      ),
    ).toBeInTheDocument();
  });

  it('is closed to a role without customers.read', async () => {
    const api = signedIn('operations', {});
    renderApp('/manager/dashboard/customers');
    expect(await screen.findByRole('alert')).toHaveTextContent('Su rol no tiene acceso a esta sección.');
    expect(api.callsTo('GET /api/admin/customers')).toHaveLength(0);
  });
});

describe('Facturas', () => {
  it('filters by state and gateway, and shows a new invoice when a push says one was created', async () => {
    let results = [invoice];
    const api = signedIn('finance', {
      'GET /api/admin/invoices': () => ({ body: { count: results.length, results } }),
    });
    const urls = recordUrls();
    renderApp('/manager/dashboard/invoices?state=pending');
    const table = await screen.findByRole('table', { name: 'Facturas' });
    expect(within(table).getByRole('row', { name: /Router \(nuevo\)/ })).toHaveTextContent(/3,50\sUS\$/);
    expect(urls.at(-1)).toContain('state=pending');
    expect(screen.getByLabelText('Estado')).toHaveValue('pending');

    await userEvent.selectOptions(screen.getByLabelText('Pasarela'), 'qvapay');
    await waitFor(() => expect(urls.at(-1)).toContain('gateway=qvapay'));

    const fresh: AdminInvoice = {
      ...invoice,
      id: 'a1a1a1a1-1111-4222-8333-444455556666',
      customer: { id: 9, username: 'beto' },
      new_peer_name: 'Tableta',
    };
    results = [fresh, invoice];
    const socket = await waitFor(() => {
      const s = FakeWebSocket.latest();
      if (!s) throw new Error('sin socket');
      return s;
    });
    socket.accept();
    socket.push({ type: 'admin_invoice', invoice_id: fresh.id, status: 'pending' });
    expect(await within(table).findByRole('row', { name: /beto/ })).toHaveTextContent('Tableta (nuevo)');
    expect(api.callsTo('GET /api/admin/invoices').length).toBeGreaterThanOrEqual(3);
  });

  it('marks an invoice paid with a required reason, and shows a 409 in the dialog', async () => {
    let status = 200;
    let current: AdminInvoice = { ...invoice, status: 'expired' };
    const api = signedIn('finance', {
      [`GET /api/admin/invoices/${invoice.id}`]: () => ({ body: current }),
      [`PATCH /api/admin/invoices/${invoice.id}`]: (call) => {
        if (status === 409) return { status: 409, body: { message: 'La factura ya está pagada' } };
        current = {
          ...invoice,
          status: 'paid',
          mark_reason: (call.body as { reason: string }).reason,
          marked_by: { id: 1, username: 'gestora' },
          peer: { id: 5, name: 'Router' },
          delivered: '2025-03-02T11:00:00.000Z',
        };
        return { body: current };
      },
    });
    renderApp(`/manager/dashboard/invoices/${invoice.id}`);
    await userEvent.click(await screen.findByRole('button', { name: 'Marcar como pagada' }));
    const dialog = await screen.findByRole('dialog', { name: 'Marcar como pagada' });
    expect(dialog).toHaveTextContent('Esta factura está expirada');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar como pagada' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Indique el motivo (al menos 3 caracteres)',
    );
    expect(api.callsTo(`PATCH /api/admin/invoices/${invoice.id}`)).toHaveLength(0);

    status = 409;
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'Transferencia 123');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar como pagada' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('La factura ya está pagada');

    status = 200;
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar como pagada' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo(`PATCH /api/admin/invoices/${invoice.id}`).at(-1)?.body).toEqual({
      operation: 'mark_paid',
      reason: 'Transferencia 123',
    });
    expect(await screen.findByText('Factura marcada como pagada')).toBeInTheDocument();
    expect(screen.getByText('Pagada', { selector: 'span' })).toBeInTheDocument();
    expect(screen.getByText('Transferencia 123')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
  });

  it('shows no mark button to support', async () => {
    signedIn('support', { [`GET /api/admin/invoices/${invoice.id}`]: { body: invoice } });
    renderApp(`/manager/dashboard/invoices/${invoice.id}`);
    expect(await screen.findByText('Router (nuevo)')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
  });
});
