/**
 * The console's fleet calls (issue 7): servers (list, detail, peers, edit, drain, delete, token),
 * the Resumen series, and the payment gateways of Ajustes. Keys start with 'manager' (dropped at
 * logout, see admin.ts).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type {
  AdminServer,
  AdminServerDetail,
  AgentInstall,
  DrainProgress,
  GatewayPatch,
  GatewaySettings,
  MetricsSeries,
  Paged,
  ServerPatch,
  ServerPeer,
} from '@vpn/contracts';
import { listSearch, PAGE_SIZE } from './adminList';
import { authRequest } from './session';

export type {
  AdminServer,
  AdminServerDetail,
  AgentInstall,
  DrainProgress,
  GatewaySettings,
  MetricsSeries,
  ServerPeer,
} from '@vpn/contracts';

export const fleetKeys = {
  servers: ['manager', 'servers'] as const,
  serverList: (q: string, page: number) => ['manager', 'servers', 'list', q, page] as const,
  server: (id: number) => ['manager', 'servers', 'detail', id] as const,
  serverPeers: (id: number, q: string, page: number) => ['manager', 'servers', 'peers', id, q, page] as const,
  series: (from: string, to: string) => ['manager', 'metrics', 'series', from, to] as const,
  gateways: ['manager', 'settings', 'gateways'] as const,
};

/** A server's peers in its detail panel: a shorter page than the console's lists. */
export const SERVER_PEERS_PAGE_SIZE = 10;

export function serverListQuery(q: string, page: number) {
  return queryOptions({
    queryKey: fleetKeys.serverList(q, page),
    queryFn: ({ signal }) =>
      authRequest<Paged<AdminServer>>(
        'manager',
        `/api/admin/servers${listSearch({ page, page_size: PAGE_SIZE, q })}`,
        { signal },
      ),
    placeholderData: keepPreviousData,
  });
}

/** Every server (for a picker): the first 100 are plenty for a fleet's select. */
export function allServersQuery() {
  return queryOptions({
    queryKey: fleetKeys.serverList('', 0),
    queryFn: async ({ signal }) =>
      (await authRequest<Paged<AdminServer>>('manager', '/api/admin/servers?page_size=100', { signal }))
        .results,
  });
}

export function serverDetailQuery(id: number) {
  return queryOptions({
    queryKey: fleetKeys.server(id),
    queryFn: ({ signal }) =>
      authRequest<AdminServerDetail>('manager', `/api/admin/servers/${id}`, { signal }),
  });
}

export function serverPeersQuery(id: number, q: string, page: number) {
  return queryOptions({
    queryKey: fleetKeys.serverPeers(id, q, page),
    queryFn: ({ signal }) =>
      authRequest<Paged<ServerPeer>>(
        'manager',
        `/api/admin/servers/${id}/peers${listSearch({ page, page_size: SERVER_PEERS_PAGE_SIZE, q })}`,
        { signal },
      ),
    placeholderData: keepPreviousData,
  });
}

export function patchServer(id: number, body: ServerPatch): Promise<AdminServer> {
  return authRequest<AdminServer>('manager', `/api/admin/servers/${id}`, { method: 'PATCH', body });
}

export function drainServer(id: number, reason: string): Promise<DrainProgress> {
  return authRequest<DrainProgress>('manager', `/api/admin/servers/${id}/drain`, {
    method: 'POST',
    body: reason ? { reason } : {},
  });
}

export async function deleteServer(id: number): Promise<void> {
  await authRequest<unknown>('manager', `/api/admin/servers/${id}`, { method: 'DELETE' });
}

export function rotateServerToken(id: number): Promise<AgentInstall> {
  return authRequest<AgentInstall>('manager', `/api/admin/servers/${id}/token`, { method: 'POST' });
}

/** "Actualizar agente": 202 with the server, whose `agent_upgrade` then follows the pushes. */
export function upgradeServerAgent(id: number): Promise<AdminServerDetail> {
  return authRequest<AdminServerDetail>('manager', `/api/admin/servers/${id}/agent-upgrade`, {
    method: 'POST',
  });
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

export function createServer(body: NewServerBody): Promise<AgentInstall & { server: AdminServer }> {
  return authRequest('manager', '/api/admin/servers', { method: 'POST', body });
}

export function seriesQuery(from: string, to: string) {
  return queryOptions({
    queryKey: fleetKeys.series(from, to),
    queryFn: ({ signal }) =>
      authRequest<MetricsSeries>(
        'manager',
        `/api/admin/metrics/series?${new URLSearchParams({ from, to }).toString()}`,
        { signal },
      ),
    placeholderData: keepPreviousData,
  });
}

export function gatewaysQuery() {
  return queryOptions({
    queryKey: fleetKeys.gateways,
    queryFn: ({ signal }) =>
      authRequest<GatewaySettings>('manager', '/api/admin/settings/gateways', { signal }),
  });
}

export function patchGateways(body: GatewayPatch): Promise<GatewaySettings> {
  return authRequest<GatewaySettings>('manager', '/api/admin/settings/gateways', { method: 'PATCH', body });
}
