/**
 * Query-options factories, one per resource (TanStack's `queryOptions` pattern): a page writes
 * `useQuery(plansQuery())` and tests or loaders can prefetch the very same definition.
 *
 * Keys start with the realm for data that belongs to a session (`['client', …]`, `['manager', …]`),
 * so ending a session can drop exactly that data; public data starts with `'public'`.
 */
import { queryOptions } from '@tanstack/react-query';
import { publicRequest } from './http';
import { authRequest } from './session';
import {
  AdvertisementListShape,
  AvailableServerListShape,
  ClientVersionShape,
  CurrentUserShape,
  PeerListShape,
  PeerUsageShape,
  PublicSettingsShape,
  RoomListsShape,
  ServiceStatusShape,
} from './shape';

/**
 * The contracts' zod schemas, loaded with the first query that needs them (then cached by the
 * module system): zod is ~37 KiB gzip, and a public page served with its data inline runs none.
 * The customer's own answers are checked without zod (`shape.ts`): the login and the dashboard
 * never download it (issue 28).
 */
const schemas = () => import('@vpn/contracts');

export const queryKeys = {
  publicSettings: ['public', 'settings'] as const,
  status: ['public', 'status'] as const,
  plans: ['public', 'plans'] as const,
  currentUser: ['client', 'me'] as const,
  currentManager: ['manager', 'me'] as const,
  peers: ['client', 'peers'] as const,
  availableServers: (peerId: number) => ['client', 'network', peerId] as const,
  peerUsage: (peerId: number) => ['client', 'peers', peerId, 'usage'] as const,
  advertisements: ['client', 'advertisements'] as const,
  clientVersion: ['client', 'client-version'] as const,
  rooms: ['client', 'rooms'] as const,
};

/**
 * While a room shows its in-progress state the lists are read again this often: the push that ends
 * it (`stop_party_operation`, then the updated room) normally comes first, this only covers one lost
 * on the way (the socket dropping at that moment). The control plane gives up waiting after 30 s.
 */
export const ROOM_PROCESSING_RECHECK_MS = 15_000;

/** `GET /api/client`: the public settings every public page reads first. */
export function publicSettingsQuery() {
  return queryOptions({
    queryKey: queryKeys.publicSettings,
    queryFn: async ({ signal }) => publicRequest('/api/client', { signal }, PublicSettingsShape),
    staleTime: 30_000,
  });
}

/** `GET /api/client/status`: is the service in maintenance? (a 503 also means yes). */
export function serviceStatusQuery() {
  return queryOptions({
    queryKey: queryKeys.status,
    queryFn: async ({ signal }) => publicRequest('/api/client/status', { signal }, ServiceStatusShape),
    staleTime: 0,
  });
}

/** `GET /api/client/plans`: the plans on sale. */
export function plansQuery() {
  return queryOptions({
    queryKey: queryKeys.plans,
    queryFn: async ({ signal }) => publicRequest('/api/client/plans', { signal }, (await schemas()).PlanList),
    staleTime: 60_000,
  });
}

/** `GET /api/client/verify-token`: the signed-in customer (the dashboard's gate). */
export function currentUserQuery() {
  return queryOptions({
    queryKey: queryKeys.currentUser,
    queryFn: async ({ signal }) =>
      authRequest('client', '/api/client/verify-token', { signal }, CurrentUserShape),
    staleTime: 5 * 60_000,
  });
}

/** `GET /api/admin/verify-token`: the signed-in manager (the manager dashboard's gate). */
export function currentManagerQuery() {
  return queryOptions({
    queryKey: queryKeys.currentManager,
    queryFn: async ({ signal }) =>
      authRequest('manager', '/api/admin/verify-token', { signal }, (await schemas()).CurrentManager),
    staleTime: 5 * 60_000,
  });
}

/** `GET /api/client/accounts/peers`: the customer's peers (kept live by the push websocket). */
export function peersQuery() {
  return queryOptions({
    queryKey: queryKeys.peers,
    queryFn: async ({ signal }) =>
      authRequest('client', '/api/client/accounts/peers', { signal }, PeerListShape),
    staleTime: 30_000,
    // Pushes keep the list current, but a server whose agent stops answering sends none: read
    // again every minute while the page is in sight, so its peers' cards say "Sin conexión".
    refetchInterval: 60_000,
  });
}

/** `GET /api/client/accounts/peers/{id}/usage`: online, last handshake, period and 30 days of traffic. */
export function peerUsageQuery(peerId: number) {
  return queryOptions({
    queryKey: queryKeys.peerUsage(peerId),
    queryFn: async ({ signal }) =>
      authRequest('client', `/api/client/accounts/peers/${peerId}/usage`, { signal }, PeerUsageShape),
    staleTime: 60_000,
  });
}

/** `GET /api/client/network/{peerId}`: the servers a peer may move to (always asked afresh). */
export function availableServersQuery(peerId: number) {
  return queryOptions({
    queryKey: queryKeys.availableServers(peerId),
    queryFn: async ({ signal }) =>
      authRequest('client', `/api/client/network/${peerId}`, { signal }, AvailableServerListShape),
    staleTime: 0,
    gcTime: 0,
  });
}

/** `GET /api/client/advertisements`: the announcements of the dashboard home, newest first. */
export function advertisementsQuery() {
  return queryOptions({
    queryKey: queryKeys.advertisements,
    queryFn: async ({ signal }) =>
      authRequest('client', '/api/client/advertisements', { signal }, AdvertisementListShape),
    staleTime: 60_000,
  });
}

/** `GET /api/client/agent`: the newest client-app release managers published (nulls when none). */
export function clientVersionQuery() {
  return queryOptions({
    queryKey: queryKeys.clientVersion,
    queryFn: async ({ signal }) => authRequest('client', '/api/client/agent', { signal }, ClientVersionShape),
    staleTime: 5 * 60_000,
  });
}

/**
 * `GET /api/client/network/partys`: the rooms I own and the rooms my peers are guests in (kept live
 * by the push websocket; re-read every {@link ROOM_PROCESSING_RECHECK_MS} while one is processing).
 */
export function roomsQuery() {
  return queryOptions({
    queryKey: queryKeys.rooms,
    queryFn: async ({ signal }) =>
      authRequest('client', '/api/client/network/partys', { signal }, RoomListsShape),
    staleTime: 30_000,
    refetchInterval: (query) => {
      const lists = query.state.data;
      const busy = lists && [...lists.owned_partys, ...lists.guest_partys].some((p) => p.processing);
      return busy ? ROOM_PROCESSING_RECHECK_MS : false;
    },
  });
}
