import { useQuery } from '@tanstack/react-query';
import { ShieldAlert } from 'lucide-react';
import { Suspense, lazy } from 'react';
import { errorMessage } from '../../../api/http';
import { fetchPeerConfig } from '../../../api/peers';
import type { ConfigScope, Peer } from '../../../api/peers';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { LoadingBlock } from '../../../components/LoadingScreen';
import { Modal } from '../../../components/Modal';
import { es } from '../../../i18n/es';

const t = es.dashboard.peers.qr;

/** The QR encoder is a chunk of its own, fetched the first time a customer opens this dialog. */
const QrCode = lazy(() => import('../../../components/QrCode').then((m) => ({ default: m.QrCode })));

/** The peer's `.conf` as a QR code for the phone apps, with a warning: it holds the private key. */
export function PeerQrDialog({ peer, onClose }: { peer: Peer | null; onClose: () => void }) {
  return (
    <Modal
      open={peer !== null}
      onOpenChange={(open) => !open && onClose()}
      title={peer ? t.title(peer.name) : ''}
      description={t.description}
      size="max-w-md"
    >
      {peer && (
        <ConfigQr peer={peer} scope="full" label={t.imageLabel(peer.name)} errorText={t.error(peer.name)} />
      )}
    </Modal>
  );
}

/**
 * A peer's config (`full` or the room-only one) as a QR code, under the private-key warning; the
 * text is fetched when this mounts and the encoder is loaded then.
 */
export function ConfigQr({
  peer,
  scope,
  label,
  errorText,
}: {
  peer: { id: number; name: string };
  scope: ConfigScope;
  label: string;
  errorText: string;
}) {
  // Never kept once the dialog closes (gcTime 0): the text holds the private key.
  const config = useQuery({
    queryKey: ['client', 'peer-config', peer.id, scope],
    queryFn: () => fetchPeerConfig(peer.id, 'conf', scope),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
  return (
    <div className="space-y-4">
      <p
        role="note"
        className="flex items-start gap-2 rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2.5 text-sm text-amber-100"
      >
        <ShieldAlert className="mt-0.5 size-4 shrink-0 text-amber-300" aria-hidden="true" />
        {t.warning}
      </p>
      {config.isPending ? (
        <LoadingBlock label={t.loading} />
      ) : config.isError ? (
        <ErrorPanel message={errorMessage(config.error, errorText)} onRetry={() => void config.refetch()} />
      ) : (
        <div className="mx-auto w-full max-w-72 overflow-hidden rounded-xl">
          <Suspense fallback={<LoadingBlock label={t.loading} />}>
            <QrCode text={config.data} label={label} className="block h-auto w-full" />
          </Suspense>
        </div>
      )}
    </div>
  );
}
