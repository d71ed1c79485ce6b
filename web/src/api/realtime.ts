/**
 * The live connection to `/ws?token=…` (spec §4 "A live websocket connection…" and §7): which paths
 * get one, the URL, the reconnect rule, and what each push message does to the cached data. The React
 * side (one provider for the whole app, toasts, the `useRealtime` hook) is `RealtimeProvider.tsx`.
 *
 * Rules, from the spec:
 *  - a connection is open only while a token exists and the path is under /dashboard/peers,
 *    /dashboard/partys (customer token) or /manager/dashboard (manager token);
 *  - after a connection that had been open closes, it is re-opened 5 s later. Reading of "had been
 *    open": once a connection of this run opened, every later close is retried after 5 s (so a
 *    control plane that restarts for longer than 5 s is still found again); a first connection that
 *    never opened is not retried;
 *  - the data it holds (the last message) resets on each path change (the provider does that).
 *
 * Beyond the spec: a connection the server refuses (`auth` error: the access token expired) is not
 * retried blindly every 5 s; it reconnects with a token another call has just rotated, or spends one
 * refresh through the session module (shared with the HTTP calls), and otherwise stays closed.
 */
import type { QueryClient } from '@tanstack/react-query';
import type { AdminPush, PushMessage } from '@vpn/contracts';
import { removeCachedRoom, setCachedRoomProcessing, upsertCachedRoom } from './rooms';
import { removeCachedPeer, setCachedProcessing, upsertCachedPeer } from './peers';
import { queryKeys } from './queries';
import { getAccessToken, refreshTokens } from './session';
// Messages are checked without zod (`shape.ts`): the socket runs on every dashboard page.
import { AdminPushShape, PushMessageShape, RoomShape } from './shape';
import type { Realm } from './session';

export type { PushMessage } from '@vpn/contracts';

/** Spec §9: websocket reconnect delay. */
export const RECONNECT_DELAY_MS = 5000;

/** The realm whose token opens the socket on `pathname`, or null where no socket may be open. */
export function realtimeRealmFor(pathname: string): Realm | null {
  const under = (base: string) => pathname === base || pathname.startsWith(`${base}/`);
  if (under('/dashboard/peers') || under('/dashboard/partys')) return 'client';
  if (under('/manager/dashboard')) return 'manager';
  return null;
}

/** `ws://host/ws?token=…`, or `wss:` when the page itself is served over https. */
export function websocketUrl(
  token: string,
  location: Pick<Location, 'protocol' | 'host'> = window.location,
): string {
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  return `${scheme}://${location.host}/ws?token=${encodeURIComponent(token)}`;
}

export type RealtimeStatus = 'connecting' | 'open' | 'closed';

/** What the connection needs of a WebSocket (the browser's, or a fake in tests). */
export type SocketLike = Pick<WebSocket, 'close' | 'readyState'> & {
  onopen: ((event: Event) => void) | null;
  onmessage: ((event: MessageEvent) => void) | null;
  onclose: ((event: CloseEvent) => void) | null;
  onerror: ((event: Event) => void) | null;
};

export interface RealtimeOptions {
  realm: Realm;
  /** Every valid push message, `auth` included. */
  onMessage: (message: PushMessage) => void;
  /** The manager console's pushes (ids of what changed; the console re-reads). */
  onAdminMessage?: (message: AdminPush) => void;
  onStatus?: (status: RealtimeStatus) => void;
  /** The server accepted the socket (`auth` ok): pushes are flowing from now on. */
  onReady?: () => void;
  createSocket?: (url: string) => SocketLike;
  reconnectDelayMs?: number;
}

/**
 * One live connection for one realm, kept open (and re-opened) until {@link stop}. Invalid or
 * unknown messages are ignored: a newer server must not break an older page.
 */
export class RealtimeConnection {
  private socket: SocketLike | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private stopped = false;
  private everOpen = false;
  /** The token the server refused on the current socket, if it did. */
  private refusedToken: string | null = null;
  /** One refresh per refusal streak: a refused fresh token means the session is over. */
  private refreshSpent = false;

  constructor(private readonly options: RealtimeOptions) {}

  start(): void {
    this.stopped = false;
    this.connect();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const socket = this.socket;
    this.socket = null;
    if (socket) {
      socket.onopen = socket.onmessage = socket.onerror = socket.onclose = null;
      socket.close(1000);
    }
  }

  private setStatus(status: RealtimeStatus): void {
    this.options.onStatus?.(status);
  }

