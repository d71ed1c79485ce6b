import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RevenueTable, UnmatchedPayment } from '../../../api/adminBilling';
import type { AdminInvoice } from '../../../api/adminCustomers';
import { fakeApi, type Handler } from '../../../test/api';
import { renderApp } from '../../../test/render';
import { setViewportWidth } from '../../../test/viewport';
import { FakeWebSocket } from '../../../test/websocket';

beforeEach(() => setViewportWidth(1280));
afterEach(() => vi.restoreAllMocks());

function signedIn(role: string, routes: Record<string, Handler>) {
  localStorage.setItem('manager_access', 'm-a');
  return fakeApi({
    'GET /api/admin/verify-token': { body: { id: 1, username: 'gestora', role } },
    ...routes,
  });
}

/** A Remesita invoice, paid and delivered: what a refund starts from. */
const paid: AdminInvoice = {
  id: '5d1c2b3a-1111-4222-8333-444455556666',
  customer: { id: 7, username: 'ana' },
  operation: 'add_plan',
  peer: { id: 5, name: 'Router' },
  new_peer_name: null,
  plan_name: 'Mensual',
  amount: '3.50',
  currency: 'USD',
  gateway: 'remesita',
  status: 'paid',
  remote_id: 'RM-000123',
  transaction_uuid: null,
  created: '2026-10-02T10:00:00.000Z',
  paid: '2026-10-02T10:05:00.000Z',
  delivered: '2026-10-02T10:05:01.000Z',
  marked_by: null,
  mark_reason: null,
  refunded: null,
  refunded_by: null,
  refund_reason: null,
  refund_reference: null,
  refundable_by_gateway: true,
};

const DETAIL = `GET /api/admin/invoices/${paid.id}`;
const REFUND = `POST /api/admin/invoices/${paid.id}/refund`;

/** What the server answers after a refund: the invoice refunded, by whom, why and the gateway's id. */
function refundedFrom(body: { method: string; reason: string }): AdminInvoice {
  return {
    ...paid,
    status: 'refunded',
    refunded: '2026-10-20T09:30:00.000Z',
    refunded_by: { id: 1, username: 'gestora' },
    refund_reason: body.reason,
    refund_reference: body.method === 'gateway' ? 'RF-778899' : null,
    refundable_by_gateway: false,
  };
}

/** The refund's confirm button names the money; Intl puts a no-break space before the currency. */
const REFUND_BUTTON = /^Reembolsar 3,50\sUS\$$/;

