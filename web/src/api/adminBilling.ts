/**
 * Facturas' money side (issue 15): refunds, the invoices' CSV, the monthly revenue table and the
 * payments that arrived without an open invoice. Query keys start with 'manager' so ending the
 * manager session drops every cached answer.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import {
  AdminInvoice,
  RevenueTable,
  UnmatchedPayment,
  UnmatchedPaymentPage,
  type InvoiceRefund,
} from '@vpn/contracts';
import { dispositionFileName } from '../lib/contentDisposition';
import type { ListParams } from './adminCustomers';
import { listSearch, PAGE_SIZE } from './adminList';
import { parse } from './http';
import { authFetch, authRequest } from './session';

export type { RevenueTable, UnmatchedPayment } from '@vpn/contracts';

export const billingKeys = {
  revenue: (months: number) => ['manager', 'billing', 'revenue', months] as const,
  unmatchedAll: ['manager', 'billing', 'unmatched'] as const,
  unmatched: (p: UnmatchedParams) => ['manager', 'billing', 'unmatched', p] as const,
};

/** `POST /api/admin/invoices/{id}/refund`: answers the invoice as it is now (refunded). */
export function refundInvoice(id: string, body: InvoiceRefund) {
  return authRequest(
    'manager',
    `/api/admin/invoices/${encodeURIComponent(id)}/refund`,
    { method: 'POST', body },
    AdminInvoice,
  );
}

/**
 * `GET /api/admin/invoices/export.csv` with the list's filters (search, state, gateway; every page).
 * Fetched with the bearer token like any other call — never a token in the URL — and handed back as a
 * blob with the name the server gave it. A refusal throws the server's message.
 */
export async function exportInvoicesCsv(
  filters: Omit<ListParams, 'page'>,
): Promise<{ fileName: string; blob: Blob }> {
  const search = listSearch({ q: filters.q, state: filters.state, gateway: filters.gateway });
  const res = await authFetch('manager', `/api/admin/invoices/export.csv${search}`);
  if (!res.ok) await parse(res); // throws the ApiError carrying the server's { message }
  const blob = await res.blob();
  return { fileName: dispositionFileName(res.headers.get('content-disposition')) ?? 'facturas.csv', blob };
}

/** `GET /api/admin/invoices/revenue?months=`: newest month first, with the totals of those rows. */
export function revenueQuery(months: number) {
  return queryOptions({
    queryKey: billingKeys.revenue(months),
    queryFn: ({ signal }) =>
      authRequest('manager', `/api/admin/invoices/revenue?months=${months}`, { signal }, RevenueTable),
    placeholderData: keepPreviousData,
  });
}

/** The list state of 'Pagos sin factura abierta': `q` searches the reference; `resolved` '' lists both. */
export interface UnmatchedParams {
  q: string;
  resolved: '' | 'true' | 'false';
  page: number;
}

export function unmatchedQuery(p: UnmatchedParams) {
  return queryOptions({
    queryKey: billingKeys.unmatched(p),
    queryFn: ({ signal }) =>
      authRequest(
        'manager',
        `/api/admin/payments/unmatched${listSearch({ page: p.page, page_size: PAGE_SIZE, q: p.q, resolved: p.resolved })}`,
        { signal },
        UnmatchedPaymentPage,
      ),
    placeholderData: keepPreviousData,
  });
}

/** `PATCH /api/admin/payments/unmatched/{id}`: the operator settled it, with a reason. */
export function resolveUnmatched(id: number, reason: string) {
  return authRequest(
    'manager',
    `/api/admin/payments/unmatched/${id}`,
    { method: 'PATCH', body: { resolved: true, reason } },
    UnmatchedPayment,
  );
}