  private connect(): void {
    if (this.stopped) return;
    const token = getAccessToken(this.options.realm);
    if (!token) {
      this.setStatus('closed');
      return;
    }
    const create = this.options.createSocket ?? ((url: string) => new WebSocket(url));
    const socket = create(websocketUrl(token));
    this.socket = socket;
    this.refusedToken = null;
    this.setStatus('connecting');

    socket.onopen = () => {
      this.everOpen = true;
      this.setStatus('open');
    };
    socket.onmessage = (event) => {
      const message = parseMessage(event.data);
      if (!message) {
        const admin = parseAdminMessage(event.data);
        if (admin) this.options.onAdminMessage?.(admin);
        return;
      }
      if (message.type === 'auth') {
        if (message.status === 'ok') {
          this.refreshSpent = false;
          this.options.onReady?.();
        } else {
          this.refusedToken = token;
        }
      }
      this.options.onMessage(message);
    };
    socket.onerror = () => {
      /* a close event follows */
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.setStatus('closed');
      if (this.stopped) return;
      if (this.refusedToken) void this.recoverFromRefusal(this.refusedToken);
      else if (this.everOpen) this.schedule(this.options.reconnectDelayMs ?? RECONNECT_DELAY_MS);
    };
  }

  private schedule(delay: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      this.connect();
    }, delay);
  }

  private async recoverFromRefusal(refused: string): Promise<void> {
    const realm = this.options.realm;
    const current = getAccessToken(realm);
    // Another call already rotated the tokens: use the new one at once.
    if (current && current !== refused) return this.connect();
    if (this.refreshSpent) return;
    this.refreshSpent = true;
    let ok: boolean;
    try {
      ok = await refreshTokens(realm);
    } catch {
      // No answer: the link is down, not the session. Try again later, with a refresh again.
      this.refreshSpent = false;
      if (!this.stopped) this.schedule(this.options.reconnectDelayMs ?? RECONNECT_DELAY_MS);
      return;
    }
    if (ok && !this.stopped) this.connect();
  }
}

function parseAdminMessage(data: unknown): AdminPush | null {
  if (typeof data !== 'string') return null;
  try {
    const parsed = AdminPushShape.safeParse(JSON.parse(data));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function parseMessage(data: unknown): PushMessage | null {
  if (typeof data !== 'string') return null;
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return null;
  }
  const parsed = PushMessageShape.safeParse(raw);
  return parsed.success ? parsed.data : null;
}

/**
 * What a push message does to the customer's cached data: `created_peer`/`updated_peer` write the
 * peer into the list, `deleted_peer` drops it, and a `success`/`error`/`info` about a peer ends its
 * busy state (the operation is over, or queued for an offline server).
 *
 * Rooms: `new_party_operation`/`stop_party_operation` set and clear a room's in-progress state,
 * `updated_owner_party`/`updated_guest_party` write the room into its list, `deleted_owner_party`/
 * `deleted_guest_party` drop it (the page then shows the list again). After any room change the
 * peer list (which peers are free) is read again.
 */
export function applyPushToCache(queryClient: QueryClient, message: PushMessage): void {
  if (message.type.includes('party') && queryClient.isFetching({ queryKey: queryKeys.rooms }) > 0) {
    // A read of the lists in flight may answer from before this change and overwrite it: it is
    // replaced by a fresh one (invalidating cancels the running fetch).
    void queryClient.invalidateQueries({ queryKey: queryKeys.rooms });
  }
  switch (message.type) {
    case 'new_party_operation':
    case 'stop_party_operation':
      setCachedRoomProcessing(queryClient, message.party_id, message.type === 'new_party_operation');
      break;
    case 'updated_owner_party':
    case 'updated_guest_party': {
      const room = RoomShape.safeParse(message.party);
      if (!room.success) break;
      upsertCachedRoom(queryClient, message.type === 'updated_owner_party' ? 'owned' : 'guest', room.data);
      void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
      break;
    }
    case 'deleted_owner_party':
    case 'deleted_guest_party':
      removeCachedRoom(queryClient, message.party_id);
      void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
      break;
    case 'created_peer':
    case 'updated_peer':
      upsertCachedPeer(queryClient, message.peer);
      break;
    case 'deleted_peer':
      removeCachedPeer(queryClient, message.peer_id);
      break;
    case 'success':
    case 'error':
    case 'info':
      if (message.peer_id !== undefined) setCachedProcessing(queryClient, message.peer_id, null);
      break;
    default:
      break;
  }
}

/**
 * A socket the server has just accepted: pushes sent while none was listening (before the first
 * connection, or during an outage) are lost, so the peer list and the rooms are read again (only
 * where they are cached: invalidating a query nobody asked for is a no-op).
 */
export function catchUp(queryClient: QueryClient, realm: Realm): void {
  if (realm !== 'client') return;
  void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
  void queryClient.invalidateQueries({ queryKey: queryKeys.rooms });
}
