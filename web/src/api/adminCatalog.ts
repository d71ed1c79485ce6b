/**
 * The console's catalogue calls: plans, rooms (Salas) and peers (`/api/admin/plans|partys|peers`).
 * Query keys start with 'manager' (dropped when the manager session ends).
 */
import { keepPreviousData, queryOptions } from '@tanstack/react-query';
import type { AdminPeer, AdminPeerDetail, AdminPlan, Paged, Peer } from '@vpn/contracts';
import { listSearch } from './adminList';
import type { AdminRoom, AdminRoomDetail, BulkPeersAnswer, BulkPeersBody } from '@vpn/contracts';
import { authRequest } from './session';

export type { AdminPeer, AdminPeerDetail, AdminPlan } from '@vpn/contracts';
export type { AdminRoom, AdminRoomDetail } from '@vpn/contracts';

/** A list page's query string: search, page and the filters of that list. */
export type ListParams = Record<string, string | number | undefined>;

export const catalogKeys = {
  plans: ['manager', 'plans'] as const,
  rooms: ['manager', 'rooms'] as const,
  peers: ['manager', 'peers'] as const,
};

/** Lists keep the previous page on screen while the next loads (no flash). */
function listQuery<T>(key: readonly string[], path: string, params: ListParams) {
  return queryOptions({
    queryKey: [...key, 'list', params],
    queryFn: ({ signal }) => authRequest<Paged<T>>('manager', `${path}${listSearch(params)}`, { signal }),
    placeholderData: keepPreviousData,
  });
}

export const adminPlansQuery = (params: ListParams) =>
  listQuery<AdminPlan>(catalogKeys.plans, '/api/admin/plans', params);
export const adminRoomsQuery = (params: ListParams) =>
  listQuery<AdminRoom>(catalogKeys.rooms, '/api/admin/partys', params);
export const adminPeersQuery = (params: ListParams) =>
  listQuery<AdminPeer>(catalogKeys.peers, '/api/admin/peers', params);

export function adminRoomQuery(id: number) {
  return queryOptions({
    queryKey: [...catalogKeys.rooms, 'detail', id],
    queryFn: ({ signal }) => authRequest<AdminRoomDetail>('manager', `/api/admin/partys/${id}`, { signal }),
  });
}

export function adminPeerQuery(id: number) {
  return queryOptions({
    queryKey: [...catalogKeys.peers, 'detail', id],
    queryFn: ({ signal }) => authRequest<AdminPeerDetail>('manager', `/api/admin/peers/${id}`, { signal }),
  });
}

export interface PlanBody {
  name: string;
  description: string;
  price: string;
  validity_days: number;
  hidden: boolean;
  sort_order: number;
  /** GB for the validity, null = unlimited. */
  data_gb: number | null;
  /** Issue 35: Mbit/s each way (null = unlimited), what running out of data does, reduced speed, grace. */
  speed_down_mbit: number | null;
  speed_up_mbit: number | null;
  on_data_exhausted: 'cut' | 'reduce';
  reduced_kbit: number;
  grace_days: number;
}

export const createPlan = (body: PlanBody) =>
  authRequest<AdminPlan>('manager', '/api/admin/plans', { method: 'POST', body });
export const updatePlan = (id: number, body: Partial<PlanBody>) =>
  authRequest<AdminPlan>('manager', `/api/admin/plans/${id}`, { method: 'PATCH', body });
export const deletePlan = (id: number) =>
  authRequest<null>('manager', `/api/admin/plans/${id}`, { method: 'DELETE' });

export const deleteRoom = (id: number, reason: string) =>
  authRequest<null>('manager', `/api/admin/partys/${id}`, { method: 'DELETE', body: { reason } });

export type PeerPatch =
  | { active?: boolean; expires_at?: string | null; reason?: string }
  | { operation: 'grant'; plan: number; reason: string }
  | { operation: 'change_server'; server: number };

export const patchPeer = (id: number, body: PeerPatch) =>
  authRequest<AdminPeerDetail>('manager', `/api/admin/peers/${id}`, { method: 'PATCH', body });

export const createManualPeer = (body: { username: string; plan: number; name: string; server?: number }) =>
  authRequest<Peer>('manager', '/api/admin/peers', { method: 'POST', body });

/**
 * Bulk actions on peers by filter (issue 34): `preview` counts what would change; otherwise it
 * changes them (403 `reauth_required` over 100 peers or for a move: the console's confirmation
 * dialog asks for the password and the call goes again).
 */
export function bulkPeers(body: BulkPeersBody): Promise<BulkPeersAnswer> {
  return authRequest<BulkPeersAnswer>('manager', '/api/admin/peers/bulk', { method: 'POST', body });
}
