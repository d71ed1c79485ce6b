import { EllipsisVertical } from 'lucide-react';
import { useState } from 'react';
import type { ReactNode } from 'react';
import type { Peer } from '../../../api/peers';
import { CopyButton } from '../../../components/CopyButton';
import { DataTable, type Column } from '../../../components/DataTable';
import { OnlineDot } from '../../../components/OnlineDot';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { absoluteUrl } from '../../../lib/format';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { ConcurrentUseBadge } from './ConcurrentUseNotice';
import type { PeerMenu as PeerMenuType } from './PeerMenu';
import { peerMenuTrigger } from './peerMenuTrigger';
import {
  DataUsed,
  InstallButtons,
  ServerProblem,
  ServerStatusBadge,
  PeerStateBadge,
  expiryText,
} from './PeerStatus';

const t = es.dashboard.peers;

/** What a row asks the page to do (dialogs and views belong to the page). */
export type PeerIntent =
  'regenerateMirror' | 'regenerate' | 'changeServer' | 'qr' | 'mikrotik' | 'roomConfig' | 'details';

export interface PeerListProps {
  peers: Peer[];
  /** Show the rooms-on-server column (user.web_settings.allow_partys). */
  showRooms: boolean;
  onIntent: (intent: PeerIntent, peer: Peer) => void;
  onDownload: (peer: Peer) => Promise<void>;
}

/** The row's in-progress indicator while regenerate or change-server runs. */
function BusyIndicator({ peer }: { peer: Peer }) {
  if (!peer.processing) return null;
  return (
    <span role="status" className="inline-flex items-center gap-1.5 text-xs font-medium text-amber-300">
      <Spinner className="size-3.5" />
      {t.busy[peer.processing]}
    </span>
  );
}

function MirrorCopy({ peer }: { peer: Peer }) {
  return (
    <CopyButton
      text={absoluteUrl(peer.mirror_link)}
      label={t.copy}
      copiedLabel={t.copied}
      ariaLabel={t.copyLabel(peer.name)}
      ariaCopiedLabel={t.copiedLabel(peer.name)}
      successToast={t.copiedToast}
      errorToast={t.copyError}
    />
  );
}

/**
 * The actions menu's trigger (⋮), drawn at once; the menu itself (`PeerMenu.tsx`: Radix's dropdown
 * with floating-ui, ~30 KiB gzip) is fetched when the customer first presses one, and opens as soon
 * as it arrives — as the header's user menu does (issue 28). On a phone's CPU its code was a good
 * part of the page's start (issue 32, Lighthouse on /dashboard/peers).
 */
function PeerMenuButton({ peer, onIntent }: { peer: Peer; onIntent: PeerListProps['onIntent'] }) {
  const [open, setOpen] = useState(false);
  const [Menu, setMenu] = useState<typeof PeerMenuType | null>(() => loadedMenu);
  if (Menu) return <Menu peer={peer} onIntent={onIntent} open={open} onOpenChange={setOpen} />;
  const press = () => {
    setOpen(true);
    void import('./PeerMenu').then((m) => {
      loadedMenu = m.PeerMenu;
      setMenu(() => m.PeerMenu);
    });
  };
  return (
    <button
      type="button"
      aria-haspopup="menu"
      aria-expanded={open}
      className={peerMenuTrigger}
      aria-label={t.menuLabel(peer.name)}
      onPointerDown={press}
      onClick={press}
    >
      <EllipsisVertical className="size-5" aria-hidden="true" />
    </button>
  );
}
/** The menu's module once fetched: the other rows draw it at once. */
let loadedMenu: typeof PeerMenuType | null = null;

/** Once under the list: what the mirror link is for, and that the official app cannot use it. */
export function MirrorNote() {
  return (
    <p className="mt-4 text-sm text-slate-400">
      <strong className="font-semibold text-slate-200">{esPeerStatus.mirror.title}: </strong>
      {esPeerStatus.mirror.explain}
    </p>
  );
}

/**
 * The customer's peers through the product's one table: a row per peer from 768 px (the name heads
 * its row), below it a card per peer of this page's own design (PeerCard). Both lead with what a
 * customer needs (issue 32): state, expiry, data, QR and Descargar; the server, the mirror link
 * and the menu (⋮) come after.
 */
