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
 * The tab that opened the gateway follows its invoice while the customer pays there: every 4 s, for
 * up to 30 minutes (a hidden tab does not poll; it reads again when it comes back in sight).
 */
export const FOLLOW_POLL = { pollMs: 4_000, pollMax: 450 } as const;

/**
 * `GET /api/client/invoices/{remote_id}`. With `pollWhilePending` (the gateway said success, or the
 * gateway is open in another tab) an invoice still 'pending', or paid but not yet delivered, is read
 * again every `pollMs` ({@link INVOICE_POLL_MS}), up to `pollMax` ({@link INVOICE_POLL_MAX}) times,
 * until the server has credited and delivered it.
 */
export function invoiceQuery(
  remoteId: string,
  { pollWhilePending = false, pollMs = INVOICE_POLL_MS, pollMax = INVOICE_POLL_MAX } = {},
) {
  return queryOptions({
    queryKey: invoiceKeys.invoice(remoteId),
    queryFn: ({ signal }) =>
      authRequest('client', `/api/client/invoices/${encodeURIComponent(remoteId)}`, { signal }, Invoice),
    staleTime: 0,
    refetchInterval: (query) => {
      const data = query.state.data;
      const waiting = data?.status === 'pending' || (data?.status === 'paid' && !data.delivered);
      return pollWhilePending && waiting && query.state.dataUpdateCount <= pollMax ? pollMs : false;
    },
  });
}

/** `PUT /api/client/invoices`: creates the invoice and answers the gateway's payment URL. */
export function createInvoice(body: InvoiceBody): Promise<{ id: string; payment_url: string }> {
  return authRequest('client', '/api/client/invoices', { method: 'PUT', body }, InvoiceCreated);
}
