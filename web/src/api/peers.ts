/**
 * Peers: the calls of the Peers page and the helpers that keep the cached peer list current.
 *
 * The cached list (`queryKeys.peers`) is the one source of truth for a peer's busy state: a peer is
 * busy while its `processing` field is set. The page sets it optimistically the moment the customer
 * confirms 'Regenerar Peer' or 'Cambiar Servidor', and only a push message ends it (see
 * `realtime.ts`: `updated_peer` carries the server's state, and a `success`/`error`/`info` naming the
 * peer clears it), so the row stays disabled from the click until the servers have answered.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { Peer, PeerConfigQuery, PeerOperation, PeerPatchBody } from '@vpn/contracts';
import { PeerShape } from './shape';
import { parse } from './http';
import { queryKeys } from './queries';
import { saveBlob } from '../lib/download';
import { authFetch, authRequest } from './session';

export type { AvailableServer, Peer, PeerOperation } from '@vpn/contracts';

/** `PATCH /api/client/accounts/peers/{id}`: regenerate_token, regenerate or change_server. */
export function patchPeer(id: number, body: PeerPatchBody): Promise<Peer> {
  return authRequest('client', `/api/client/accounts/peers/${id}`, { method: 'PATCH', body }, PeerShape);
}

export type ConfigFormat = 'conf' | 'mikrotik';
/** `full`: everything through the VPN; `room`: only the peer's room (the room-only tunnel). */
export type ConfigScope = PeerConfigQuery['scope'];

/**
 * `GET /api/client/accounts/peers/{id}` (`?format=mikrotik` for the RouterOS script, `?scope=room`
 * for the room-only tunnel): the config as text. Goes through the session module, so a refused
 * token is refreshed once and the call retried. Throws `ApiError` with the server's message (e.g.
 * an inactive peer, or a peer in no room for `room`) on failure.
 */
export async function fetchPeerConfig(
  id: number,
  format: ConfigFormat = 'conf',
  scope: ConfigScope = 'full',
): Promise<string> {
  const params = new URLSearchParams();
  if (format !== 'conf') params.set('format', format);
  if (scope !== 'full') params.set('scope', scope);
  const query = params.toString() ? `?${params.toString()}` : '';
  const res = await authFetch('client', `/api/client/accounts/peers/${id}${query}`);
  if (!res.ok) await parse(res); // throws the ApiError carrying the server's { message }
  return res.text();
}

/**
 * The file name a config is saved under: `{peer name}.conf` (or `.rsc`), and `{peer name}-sala.conf`
 * for the room-only tunnel, so the apps keep it as a tunnel of its own. WireGuard apps take the
 * tunnel's name from the file name and refuse names outside `[A-Za-z0-9_=+.-]{1,32}` (the Android
 * app rejects the import), so a name with spaces or accents is reduced to that alphabet — 'Móvil de
 * Ana' becomes 'Movil-de-Ana.conf'. A name that already fits is kept exactly.
 */
export function configFileName(
  peerName: string,
  format: ConfigFormat = 'conf',
  scope: ConfigScope = 'full',
): string {
  const ext = format === 'mikrotik' ? 'rsc' : 'conf';
  const suffix = scope === 'room' ? '-sala' : '';
  const room = 32 - suffix.length;
  if (new RegExp(`^[A-Za-z0-9_=+.-]{1,${room}}$`).test(peerName)) return `${peerName}${suffix}.${ext}`;
  const cleaned = peerName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_=+.-]+/g, '-')
    .replace(/^[-.]+|-+$/g, '')
    .slice(0, room)
    .replace(/-+$/g, '');
  return `${cleaned || 'peer'}${suffix}.${ext}`;
}

/** Hands `text` to the browser as a download named `fileName` (Blob + object URL). */
export function saveTextFile(fileName: string, text: string): void {
  saveBlob(fileName, new Blob([text], { type: 'text/plain;charset=utf-8' }));
}

// ---------------------------------------------------------------------------------------------
// Cache helpers (used by the page's mutations and by the push websocket)

/** Replaces one peer in the cached list (or appends it, for `created_peer`). No list cached: no-op. */
export function upsertCachedPeer(queryClient: QueryClient, peer: Peer): void {
  queryClient.setQueryData<Peer[]>(queryKeys.peers, (list) => {
    if (!list) return list;
    const index = list.findIndex((p) => p.id === peer.id);
    if (index === -1) return [...list, peer];
    const next = list.slice();
    next[index] = peer;
    return next;
  });
}

/** Changes one cached peer in place (no-op when it is not cached). */
export function updateCachedPeer(queryClient: QueryClient, id: number, change: (peer: Peer) => Peer): void {
  queryClient.setQueryData<Peer[]>(queryKeys.peers, (list) =>
    list?.map((p) => (p.id === id ? change(p) : p)),
  );
}

export function removeCachedPeer(queryClient: QueryClient, id: number): void {
  queryClient.setQueryData<Peer[]>(queryKeys.peers, (list) => list?.filter((p) => p.id !== id));
}

export function cachedPeer(queryClient: QueryClient, id: number): Peer | undefined {
  return queryClient.getQueryData<Peer[]>(queryKeys.peers)?.find((p) => p.id === id);
}

/** Marks a peer busy (`processing`) or not, in the cache. */
export function setCachedProcessing(queryClient: QueryClient, id: number, op: PeerOperation | null): void {
  updateCachedPeer(queryClient, id, (p) => (p.processing === op ? p : { ...p, processing: op }));
}