describe('Facturas: refunds', () => {
  it('refunds through Remesita after the operator chooses how and why, then shows the refund', async () => {
    let current = paid;
    const api = signedIn('finance', {
      [DETAIL]: () => ({ body: current }),
      [REFUND]: (call) => {
        current = refundedFrom(call.body as { method: string; reason: string });
        return { body: current };
      },
    });
    renderApp(`/manager/dashboard/invoices/${paid.id}`);
    // A paid invoice is refunded, never marked paid again.
    await userEvent.click(await screen.findByRole('button', { name: 'Reembolsar' }));
    expect(screen.queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
    const dialog = await screen.findByRole('dialog', { name: 'Reembolsar la factura' });
    expect(dialog).toHaveTextContent('Se reembolsarán 3,50 US$ a ana.');
    expect(dialog).toHaveTextContent(
      'El periodo que compró esta factura se retira del peer Router: su expiración retrocede',
    );
    const byGateway = within(dialog).getByRole('radio', { name: 'Devolver el dinero por Remesita' });
    const byHand = within(dialog).getByRole('radio', { name: 'Registrar un reembolso hecho por otra vía' });
    // No default: money is not sent back by a hurried click.
    expect(byGateway).not.toBeChecked();
    expect(byHand).not.toBeChecked();

    // A refund is dangerous: the button is red and names the money (issue 34).
    expect(within(dialog).getByRole('button', { name: REFUND_BUTTON })).toHaveClass('bg-red-600');
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'El cliente pagó dos veces');
    await userEvent.click(within(dialog).getByRole('button', { name: REFUND_BUTTON }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('Elija cómo se devuelve el dinero');
    expect(api.callsTo(REFUND)).toHaveLength(0);

    await userEvent.click(byGateway);
    await userEvent.click(within(dialog).getByRole('button', { name: REFUND_BUTTON }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo(REFUND)).toHaveLength(1);
    expect(api.callsTo(REFUND)[0]?.body).toEqual({ method: 'gateway', reason: 'El cliente pagó dos veces' });
    expect(api.callsTo(REFUND)[0]?.headers.authorization).toBe('Bearer m-a');

    expect(
      await screen.findByText('Factura reembolsada: el periodo que compró se retiró del peer'),
    ).toBeInTheDocument();
    const facts = screen.getByText('RM-000123').closest('dl')!;
    expect(within(facts).getByText('Reembolsada', { selector: 'span' })).toBeInTheDocument();
    expect(facts).toHaveTextContent('Reembolsada porgestora');
    expect(facts).toHaveTextContent('Motivo del reembolsoEl cliente pagó dos veces');
    expect(facts).toHaveTextContent('Id del reembolso en la pasarelaRF-778899');
    expect(facts).toHaveTextContent(/Reembolsada20 oct 2026/);
    // Refunded: neither refunded again nor marked paid.
    expect(screen.queryByRole('button', { name: 'Reembolsar' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Marcar como pagada' })).not.toBeInTheDocument();
  });

  it('offers only a refund recorded by hand when the gateway cannot send the money back', async () => {
    const qvapay: AdminInvoice = { ...paid, gateway: 'qvapay', refundable_by_gateway: false };
    let current = qvapay;
    const api = signedIn('owner', {
      [DETAIL]: () => ({ body: current }),
      [REFUND]: (call) => {
        current = { ...refundedFrom(call.body as { method: string; reason: string }), gateway: 'qvapay' };
        return { body: current };
      },
    });
    renderApp(`/manager/dashboard/invoices/${paid.id}`);
    await userEvent.click(await screen.findByRole('button', { name: 'Reembolsar' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reembolsar la factura' });
    expect(within(dialog).getAllByRole('radio')).toHaveLength(1);
    expect(
      within(dialog).getByRole('radio', { name: 'Registrar un reembolso hecho por otra vía' }),
    ).toBeChecked();
    expect(dialog).toHaveTextContent('QvaPay no permite devolver el dinero desde aquí');
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'Transferencia devuelta 4411');
    await userEvent.click(within(dialog).getByRole('button', { name: REFUND_BUTTON }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo(REFUND)[0]?.body).toEqual({ method: 'manual', reason: 'Transferencia devuelta 4411' });
    expect(await screen.findByText('Registrado a mano (sin reembolso en la pasarela)')).toBeInTheDocument();
  });

  it("shows the server's refusal in the dialog, in its words, and keeps the invoice paid", async () => {
    const api = signedIn('finance', {
      [DETAIL]: { body: paid },
      [REFUND]: {
        status: 502,
        body: { message: 'La pasarela no hizo el reembolso: saldo insuficiente en la cuenta' },
      },
    });
    renderApp(`/manager/dashboard/invoices/${paid.id}`);
    await userEvent.click(await screen.findByRole('button', { name: 'Reembolsar' }));
    const dialog = await screen.findByRole('dialog', { name: 'Reembolsar la factura' });
    await userEvent.click(within(dialog).getByRole('radio', { name: 'Devolver el dinero por Remesita' }));
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'Servicio no prestado');
    await userEvent.click(within(dialog).getByRole('button', { name: REFUND_BUTTON }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'La pasarela no hizo el reembolso: saldo insuficiente en la cuenta',
    );
    expect(api.callsTo(REFUND)).toHaveLength(1);
    expect(screen.getByRole('dialog', { name: 'Reembolsar la factura' })).toBeInTheDocument();
  });

  it('is not offered to support, who may only read invoices', async () => {
    signedIn('support', { [DETAIL]: { body: paid } });
    renderApp(`/manager/dashboard/invoices/${paid.id}`);
    expect(await screen.findByText('RM-000123')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Reembolsar' })).not.toBeInTheDocument();
  });

  it('lists refunded invoices under the state filter, with their badge', async () => {
    const refunded = refundedFrom({ method: 'manual', reason: 'Duplicado' });
    signedIn('support', {
      'GET /api/admin/invoices': { body: { count: 1, results: [refunded] } },
    });
    const urls = recordUrls();
    renderApp('/manager/dashboard/invoices');
    const table = await screen.findByRole('table', { name: 'Facturas' });
    expect(within(table).getByRole('row', { name: /ana/ })).toHaveTextContent('Reembolsada');
    await userEvent.selectOptions(screen.getByLabelText('Estado'), 'Reembolsada');
    await waitFor(() => expect(urls.at(-1)).toBe('/api/admin/invoices?page=1&page_size=25&state=refunded'));
    // Support has invoices.read but not revenue.read: no export, no finance tabs.
    expect(screen.queryByRole('button', { name: 'Exportar CSV' })).not.toBeInTheDocument();
    expect(screen.queryByRole('tab')).not.toBeInTheDocument();
  });
});

/** URLs as the page asked for them (the fake API keeps paths only). */
function recordUrls(): string[] {
  const urls: string[] = [];
  const fake = globalThis.fetch;
  vi.stubGlobal('fetch', (input: RequestInfo | URL, init?: RequestInit) => {
    urls.push(String(input));
    return fake(input, init);
  });
  return urls;
}

function captureDownloads() {
  const saved: { name: string; blob: Blob }[] = [];
  let blob: Blob | null = null;
  vi.spyOn(URL, 'createObjectURL').mockImplementation((b) => {
    blob = b as Blob;
    return 'blob:fake';
  });
  vi.spyOn(URL, 'revokeObjectURL').mockImplementation(() => undefined);
  vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    if (blob) saved.push({ name: this.download, blob });
  });
  return saved;
}

/** The downloaded bytes as text (the blob comes from fetch's Response, not jsdom). */
const readBlob = (blob: Blob) => new Response(blob).text();

const CSV =
  'id,fecha_utc,cliente,plan,importe,moneda,pasarela,estado\r\n' +
  '5d1c2b3a-1111-4222-8333-444455556666,2026-10-02T10:00:00Z,ana,Mensual,3.50,USD,remesita,refunded\r\n';

describe('Facturas: CSV export', () => {
  it("downloads the list's CSV with its filters and the bearer token, under the server's file name", async () => {
    const saved = captureDownloads();
    const api = signedIn('finance', {
      'GET /api/admin/invoices': { body: { count: 1, results: [paid] } },
      'GET /api/admin/invoices/export.csv': {
        text: CSV,
        headers: {
          'Content-Type': 'text/csv; charset=utf-8',
          'Content-Disposition': 'attachment; filename="facturas-20261125.csv"',
        },
      },
    });
    const urls = recordUrls();
    renderApp('/manager/dashboard/invoices?state=refunded&gateway=remesita&q=ana&page=2');
    await screen.findByRole('table', { name: 'Facturas' });
    await userEvent.click(screen.getByRole('button', { name: 'Exportar CSV' }));
    await waitFor(() => expect(saved).toHaveLength(1));

    const asked = urls.filter((u) => u.startsWith('/api/admin/invoices/export.csv'));
    expect(asked).toHaveLength(1);
    const url = new URL(asked[0]!, 'http://x');
    // Every page of the filtered list: the filters go, the page does not; no token in the URL.
    expect(Object.fromEntries(url.searchParams)).toEqual({
      q: 'ana',
      state: 'refunded',
      gateway: 'remesita',
    });
    expect(api.callsTo('GET /api/admin/invoices/export.csv')[0]?.headers.authorization).toBe('Bearer m-a');
    expect(saved[0]?.name).toBe('facturas-20261125.csv');
    expect(await readBlob(saved[0]!.blob)).toBe(CSV);
  });

  it("toasts the server's refusal of an export", async () => {
    captureDownloads();
    signedIn('owner', {
      'GET /api/admin/invoices': { body: { count: 1, results: [paid] } },
      'GET /api/admin/invoices/export.csv': {
        status: 400,
        body: { message: 'El estado debe ser pending, paid, canceled, expired, failed o refunded' },
      },
    });
    renderApp('/manager/dashboard/invoices');
    await userEvent.click(await screen.findByRole('button', { name: 'Exportar CSV' }));
    expect(
      await screen.findByText('El estado debe ser pending, paid, canceled, expired, failed o refunded'),
    ).toBeInTheDocument();
  });
});

describe('Facturas: revenue per month', () => {
  const table: RevenueTable = {
    currency: 'USD',
    rows: [
      {
        month: '2026-11',
        gateway: 'remesita',
        paid: '40.00',
        refunded: '3.50',
        net: '36.50',
        paid_count: 8,
        refunded_count: 1,
      },
      {
        month: '2026-11',
        gateway: 'qvapay',
        paid: '12.50',
        refunded: '0.00',
        net: '12.50',
        paid_count: 1,
        refunded_count: 0,
      },
      {
        month: '2026-10',
        gateway: 'remesita',
        paid: '1234.00',
        refunded: '10.00',
        net: '1224.00',
        paid_count: 310,
        refunded_count: 2,
      },
    ],
    totals: { paid: '1286.50', refunded: '13.50', net: '1273.00' },
  };

  it('loads only when its tab is opened, and shows each month and gateway with the totals last', async () => {
    const api = signedIn('finance', {
      'GET /api/admin/invoices': { body: { count: 1, results: [paid] } },
      'GET /api/admin/invoices/revenue': { body: table },
    });
    const urls = recordUrls();
    const { router } = renderApp('/manager/dashboard/invoices');
    await screen.findByRole('table', { name: 'Facturas' });
    expect(api.callsTo('GET /api/admin/invoices/revenue')).toHaveLength(0);

    await userEvent.click(screen.getByRole('tab', { name: 'Ingresos por mes' }));
    const revenue = await screen.findByRole('table', { name: 'Ingresos por mes' });
    expect(router.state.location.search).toBe('?tab=revenue');
    expect(urls.at(-1)).toBe('/api/admin/invoices/revenue?months=12');
    // Intl separates the amount from 'US$' with a no-break space: compared as plain spaces.
    const rows = within(revenue)
      .getAllByRole('row')
      .map((r) => r.textContent?.replace(/\u00a0/g, ' '));
    expect(rows).toEqual([
      'MesPasarelaCobradoReembolsadoNeto',
      'noviembre de 2026Remesita40,00 US$8 pagos3,50 US$1 reembolso36,50 US$',
      'noviembre de 2026QvaPay12,50 US$1 pago0,00 US$0 reembolsos12,50 US$',
      'octubre de 2026Remesita1234,00 US$310 pagos10,00 US$2 reembolsos1224,00 US$',
      'TotalTodas1286,50 US$319 pagos13,50 US$3 reembolsos1273,00 US$',
    ]);

    await userEvent.selectOptions(screen.getByLabelText('Periodo'), 'Últimos 2 años');
    await waitFor(() => expect(urls.at(-1)).toBe('/api/admin/invoices/revenue?months=24'));
  });

  it('says when the period has no money', async () => {
    signedIn('owner', {
      'GET /api/admin/invoices/revenue': {
        body: { currency: 'USD', rows: [], totals: { paid: '0.00', refunded: '0.00', net: '0.00' } },
      },
    });
    renderApp('/manager/dashboard/invoices?tab=revenue');
    expect(await screen.findByText('Sin cobros ni reembolsos en el periodo.')).toBeInTheDocument();
  });
});

describe('Facturas: payments without an open invoice', () => {
  const late: UnmatchedPayment = {
    id: 31,
    gateway: 'remesita',
    reference: 'RM-LATE-9001',
    invoice_id: paid.id,
    amount: '2.00',
    currency: 'USD',
    gateway_status: 'paid',
    reason: 'El importe pagado (2.00) no cubre la factura (3.50)',
    created: '2026-11-03T08:00:00.000Z',
    resolved: null,
  };

  it('lists unresolved payments and marks one resolved with a reason', async () => {
    let current = [late];
    const PATCH = 'PATCH /api/admin/payments/unmatched/31';
    const api = signedIn('finance', {
      'GET /api/admin/payments/unmatched': () => ({ body: { count: current.length, results: current } }),
      [PATCH]: (call) => {
        current = [];
        return {
          body: {
            ...late,
            resolved: '2026-11-04T10:00:00.000Z',
            reason: (call.body as { reason: string }).reason,
          },
        };
      },
    });
    const urls = recordUrls();
    renderApp('/manager/dashboard/invoices?tab=unmatched');
    const list = await screen.findByRole('table', { name: 'Pagos sin factura abierta' });
    expect(new URL(urls.at(-1)!, 'http://x').searchParams.get('resolved')).toBe('false');
    const row = within(list).getByRole('row', { name: /RM-LATE-9001/ });
    expect(row).toHaveTextContent('Remesita');
    expect(row).toHaveTextContent('2,00 US$');
    expect(row).toHaveTextContent('El importe pagado (2.00) no cubre la factura (3.50)');
    expect(row).toHaveTextContent('3 nov 2026');
    expect(within(row).getByRole('link', { name: 'Ver factura' })).toHaveAttribute(
      'href',
      `/manager/dashboard/invoices/${paid.id}`,
    );

    await userEvent.click(within(row).getByRole('button', { name: 'Marcar resuelto el pago RM-LATE-9001' }));
    const dialog = await screen.findByRole('dialog', { name: 'Marcar el pago como resuelto' });
    expect(dialog).toHaveTextContent('Pago RM-LATE-9001 de 2,00 US$.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar resuelto' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(
      'Indique el motivo (al menos 3 caracteres)',
    );
    expect(api.callsTo(PATCH)).toHaveLength(0);

    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'Devuelto al cliente por Remesita');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar resuelto' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(api.callsTo(PATCH)[0]?.body).toEqual({
      resolved: true,
      reason: 'Devuelto al cliente por Remesita',
    });
    expect(await screen.findByText('Pago marcado como resuelto')).toBeInTheDocument();
    expect(await screen.findByText('No hay pagos sin factura abierta.')).toBeInTheDocument();
  });

  it('shows a payment that just arrived without a reload, when the push says so', async () => {
    let current: UnmatchedPayment[] = [];
    signedIn('finance', {
      'GET /api/admin/payments/unmatched': () => ({ body: { count: current.length, results: current } }),
    });
    renderApp('/manager/dashboard/invoices?tab=unmatched');
    expect(await screen.findByText('No hay pagos sin factura abierta.')).toBeInTheDocument();
    const socket = await waitFor(() => {
      const s = FakeWebSocket.latest();
      if (!s) throw new Error('sin socket');
      return s;
    });
    socket.accept();
    // The money arrived at the server meanwhile; the page learns of it only from the push.
    current = [late];
    socket.push({ type: 'admin_payment', payment_id: late.id });
    const list = await screen.findByRole('table', { name: 'Pagos sin factura abierta' });
    const row = within(list).getByRole('row', { name: /RM-LATE-9001/ });
    expect(row).toHaveTextContent('2,00 US$');
    expect(row).toHaveTextContent('El importe pagado (2.00) no cubre la factura (3.50)');
  });

  it("shows the server's refusal to resolve in the dialog", async () => {
    signedIn('owner', {
      'GET /api/admin/payments/unmatched': { body: { count: 1, results: [late] } },
      'PATCH /api/admin/payments/unmatched/31': {
        status: 409,
        body: { message: 'El pago ya estaba resuelto' },
      },
    });
    renderApp('/manager/dashboard/invoices?tab=unmatched');
    await userEvent.click(
      await screen.findByRole('button', { name: 'Marcar resuelto el pago RM-LATE-9001' }),
    );
    const dialog = await screen.findByRole('dialog');
    await userEvent.type(within(dialog).getByLabelText('Motivo'), 'Acreditado a mano');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Marcar resuelto' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('El pago ya estaba resuelto');
  });
});
