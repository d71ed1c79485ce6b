import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import {
  cachedPeer,
  configFileName,
  fetchPeerConfig,
  patchPeer,
  saveTextFile,
  setCachedProcessing,
  upsertCachedPeer,
} from '../../../api/peers';
import type { AvailableServer, ConfigFormat, Peer, PeerOperation } from '../../../api/peers';
import { queryKeys } from '../../../api/queries';
import { useRealtime } from '../../../api/RealtimeProvider';
import { es } from '../../../i18n/es';

/**
 * A busy state no push has ended after this long is checked against the server (the control plane
 * itself gives up waiting for agents after 30 s and pushes an `info`; this only covers a push lost on
 * the way, e.g. the socket dropping at that moment).
 */
export const BUSY_CHECK_MS = 45_000;

const t = es.dashboard.peers;

/**
 * The Peers page's actions. Regenerate and change-server mark the peer busy in the cached list the
 * moment they are confirmed; the push websocket ends that state (see `api/peers.ts`). The HTTP answer
 * never ends it early: when it arrives before the push, its data is written but the busy flag kept;
 * when the push came first, the (older) answer is dropped. Without a live socket there is no push to
 * wait for, so the answer is taken as it is.
 */
export function usePeerActions() {
  const queryClient = useQueryClient();
  const { status } = useRealtime();
  const live = useRef(status === 'open');
  useEffect(() => {
    live.current = status === 'open';
  }, [status]);

  async function startOperation(peer: Peer, op: PeerOperation, run: () => Promise<Peer>, fallback: string) {
    await queryClient.cancelQueries({ queryKey: queryKeys.peers });
    setCachedProcessing(queryClient, peer.id, op);
    try {
      const answer = await run();
      const current = cachedPeer(queryClient, peer.id);
      if (!live.current) upsertCachedPeer(queryClient, answer);
      else if (current?.processing) {
        upsertCachedPeer(queryClient, { ...answer, processing: answer.processing ?? current.processing });
      }
      setTimeout(() => {
        if (cachedPeer(queryClient, peer.id)?.processing) {
          void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
        }
      }, BUSY_CHECK_MS);
    } catch (error) {
      setCachedProcessing(queryClient, peer.id, null);
      // The server may know better (e.g. 'already busy'): read the list again.
      void queryClient.invalidateQueries({ queryKey: queryKeys.peers });
      toast.error(errorMessage(error, fallback));
    }
  }

  return {
    /** New mirror link (synchronous: the answer is the updated peer). */
    async regenerateMirror(peer: Peer): Promise<void> {
      try {
        upsertCachedPeer(queryClient, await patchPeer(peer.id, { operation: 'regenerate_token' }));
        toast.success(es.msg.mirrorRegenerated);
      } catch (error) {
        toast.error(errorMessage(error, t.errors.mirror(peer.name)));
      }
    },

    regenerate(peer: Peer): Promise<void> {
      return startOperation(
        peer,
        'regenerate',
        () => patchPeer(peer.id, { operation: 'regenerate' }),
        t.errors.regenerate(peer.name),
      );
    },

    changeServer(peer: Peer, server: AvailableServer): Promise<void> {
      return startOperation(
        peer,
        'change_server',
        () => patchPeer(peer.id, { operation: 'change_server', server: server.id }),
        t.errors.changeServer,
      );
    },

    /** Downloads the `.conf` (or the MikroTik `.rsc`) as `{peer name}.conf`. */
    async download(peer: Peer, format: ConfigFormat = 'conf'): Promise<void> {
      try {
        const text = await fetchPeerConfig(peer.id, format);
        saveTextFile(configFileName(peer.name, format), text);
      } catch (error) {
        toast.error(
          errorMessage(
            error,
            format === 'mikrotik' ? t.errors.mikrotik(peer.name) : t.errors.download(peer.name),
          ),
        );
      }
    },
  };
}