export function PeerList({ peers, showRooms, onIntent, onDownload }: PeerListProps) {
  const c = t.columns;
  const s = esPeerStatus;
  const columns: Column<Peer>[] = [
    {
      key: 'name',
      header: c.name,
      className: 'min-w-36',
      cell: (peer) => (
        <div className="flex flex-col gap-1">
          <span className="inline-flex items-center gap-2">
            <OnlineDot online={peer.online} />
            {peer.name}
            {peer.online && <span className="sr-only">({t.details.online})</span>}
          </span>
          <ConcurrentUseBadge peer={peer} />
          <BusyIndicator peer={peer} />
        </div>
      ),
    },
    { key: 'state', header: c.state, cell: (peer) => <PeerStateBadge peer={peer} /> },
    { key: 'expiry', header: s.expiry.label, className: 'min-w-40', cell: (peer) => expiryText(peer) },
    { key: 'data', header: s.data.label, cell: (peer) => <DataUsed peer={peer} /> },
    {
      key: 'install',
      header: c.install,
      cell: (peer) => (
        <InstallButtons
          peer={peer}
          size="sm"
          onQr={() => onIntent('qr', peer)}
          onDownload={() => onDownload(peer)}
        />
      ),
    },
    {
      key: 'server',
      header: c.server,
      className: 'font-mono text-xs',
      cell: (peer) => peer.server.address,
    },
    {
      key: 'serverState',
      header: c.serverState,
      cell: (peer) => (
        <span className="flex flex-col items-start gap-1.5">
          <ServerStatusBadge status={peer.server.status} />
          {peer.server.status !== 'active' && (
            <button
              type="button"
              className={`${ui.link} text-xs`}
              disabled={peer.processing !== null}
              onClick={() => onIntent('changeServer', peer)}
              aria-label={s.serverProblem.changeLabel(peer.name)}
            >
              {s.serverProblem.change}
            </button>
          )}
        </span>
      ),
    },
    { key: 'location', header: c.location, cell: (peer) => peer.server.ubication },
    ...(showRooms
      ? [{ key: 'rooms', header: c.rooms, cell: (peer: Peer) => (peer.server.allow_partys ? t.yes : t.no) }]
      : []),
    { key: 'mirror', header: c.mirror, cell: (peer) => <MirrorCopy peer={peer} /> },
    {
      key: 'actions',
      header: c.actions,
      cell: (peer) => <PeerMenuButton peer={peer} onIntent={onIntent} />,
    },
  ];
  return (
    <>
      <DataTable
        label={t.listLabel}
        columns={columns}
        rows={peers}
        rowKey={(peer) => peer.id}
        empty={null}
        rowHeader
        busy={(peer) => peer.processing !== null}
        card={(peer) => (
          <PeerCard peer={peer} showRooms={showRooms} onIntent={onIntent} onDownload={onDownload} />
        )}
      />
      <MirrorNote />
    </>
  );
}

/**
 * Phones (< 768 px): one peer's card. First what the customer came for: state, expiry, data, and
 * QR / Descargar one tap each (and the server's trouble, with "Cambiar servidor"); then the server,
 * the mirror link and the menu.
 */
function PeerCard({ peer, showRooms, onIntent, onDownload }: Omit<PeerListProps, 'peers'> & { peer: Peer }) {
  const c = t.columns;
  const row = (label: string, value: ReactNode) => (
    <div className="flex items-center justify-between gap-3 py-2">
      <dt className="text-slate-400">{label}</dt>
      <dd className="text-right text-slate-200">{value}</dd>
    </div>
  );
  return (
    <article
      aria-labelledby={`peer-${peer.id}-name`}
      aria-busy={peer.processing !== null}
      className={`${ui.card} p-5`}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="flex flex-col gap-1">
          <h2
            id={`peer-${peer.id}-name`}
            className="inline-flex items-center gap-2 text-lg font-semibold text-white"
          >
            <OnlineDot online={peer.online} />
            {peer.name}
            {peer.online && <span className="sr-only">({t.details.online})</span>}
          </h2>
          <ConcurrentUseBadge peer={peer} />
          <BusyIndicator peer={peer} />
        </div>
        <div className="flex items-center gap-1">
          <PeerStateBadge peer={peer} />
          <PeerMenuButton peer={peer} onIntent={onIntent} />
        </div>
      </div>
      <p className="mt-2 text-sm text-slate-300">{expiryText(peer)}</p>
      <div className="mt-3 text-sm">
        <DataUsed peer={peer} />
      </div>
      <div className="mt-4">
        <InstallButtons peer={peer} onQr={() => onIntent('qr', peer)} onDownload={() => onDownload(peer)} />
      </div>
      <div className="mt-4">
        <ServerProblem peer={peer} onChangeServer={() => onIntent('changeServer', peer)} />
      </div>
      <dl className="mt-3 divide-y divide-slate-800 text-sm">
        {row(c.server, <span className="font-mono text-xs">{peer.server.address}</span>)}
        {row(c.serverState, <ServerStatusBadge status={peer.server.status} />)}
        {row(c.location, peer.server.ubication)}
        {showRooms && row(c.rooms, peer.server.allow_partys ? t.yes : t.no)}
        {row(c.mirror, <MirrorCopy peer={peer} />)}
      </dl>
    </article>
  );
}
