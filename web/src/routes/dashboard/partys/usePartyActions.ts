import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import {
  deleteParty,
  isParty,
  leaveParty,
  regeneratePartyPassword,
  removeCachedParty,
  removePartyPeer,
  updateCachedParty,
  upsertCachedParty,
} from '../../../api/partys';
import type { Party, PartyPeer, PartyRole } from '../../../api/partys';
import { queryKeys } from '../../../api/queries';
import { toastPartyDeleted, toastPartyLeft } from '../../../api/RealtimeProvider';
import { esPartys } from '../../../i18n/es.partys';

const t = esPartys;

/** A room as the server answered it: only its owner gets the password, so that tells the list. */
export function roleOf(party: Party): PartyRole {
  return party.password !== null ? 'owned' : 'guest';
}

/**
 * Writes a room the server just answered into the cached lists and reads the peers again (which
 * are free changed). Used by every call that answers a room.
 */
export function applyPartyAnswer(queryClient: QueryClient, party: Party): void {
  upsertCachedParty(queryClient, roleOf(party), party);
  void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
}

export interface PeerRemoval {
  party: Party;
  peer: PartyPeer;
  /** A guest taking their own peer out ('leave'); otherwise the owner removes it ('remove_peer'). */
  leave: boolean;
}

/**
 * The detail view's confirmed actions (regenerate the password, take a peer out, delete the room).
 * They live in the page, not in the confirmation, which closes (and unmounts) once confirmed. Each
 * writes its answer into the cache and toasts the result; failures toast the server's message or the
 * spec's fallback.
 */
export function usePartyActions() {
  const queryClient = useQueryClient();
  const freePeersChanged = () => void queryClient.invalidateQueries({ queryKey: queryKeys.peers });

  const regenerate = useMutation({
    mutationFn: (party: Party) => regeneratePartyPassword(party.id),
    onSuccess: (password, party) => {
      updateCachedParty(queryClient, party.id, (p) => ({ ...p, password }));
      toast.success(t.toasts.passwordRegenerated);
    },
    onError: (error) => void toast.error(errorMessage(error, t.errors.regenerate)),
  });

  const removePeer = useMutation({
    mutationFn: ({ party, peer, leave }: PeerRemoval) =>
      leave ? leaveParty(party.id, peer.id) : removePartyPeer(party.id, peer.id),
    onSuccess: (answer, { party }) => {
      if (isParty(answer)) {
        applyPartyAnswer(queryClient, answer);
        toast.success(t.toasts.peerRemoved);
      } else {
        // The server no longer shows me the room: my last peer left it.
        removeCachedParty(queryClient, party.id);
        freePeersChanged();
        toastPartyLeft(party.id);
      }
    },
    onError: (error, { leave }) =>
      void toast.error(errorMessage(error, leave ? t.errors.leave : t.errors.remove)),
  });

  const remove = useMutation({
    mutationFn: (party: Party) => deleteParty(party.id),
    onSuccess: (_answer, party) => {
      removeCachedParty(queryClient, party.id);
      freePeersChanged();
      toastPartyDeleted(party.id);
    },
    onError: (error) => void toast.error(errorMessage(error, t.errors.delete)),
  });

  return { regenerate, removePeer, remove };
}

export type PartyActions = ReturnType<typeof usePartyActions>;
