import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import {
  deleteRoom,
  isRoom,
  leaveRoom,
  regenerateRoomPassword,
  removeCachedRoom,
  removeRoomPeer,
  updateCachedRoom,
  upsertCachedRoom,
} from '../../../api/rooms';
import type { Room, RoomPeer, RoomRole } from '../../../api/rooms';
import { queryKeys } from '../../../api/queries';
import { toastRoomDeleted, toastRoomLeft } from '../../../api/RealtimeProvider';
import { esRooms } from '../../../i18n/es.rooms';

const t = esRooms;

/** A room as the server answered it: only its owner gets the password, so that tells the list. */
export function roleOf(room: Room): RoomRole {
  return room.password !== null ? 'owned' : 'guest';
}

/**
 * Writes a room the server just answered into the cached lists and reads the peers again (which
 * are free changed). Used by every call that answers a room.
 */
export function applyRoomAnswer(queryClient: QueryClient, room: Room): void {
  upsertCachedRoom(queryClient, roleOf(room), room);
  void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
}

export interface PeerRemoval {
  room: Room;
  peer: RoomPeer;
  /** A guest taking their own peer out ('leave'); otherwise the owner removes it ('remove_peer'). */
  leave: boolean;
}

/**
 * The detail view's confirmed actions (regenerate the password, take a peer out, delete the room).
 * They live in the page, not in the confirmation, which closes (and unmounts) once confirmed. Each
 * writes its answer into the cache and toasts the result; failures toast the server's message or the
 * spec's fallback.
 */
export function useRoomActions() {
  const queryClient = useQueryClient();
  const freePeersChanged = () => void queryClient.invalidateQueries({ queryKey: queryKeys.peers });

  const regenerate = useMutation({
    mutationFn: (room: Room) => regenerateRoomPassword(room.id),
    onSuccess: (password, room) => {
      updateCachedRoom(queryClient, room.id, (p) => ({ ...p, password }));
      toast.success(t.toasts.passwordRegenerated);
    },
    onError: (error) => void toast.error(errorMessage(error, t.errors.regenerate)),
  });

  const removePeer = useMutation({
    mutationFn: ({ room, peer, leave }: PeerRemoval) =>
      leave ? leaveRoom(room.id, peer.id) : removeRoomPeer(room.id, peer.id),
    onSuccess: (answer, { room }) => {
      if (isRoom(answer)) {
        applyRoomAnswer(queryClient, answer);
        toast.success(t.toasts.peerRemoved);
      } else {
        // The server no longer shows me the room: my last peer left it.
        removeCachedRoom(queryClient, room.id);
        freePeersChanged();
        toastRoomLeft(room.id);
      }
    },
    onError: (error, { leave }) =>
      void toast.error(errorMessage(error, leave ? t.errors.leave : t.errors.remove)),
  });

  const remove = useMutation({
    mutationFn: (room: Room) => deleteRoom(room.id),
    onSuccess: (_answer, room) => {
      removeCachedRoom(queryClient, room.id);
      freePeersChanged();
      toastRoomDeleted(room.id);
    },
    onError: (error) => void toast.error(errorMessage(error, t.errors.delete)),
  });

  return { regenerate, removePeer, remove };
}
