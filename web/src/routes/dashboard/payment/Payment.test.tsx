import { act, screen, waitFor, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Invoice } from '../../../api/invoices';
import { deferred, fakeApi, sampleUser } from '../../../test/api';
import type { Handler, Reply } from '../../../test/api';
import { renderApp } from '../../../test/render';

const REMOTE = '0b6c1a8e-1f2d-4c3b-9a8e-123456789abc';
const INVOICE = `GET /api/client/invoices/${REMOTE}`;

function invoice(overrides: Partial<Invoice> = {}): Invoice {
  return {
    id: REMOTE,
    plan_name: 'Trimestral',
    peer_name: 'tablet',
    amount: 12.5,
    currency: 'USD',
    status: 'paid',
    gateway: 'sandbox',
    transaction_uuid: 'tx-server',
    created: '2025-03-05T10:00:00.000Z',
    paid: '2025-03-05T10:01:00.000Z',
    delivered: true,
    operation: 'new_peer',
    peer_id: null,
    ...overrides,
  };
}

function openPayment(query: string, handler: Handler = { body: invoice() }) {
  localStorage.setItem('access', 'a1');
  const api = fakeApi({ 'GET /api/client/verify-token': { body: sampleUser }, [INVOICE]: handler });
  const app = renderApp(`/dashboard/payment?${query}`);
  return { api, app };
}

afterEach(() => {
  vi.useRealTimers();
});

