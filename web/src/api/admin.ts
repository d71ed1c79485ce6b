/**
 * The manager console's calls (`/api/admin/*`, manager realm tokens). Query keys start with
 * 'manager' so ending the manager session drops every cached answer (see `App.tsx`).
 */
import { queryOptions } from '@tanstack/react-query';
import type { Advertisement, ClientVersion, Peer, SiteSettings } from '@vpn/contracts';
import { authRequest } from './session';

export type { SiteSettings } from '@vpn/contracts';

export interface AdminMetrics {
  customers: number;
  peers: number;
  active_peers: number;
  servers: number;
  servers_online: number;
  invoices_paid_30d: number;
  revenue_usd_30d: number;
}

export interface AdminServer {
  id: number;
  name: string;
  endpoint: string;
  ubication: string;
  active: boolean;
  allow_partys: boolean;
  dns: string | null;
  mtu: number | null;
  interface_name: string | null;
  public_key: string | null;
  agent_online: boolean;
  agent_version: string | null;
  last_seen_at: string | null;
  revision: number;
  acked_revision: number;
  peers: number;
}

export interface NewServerBody {
  name: string;
  endpoint: string;
  ubication: string;
  allow_partys?: boolean;
  dns?: string;
  mtu?: number;
  interface_name?: string;
}

export interface CreatedServer {
  server: AdminServer;
  agent_token: string;
}

export interface AuditEntry {
  id: number;
  manager: string | null;
  action: string;
  target: string | null;
  fields: string[];
  ip: string | null;
  created: string;
}

export const AUDIT_PAGE_SIZE = 50;

export const adminKeys = {
  metrics: ['manager', 'metrics'] as const,
  servers: ['manager', 'servers'] as const,
  settings: ['manager', 'settings'] as const,
  audit: ['manager', 'audit'] as const,
};

export function metricsQuery() {
  return queryOptions({
    queryKey: adminKeys.metrics,
    queryFn: ({ signal }) => authRequest<AdminMetrics>('manager', '/api/admin/metrics', { signal }),
  });
}

export function serversQuery() {
  return queryOptions({
    queryKey: adminKeys.servers,
    queryFn: ({ signal }) => authRequest<AdminServer[]>('manager', '/api/admin/servers', { signal }),
  });
}

export function settingsQuery() {
  return queryOptions({
    queryKey: adminKeys.settings,
    queryFn: ({ signal }) => authRequest<SiteSettings>('manager', '/api/admin/settings', { signal }),
  });
}

/** One page of the audit log, newest first; `before` is the id of the oldest entry already shown. */
export function fetchAudit(before: number | null, signal?: AbortSignal): Promise<AuditEntry[]> {
  const query = new URLSearchParams({ limit: String(AUDIT_PAGE_SIZE) });
  if (before !== null) query.set('before', String(before));
  return authRequest<AuditEntry[]>('manager', `/api/admin/audit?${query.toString()}`, { signal });
}

export function createServer(body: NewServerBody): Promise<CreatedServer> {
  return authRequest<CreatedServer>('manager', '/api/admin/servers', { method: 'POST', body });
}

export function rotateAgentToken(id: number): Promise<{ agent_token: string }> {
  return authRequest<{ agent_token: string }>('manager', `/api/admin/servers/${id}/token`, {
    method: 'POST',
  });
}

export function patchSettings(body: Partial<SiteSettings>): Promise<SiteSettings> {
  return authRequest<SiteSettings>('manager', '/api/admin/settings', { method: 'PATCH', body });
}

export function publishAdvertisement(body: { name: string; message: string }): Promise<Advertisement> {
  return authRequest<Advertisement>('manager', '/api/admin/advertisements', { method: 'POST', body });
}

export async function deleteAdvertisement(id: number): Promise<void> {
  await authRequest<unknown>('manager', `/api/admin/advertisements/${id}`, { method: 'DELETE' });
}

export function publishClientVersion(body: { version: string; url: string }): Promise<ClientVersion> {
  return authRequest<ClientVersion>('manager', '/api/admin/agent', { method: 'POST', body });
}

export function grantPeer(body: {
  username: string;
  plan: number;
  name: string;
  server?: number;
}): Promise<Peer> {
  return authRequest<Peer>('manager', '/api/admin/peers', { method: 'POST', body });
}
