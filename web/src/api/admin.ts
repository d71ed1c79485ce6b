/**
 * The manager console's calls (`/api/admin/*`, manager realm tokens). Query keys start with
 * 'manager' so ending the manager session drops every cached answer (see `App.tsx`).
 */
import { queryOptions } from '@tanstack/react-query';
import type {
  Advertisement,
  ClientVersion,
  CustomerLinks,
  CustomerLinksPatch,
  SiteSettings,
} from '@vpn/contracts';
import { authRequest } from './session';

export type { SiteSettings } from '@vpn/contracts';

export interface AdminMetrics {
  customers: number;
  peers: number;
  active_peers: number;
  servers: number;
  servers_online: number;
  /** Only for roles with revenue.read. */
  invoices_paid_30d?: number;
  revenue_usd_30d?: number;
  /** Peers flagged in use on more than one device (issue 19). */
  concurrent_use_peers?: number;
}

export const adminKeys = {
  metrics: ['manager', 'metrics'] as const,
  settings: ['manager', 'settings'] as const,
  links: ['manager', 'settings', 'links'] as const,
};

export function metricsQuery() {
  return queryOptions({
    queryKey: adminKeys.metrics,
    queryFn: ({ signal }) => authRequest<AdminMetrics>('manager', '/api/admin/metrics', { signal }),
  });
}

export function settingsQuery() {
  return queryOptions({
    queryKey: adminKeys.settings,
    queryFn: ({ signal }) => authRequest<SiteSettings>('manager', '/api/admin/settings', { signal }),
  });
}

export function patchSettings(body: Partial<SiteSettings>): Promise<SiteSettings> {
  return authRequest<SiteSettings>('manager', '/api/admin/settings', { method: 'PATCH', body });
}

/** Ajustes → Enlaces para clientes (issue 32), with what password recovery can use. */
export function linksQuery() {
  return queryOptions({
    queryKey: adminKeys.links,
    queryFn: ({ signal }) => authRequest<CustomerLinks>('manager', '/api/admin/settings/links', { signal }),
  });
}

export function patchLinks(body: CustomerLinksPatch): Promise<CustomerLinks> {
  return authRequest<CustomerLinks>('manager', '/api/admin/settings/links', { method: 'PATCH', body });
}

export function publishAdvertisement(body: {
  name: string;
  message: string;
  /** "Enviar por Telegram". */
  telegram?: boolean;
}): Promise<Advertisement> {
  return authRequest<Advertisement>('manager', '/api/admin/advertisements', { method: 'POST', body });
}

export async function deleteAdvertisement(id: number): Promise<void> {
  await authRequest<unknown>('manager', `/api/admin/advertisements/${id}`, { method: 'DELETE' });
}

export function publishClientVersion(body: { version: string; url: string }): Promise<ClientVersion> {
  return authRequest<ClientVersion>('manager', '/api/admin/agent', { method: 'POST', body });
}