describe('Payment result page', () => {
  it('success: shows the invoice plan, peer, amount in USD and transaction id', async () => {
    openPayment(`status=success&transaction_uuid=tx-42&remote_id=${REMOTE}`);
    expect(await screen.findByRole('heading', { name: 'Pago completado' })).toBeInTheDocument();
    const details = await screen.findByRole('region', { name: 'Detalles de la factura' });
    expect(within(details).getByText('Trimestral')).toBeInTheDocument();
    expect(within(details).getByText('tablet')).toBeInTheDocument();
    expect(within(details).getByText('12,50 US$')).toBeInTheDocument();
    expect(within(details).getByText('tx-42')).toBeInTheDocument();
    expect(screen.getByText(/Plan acreditado/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Volver al inicio' })).toHaveAttribute('href', '/dashboard/home');
  });

  it('paid but not delivered yet: says the payment arrived and the peer is on its way, not "acreditado"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openPayment(`status=success&transaction_uuid=tx-42&remote_id=${REMOTE}`, {
      body: invoice({ delivered: false }),
    });
    expect(await screen.findByRole('heading', { name: 'Pago completado' })).toBeInTheDocument();
    expect(
      await screen.findByText(
        'Pago recibido. Estamos preparando tu peer: aparecerá en la sección Peers en cuanto haya un servidor disponible. No tienes que pagar de nuevo.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByText(/Plan acreditado/)).not.toBeInTheDocument();
    // Read again until delivered: then the peer is offered ready to install (issue 32).
    expect(api.callsTo(INVOICE)).toHaveLength(1);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_100);
    });
    expect(api.callsTo(INVOICE)).toHaveLength(2);
  });

  it('canceled: says so and still shows the invoice', async () => {
    openPayment(`status=canceled&transaction_uuid=tx-7&remote_id=${REMOTE}`, {
      body: invoice({ status: 'canceled', paid: null }),
    });
    expect(await screen.findByRole('heading', { name: 'Pago cancelado' })).toBeInTheDocument();
    expect(await screen.findByText('Trimestral')).toBeInTheDocument();
    expect(screen.getByText('tx-7')).toBeInTheDocument();
  });

  it('refunded: says the money went back and the period was taken back, not "Pago completado"', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openPayment(`status=success&transaction_uuid=tx-42&remote_id=${REMOTE}`, {
      body: invoice({ status: 'refunded' }),
    });
    expect(await screen.findByRole('heading', { name: 'Pago reembolsado' })).toBeInTheDocument();
    expect(
      screen.getByText(
        'Este pago se reembolsó: el importe se te devolvió y el periodo que compraste se retiró del peer. Si no lo esperabas, contacta con soporte.',
      ),
    ).toBeInTheDocument();
    expect(await screen.findByText('Trimestral')).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Pago completado' })).not.toBeInTheDocument();
    expect(screen.queryByText(/Plan acreditado/)).not.toBeInTheDocument();
    // Not 'pending': nothing to wait for, so no polling.
    await act(async () => {
      await vi.advanceTimersByTimeAsync(9_000);
    });
    expect(api.callsTo(INVOICE)).toHaveLength(1);
  });

  it('anything else is unknown', async () => {
    openPayment(`status=raro&remote_id=${REMOTE}`);
    expect(await screen.findByRole('heading', { name: 'Estado del pago desconocido' })).toBeInTheDocument();
    // No transaction in the query: the invoice's own one is shown.
    expect(await screen.findByText('tx-server')).toBeInTheDocument();
  });

  it("shows 'Cargando información...' while the invoice loads", async () => {
    const pending = deferred<Reply>();
    openPayment(`status=success&remote_id=${REMOTE}`, () => pending.promise);
    expect(await screen.findByText('Cargando información...')).toBeInTheDocument();
    pending.resolve({ body: invoice() });
    expect(await screen.findByText('Trimestral')).toBeInTheDocument();
  });

  it('shows the load error panel and the server message in a toast when the invoice fails', async () => {
    openPayment(`status=success&remote_id=${REMOTE}`, {
      status: 404,
      body: { message: 'Factura no encontrada' },
    });
    expect(
      await screen.findByText('Hubo un error al intentar cargar los datos de la factura.'),
    ).toBeInTheDocument();
    expect(await screen.findByText('Factura no encontrada')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Reintentar' })).toBeInTheDocument();
  });

  it("falls back to 'Error al obtener los detalles de la factura' without a server message", async () => {
    openPayment(`status=success&remote_id=${REMOTE}`, { status: 500, body: {} });
    expect(await screen.findByText('Error al obtener los detalles de la factura')).toBeInTheDocument();
  });

  it('without remote_id it shows the result and says the details could not be obtained', async () => {
    const { api } = openPayment('status=success&transaction_uuid=tx-1');
    expect(await screen.findByRole('heading', { name: 'Pago completado' })).toBeInTheDocument();
    expect(screen.getByText('Error al obtener los detalles de la factura')).toBeInTheDocument();
    expect(api.callsTo(INVOICE)).toHaveLength(0);
  });

  it('polls a still-pending invoice after a success until the server has credited it', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let reads = 0;
    const { api } = openPayment(`status=success&remote_id=${REMOTE}`, () => {
      reads += 1;
      return { body: invoice(reads < 3 ? { status: 'pending', paid: null } : {}) };
    });
    expect(await screen.findByText('Confirmando el pago con la pasarela...')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    await act(async () => {
      await vi.advanceTimersByTimeAsync(3_000);
    });
    await waitFor(() => expect(screen.getByText(/Plan acreditado/)).toBeInTheDocument());
    expect(api.callsTo(INVOICE)).toHaveLength(3);
    await act(async () => {
      await vi.advanceTimersByTimeAsync(9_000);
    });
    expect(api.callsTo(INVOICE)).toHaveLength(3);
  });

  it('does not poll a pending invoice after a cancel', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = openPayment(`status=canceled&remote_id=${REMOTE}`, {
      body: invoice({ status: 'pending', paid: null }),
    });
    expect(await screen.findByText('Trimestral')).toBeInTheDocument();
    await act(async () => {
      await vi.advanceTimersByTimeAsync(9_000);
    });
    expect(api.callsTo(INVOICE)).toHaveLength(1);
  });

  it('a payment the server refused: shows its Spanish reason instead of "Confirmando…"', async () => {
    const reason =
      'El importe pagado es menor que el de la factura, así que no se ha acreditado nada. Contacta con soporte indicando el número de factura.';
    openPayment(`status=success&transaction_uuid=tx-42&remote_id=${REMOTE}`, {
      body: invoice({ status: 'pending', paid: null, delivered: false, message: reason }),
    });
    expect(await screen.findByRole('alert')).toHaveTextContent(reason);
    expect(screen.queryByText('Confirmando el pago con la pasarela...')).not.toBeInTheDocument();
    expect(screen.queryByText(/Plan acreditado/)).not.toBeInTheDocument();
  });
});
