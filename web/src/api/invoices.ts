/**
 * Purchases and payments: the payment-gateway settings, invoice creation (the purchase dialog) and
 * the invoice the gateway sends the browser back with (`/dashboard/payment?remote_id=…`).
 *
 * Kept apart from `queries.ts` so the purchase flow can change on its own; keys still start with the
 * `'client'` realm, so ending the session drops this data with the rest.
 */
import { queryOptions } from '@tanstack/react-query';
import { Invoice, InvoiceCreated, PaymentSettings } from '@vpn/contracts';
import type { InvoiceBody } from '@vpn/contracts';
import { authRequest } from './session';

export type { Invoice, InvoiceBody } from '@vpn/contracts';

export const invoiceKeys = {
  paymentSettings: ['client', 'payment-settings'] as const,
  invoice: (remoteId: string) => ['client', 'invoice', remoteId] as const,
};

/** While a paid-looking invoice is still 'pending' it is read again this often… */
export const INVOICE_POLL_MS = 3_000;
/** …at most this many times (~30 s): crediting happens server-side, normally within a second. */
export const INVOICE_POLL_MAX = 10;

/** `GET /api/client/payments`: which gateways are on (QvaPay, Remesita, the sandbox). */
export function paymentSettingsQuery() {
  return queryOptions({
    queryKey: invoiceKeys.paymentSettings,
    queryFn: ({ signal }) => authRequest('client', '/api/client/payments', { signal }, PaymentSettings),
    staleTime: 60_000,
  });
}

/**
 * `GET /api/client/invoices/{remote_id}`. With `pollWhilePending` (the gateway said success) an
 * invoice still 'pending' is read again every {@link INVOICE_POLL_MS}, up to {@link INVOICE_POLL_MAX}
 * times, until the server has credited it.
 */
export function invoiceQuery(remoteId: string, { pollWhilePending = false } = {}) {
  return queryOptions({
    queryKey: invoiceKeys.invoice(remoteId),
    queryFn: ({ signal }) =>
      authRequest('client', `/api/client/invoices/${encodeURIComponent(remoteId)}`, { signal }, Invoice),
    staleTime: 0,
    refetchInterval: (query) =>
      pollWhilePending &&
      query.state.data?.status === 'pending' &&
      query.state.dataUpdateCount <= INVOICE_POLL_MAX
        ? INVOICE_POLL_MS
        : false,
  });
}

/** `PUT /api/client/invoices`: creates the invoice and answers the gateway's payment URL. */
export function createInvoice(body: InvoiceBody): Promise<{ id: string; payment_url: string }> {
  return authRequest('client', '/api/client/invoices', { method: 'PUT', body }, InvoiceCreated);
}
