/**
 * The console's Clientes and Facturas calls (`/api/admin/customers*`, `/api/admin/invoices*`).
 * Query keys start with 'manager' so ending the manager session drops every cached answer.
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import {
  AdminCustomerDetail,
  AdminCustomerPage,
  AdminInvoice,
  AdminInvoicePage,
  type CustomerPatch,
} from '@vpn/contracts';
import { listSearch, PAGE_SIZE } from './adminList';
import { authRequest } from './session';

export type { AdminCustomer, AdminCustomerDetail, AdminInvoice } from '@vpn/contracts';

/** The list filters a page keeps in its URL (`?q=&state=&gateway=&page=`). */
export interface ListParams {
  q?: string;
  state?: string;
  gateway?: string;
  page: number;
}

export const customerKeys = {
  all: ['manager', 'customers'] as const,
  list: (p: ListParams) => ['manager', 'customers', 'list', p] as const,
  detail: (id: number) => ['manager', 'customers', 'detail', id] as const,
};

export const invoiceKeys = {
  all: ['manager', 'invoices'] as const,
  list: (p: ListParams) => ['manager', 'invoices', 'list', p] as const,
  detail: (id: string) => ['manager', 'invoices', 'detail', id] as const,
};

const search = (p: ListParams) =>
  listSearch({ page: p.page, page_size: PAGE_SIZE, q: p.q, state: p.state, gateway: p.gateway });

export function customersQuery(p: ListParams) {
  return queryOptions({
    queryKey: customerKeys.list(p),
    queryFn: ({ signal }) =>
      authRequest('manager', `/api/admin/customers${search(p)}`, { signal }, AdminCustomerPage),
    // The previous page stays on screen (dimmed) while the next search or page loads.
    placeholderData: keepPreviousData,
  });
}

export function customerQuery(id: number) {
  return queryOptions({
    queryKey: customerKeys.detail(id),
    queryFn: ({ signal }) =>
      authRequest('manager', `/api/admin/customers/${id}`, { signal }, AdminCustomerDetail),
  });
}

export function patchCustomer(id: number, body: CustomerPatch) {
  return authRequest('manager', `/api/admin/customers/${id}`, { method: 'PATCH', body }, AdminCustomerDetail);
}

export function sendPasswordReset(id: number) {
  return authRequest<{ message: string }>('manager', `/api/admin/customers/${id}/password-reset`, {
    method: 'POST',
  });
}

export function invoicesQuery(p: ListParams) {
  return queryOptions({
    queryKey: invoiceKeys.list(p),
    queryFn: ({ signal }) =>
      authRequest('manager', `/api/admin/invoices${search(p)}`, { signal }, AdminInvoicePage),
    placeholderData: keepPreviousData,
  });
}

export function invoiceQuery(id: string) {
  return queryOptions({
    queryKey: invoiceKeys.detail(id),
    queryFn: ({ signal }) =>
      authRequest('manager', `/api/admin/invoices/${encodeURIComponent(id)}`, { signal }, AdminInvoice),
  });
}

export function markInvoicePaid(id: string, reason: string) {
  return authRequest(
    'manager',
    `/api/admin/invoices/${encodeURIComponent(id)}`,
    { method: 'PATCH', body: { operation: 'mark_paid', reason } },
    AdminInvoice,
  );
}
