/**
 * The app's one live connection, as React sees it (rules and transport: `realtime.ts`). Mounted once
 * at the root of the route tree, it opens the socket for the realm the current path asks for, toasts
 * the messages meant for people, writes peer changes into the query cache, and exposes the status
 * and the last message (reset on each path change) through {@link useRealtime}.
 */
import { useQueryClient } from '@tanstack/react-query';
import { Info } from 'lucide-react';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { AdminPush } from '@vpn/contracts';
import type { ReactNode } from 'react';
import toast from 'react-hot-toast';
import { useLocation } from 'react-router';
import { esRooms } from '../i18n/es.rooms';
import { RealtimeConnection, applyPushToCache, catchUp, realtimeRealmFor } from './realtime';
import type { PushMessage, RealtimeStatus } from './realtime';
import { hasSession, onSessionEnd } from './session';
import type { Realm } from './session';

export interface RealtimeState {
  /** The realm whose socket the current path opens, or null (no socket on this path). */
  realm: Realm | null;
  /** 'closed' also where no socket may be open. */
  status: RealtimeStatus;
  /** The last push message received on this path (null after every path change). */
  lastMessage: PushMessage | null;
}

const RealtimeContext = createContext<RealtimeState>({ realm: null, status: 'closed', lastMessage: null });

export function useRealtime(): RealtimeState {
  return useContext(RealtimeContext);
}

const adminListeners = new Set<(message: AdminPush) => void>();

/**
 * Runs `handler` for every manager-console push (`admin_server`, `admin_invoice`, `admin_payment`,
 * `admin_audit`, `admin_drain`) while the component is mounted; typically it invalidates the queries it shows.
 */
export function useAdminPush(handler: (message: AdminPush) => void): void {
  const ref = useRef(handler);
  useEffect(() => {
    ref.current = handler;
  });
  useEffect(() => {
    const listener = (m: AdminPush) => ref.current(m);
    adminListeners.add(listener);
    return () => {
      adminListeners.delete(listener);
    };
  }, []);
}

const infoIcon = <Info className="size-5 shrink-0 text-sky-300" aria-hidden="true" />;

/**
 * 'Party eliminada': the owner's room is gone. One toast per room, whether the page's own DELETE
 * answer or the `deleted_owner_party` push says it first (same toast id).
 */
export function toastRoomDeleted(roomId: number): void {
  toast.success(esRooms.toasts.deleted, { id: `room-deleted-${roomId}` });
}

/** 'Haz salido de una sala': I no longer have a peer in someone else's room (one toast per room). */
export function toastRoomLeft(roomId: number): void {
  toast(esRooms.toasts.left, { id: `room-left-${roomId}`, icon: infoIcon });
}

/**
 * Toasts the messages written for people: success, error, and info (a blank toast with an info icon),
 * and the end of a room (`deleted_owner_party`, `deleted_guest_party`).
 */
export function toastPushMessage(message: PushMessage): void {
  switch (message.type) {
    case 'deleted_owner_party':
      toastRoomDeleted(message.party_id);
      break;
    case 'deleted_guest_party':
      toastRoomLeft(message.party_id);
      break;
    case 'success':
      toast.success(message.message);
      break;
    case 'error':
      toast.error(message.message);
      break;
    case 'info':
      toast(message.message, { icon: infoIcon });
      break;
    default:
      break;
  }
}

export function RealtimeProvider({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  const queryClient = useQueryClient();
  const realm = realtimeRealmFor(pathname);
  const hasToken = realm !== null && hasSession(realm);
  const [status, setStatus] = useState<RealtimeStatus>('closed');
  const [lastMessage, setLastMessage] = useState<PushMessage | null>(null);

  // Spec: the connection's data resets on each path change.
  const [lastPath, setLastPath] = useState(pathname);
  if (lastPath !== pathname) {
    setLastPath(pathname);
    setLastMessage(null);
  }

  useEffect(() => {
    if (!realm || !hasToken) return;
    const connection = new RealtimeConnection({
      realm,
      onStatus: setStatus,
      onReady: () => catchUp(queryClient, realm),
      onMessage: (message) => {
        if (realm === 'client') applyPushToCache(queryClient, message);
        toastPushMessage(message);
        setLastMessage(message);
      },
      onAdminMessage: (message) => {
        for (const listener of adminListeners) listener(message);
      },
    });
    connection.start();
    // Logging out (or a failed refresh) ends the socket at once, before the redirect lands.
    const unsubscribe = onSessionEnd((ended) => {
      if (ended === realm) connection.stop();
    });
    return () => {
      unsubscribe();
      connection.stop();
      setStatus('closed');
    };
  }, [realm, hasToken, queryClient]);

  return (
    <RealtimeContext.Provider value={{ realm, status: realm && hasToken ? status : 'closed', lastMessage }}>
      {children}
    </RealtimeContext.Provider>
  );
}
