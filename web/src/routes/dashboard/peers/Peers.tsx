import { useQuery } from '@tanstack/react-query';
import { MonitorSmartphone } from 'lucide-react';
import { Suspense, lazy, useEffect, useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import type { AvailableServer, Peer } from '../../../api/peers';
import { peersQuery } from '../../../api/queries';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { LoadingBlock } from '../../../components/LoadingScreen';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { useCurrentUser } from '../DashboardLayout';
import { PageHeader } from '../PageHeader';
import { ChangeServerView } from './ChangeServerView';
import { ConcurrentUseNotices } from './ConcurrentUseNotice';
import { PeerList } from './PeerList';
import { peerActionable } from './PeerStatus';
import type { PeerIntent } from './PeerList';
import { usePeerActions } from './usePeerActions';

const t = es.dashboard.peers;

// The dialogs (Radix, the usage chart, the QR encoder) are fetched when one is first opened, not
// with the page's first view: on a phone's CPU their code was a good part of the page's start
// (issue 32, Lighthouse on /dashboard/peers).
const ConfirmDialog = lazy(() =>
  import('../../../components/ConfirmDialog').then((m) => ({ default: m.ConfirmDialog })),
);
const PeerDetailsDialog = lazy(() =>
  import('./PeerDetailsDialog').then((m) => ({ default: m.PeerDetailsDialog })),
);
const PeerQrDialog = lazy(() => import('./PeerQrDialog').then((m) => ({ default: m.PeerQrDialog })));
const RoomConfigDialog = lazy(() =>
  import('./RoomConfigDialog').then((m) => ({ default: m.RoomConfigDialog })),
);

/** What the page shows over the list: a question, a dialog, or the change-server view. */
type Overlay =
  | { kind: 'confirmMirror' | 'confirmRegenerate' | 'details' | 'qr' | 'roomConfig'; peerId: number }
  | { kind: 'confirmChange'; peerId: number; server: AvailableServer };

/**
 * `/dashboard/peers` ('Peers Wireguard'): the customer's peers as a table (≥ 768 px) or cards, with
 * the mirror-link copy button, the config download and the actions menu; the change-server view;
 * confirm, details and QR dialogs. The list is kept live by the push websocket (see
 * `api/RealtimeProvider.tsx`), so every dialog reads the peer from it by id, never a stale copy.
 */
export function Peers() {
  const user = useCurrentUser();
  const showRooms = user.web_settings.allow_partys;
  const peers = useQuery(peersQuery());
  const actions = usePeerActions();
  const [overlay, setOverlay] = useState<Overlay | null>(null);
  const [changingPeerId, setChangingPeerId] = useState<number | null>(null);

  const find = (id: number | null | undefined) => peers.data?.find((p) => p.id === id) ?? null;

  // Home and the payment result link here with `?qr=ID` (the QR dialog) or `?change=ID` (the
  // change-server view): one tap from a notice to the thing it asks for.
  const [params, setParams] = useSearchParams();
  const wanted = { qr: Number(params.get('qr')), change: Number(params.get('change')) };
  const loaded = peers.data !== undefined;
  useEffect(() => {
    if (!loaded || (!wanted.qr && !wanted.change)) return;
    if (wanted.qr) setOverlay({ kind: 'qr', peerId: wanted.qr });
    if (wanted.change) setChangingPeerId(wanted.change);
    setParams({}, { replace: true });
  }, [loaded, wanted.qr, wanted.change, setParams]);
  const overlayPeer = find(overlay?.peerId);
  const changingPeer = find(changingPeerId);
  const close = () => setOverlay(null);

  function onIntent(intent: PeerIntent, peer: Peer) {
    switch (intent) {
      case 'regenerateMirror':
        return setOverlay({ kind: 'confirmMirror', peerId: peer.id });
      case 'regenerate':
        return setOverlay({ kind: 'confirmRegenerate', peerId: peer.id });
      case 'changeServer':
        return setChangingPeerId(peer.id);
      case 'qr':
        return setOverlay({ kind: 'qr', peerId: peer.id });
      case 'mikrotik':
        return void actions.download(peer, 'mikrotik');
      case 'roomConfig':
        return setOverlay({ kind: 'roomConfig', peerId: peer.id });
      case 'details':
        return setOverlay({ kind: 'details', peerId: peer.id });
    }
  }

  let body;
  if (peers.isPending) body = <LoadingBlock label={es.common.loading} />;
  else if (peers.isError && !peers.data)
    body = <ErrorPanel message={es.common.loadError} onRetry={() => void peers.refetch()} />;
  else if (peers.data.length === 0)
    body = (
      <EmptyState icon={MonitorSmartphone} title={t.emptyTitle} text={t.emptyText}>
        <Link to="/dashboard/plans" className={ui.buttonPrimary}>
          {t.emptyCta}
        </Link>
      </EmptyState>
    );
  else if (changingPeerId !== null && changingPeer)
    body = (
      <ChangeServerView
        peer={changingPeer}
        showRooms={showRooms}
        onBack={() => setChangingPeerId(null)}
        onSelect={(server) => setOverlay({ kind: 'confirmChange', peerId: changingPeer.id, server })}
      />
    );
  else {
    body = (
      <>
        <ConcurrentUseNotices
          peers={peers.data}
          canRegenerate={peerActionable}
          onRegenerate={(peer) => onIntent('regenerate', peer)}
        />
        <PeerList
          peers={peers.data}
          showRooms={showRooms}
          onIntent={onIntent}
          onDownload={(peer) => actions.download(peer)}
        />
      </>
    );
  }

  const confirm = overlay && overlayPeer ? confirmation(overlay, overlayPeer) : null;
  const opened = useOpened(overlay === null ? null : confirm ? 'confirm' : overlay.kind);

  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      {body}
      {/* Each mounted from its first opening on, so that it closes (and gives focus back) as before. */}
      <Suspense fallback={null}>
        {opened.confirm && (
          <ConfirmDialog
            open={confirm !== null}
            onOpenChange={(open) => !open && close()}
            title={confirm?.title ?? ''}
            description={confirm?.text ?? ''}
            confirmLabel={confirm?.confirmLabel ?? ''}
            onConfirm={() => confirm?.run()}
          >
            {confirm?.note && (
              <p className="mt-3 rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2 text-sm text-amber-100">
                {confirm.note}
              </p>
            )}
          </ConfirmDialog>
        )}
        {opened.details && (
          <PeerDetailsDialog peer={overlay?.kind === 'details' ? overlayPeer : null} onClose={close} />
        )}
        {opened.qr && <PeerQrDialog peer={overlay?.kind === 'qr' ? overlayPeer : null} onClose={close} />}
        {opened.roomConfig && (
          <RoomConfigDialog peer={overlay?.kind === 'roomConfig' ? overlayPeer : null} onClose={close} />
        )}
      </Suspense>
    </>
  );

  function confirmation(o: Overlay, peer: Peer) {
    switch (o.kind) {
      case 'confirmMirror':
        return {
          title: t.confirmMirror.title,
          text: t.confirmMirror.text(peer.name),
          confirmLabel: t.confirmMirror.confirm,
          run: () => void actions.regenerateMirror(peer),
        };
      case 'confirmRegenerate':
        return {
          title: t.confirmRegenerate.title,
          text: t.confirmRegenerate.text(peer.name),
          confirmLabel: t.confirmRegenerate.confirm,
          run: () => void actions.regenerate(peer),
        };
      case 'confirmChange':
        return {
          title: t.confirmChange.title,
          text: t.confirmChange.text(peer.name, o.server.name),
          note: o.server.status === 'active' ? null : t.confirmChange.inactiveNote,
          confirmLabel: t.confirmChange.confirm,
          run: () => {
            setChangingPeerId(null);
            void actions.changeServer(peer, o.server);
          },
        };
      default:
        return null;
    }
  }
}

type DialogKind = 'confirm' | 'details' | 'qr' | 'roomConfig';

/** Which dialogs have been opened at least once on this page (the kind open now included). */
function useOpened(kind: string | null): Record<DialogKind, boolean> {
  const [opened, setOpened] = useState<Record<DialogKind, boolean>>({
    confirm: false,
    details: false,
    qr: false,
    roomConfig: false,
  });
  if (kind && kind in opened && !opened[kind as DialogKind]) setOpened({ ...opened, [kind]: true });
  return opened;
}
