import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import {
  ArrowLeftRight,
  Download,
  EllipsisVertical,
  Info,
  KeyRound,
  Link2,
  Gamepad2,
  QrCode,
  Router,
} from 'lucide-react';
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
import { reducedText } from '../../../lib/speed';
import { ConcurrentUseBadge } from './ConcurrentUseNotice';

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

/** Download and regenerate only for active peers, and nothing while an operation is under way. */
export function peerActionable(peer: Peer): boolean {
  return peer.active && peer.processing === null;
}

function Badge({ ok, children }: { ok: boolean; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold ${
        ok ? 'bg-emerald-500/15 text-emerald-300' : 'bg-slate-500/20 text-slate-300'
      }`}
    >
      <span
        className={`size-1.5 rounded-full ${ok ? 'bg-emerald-400' : 'bg-slate-400'}`}
        aria-hidden="true"
      />
      {children}
    </span>
  );
}

/** Activo / Deshabilitado (spec); a manager's switch-off says so, since buying a plan does not lift it. */
export function PeerStateBadge({ peer }: { peer: Peer }) {
  const badge = <Badge ok={peer.active}>{peer.active ? t.active : t.disabled}</Badge>;
  // Online, but held at its plan's reduced speed (issue 35): the details say why.
  if (peer.active && peer.speed.reduced)
    return (
      <span className="inline-flex flex-col items-start gap-1" title={reducedText(peer.speed) ?? undefined}>
        {badge}
        <span className="text-xs text-amber-300">{es.speed.reduced}</span>
      </span>
    );
  if (!peer.manager_disabled) return badge;
  return (
    <span className="inline-flex flex-col items-start gap-1" title={t.managerDisabledHelp}>
      {badge}
      <span className="text-xs text-amber-300">{t.managerDisabled}</span>
    </span>
  );
}

export function ServerStateBadge({ active }: { active: boolean }) {
  return <Badge ok={active}>{active ? t.serverActive : t.serverInactive}</Badge>;
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

const menuItemClass =
  'flex cursor-pointer items-center gap-2 rounded-md px-3 py-2 text-sm text-slate-200 outline-none data-[disabled]:cursor-not-allowed data-[disabled]:opacity-40 data-[highlighted]:bg-white/10 data-[highlighted]:text-white';

/** Download button + the actions menu of one peer. */
function PeerActionsCell({
  peer,
  onIntent,
  onDownload,
}: Omit<PeerListProps, 'peers' | 'showRooms'> & { peer: Peer }) {
  const [downloading, setDownloading] = useState(false);
  const enabled = peerActionable(peer);

  async function download() {
    setDownloading(true);
    try {
      await onDownload(peer);
    } finally {
      setDownloading(false);
    }
  }

  const item = (intent: PeerIntent, label: string, icon: ReactNode, disabled = !enabled) => (
    <DropdownMenu.Item className={menuItemClass} disabled={disabled} onSelect={() => onIntent(intent, peer)}>
      {icon}
      {label}
    </DropdownMenu.Item>
  );
  const icon = (Icon: typeof Download) => <Icon className="size-4" aria-hidden="true" />;

  return (
    <div className="flex items-center gap-2">
      <button
        type="button"
        className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
        disabled={!enabled || downloading}
        onClick={() => void download()}
        aria-label={t.downloadLabel(peer.name)}
        title={peer.active ? undefined : t.inactiveHint}
      >
        {downloading ? <Spinner className="size-4" /> : icon(Download)}
        {t.download}
      </button>
      {/* Non-modal: the dialogs it opens must get focus and pointer events back when it closes. */}
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger
          className="rounded-lg p-2 text-slate-300 hover:bg-white/5 hover:text-white"
          aria-label={t.menuLabel(peer.name)}
        >
          <EllipsisVertical className="size-5" aria-hidden="true" />
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content
            align="end"
            sideOffset={6}
            className="z-30 min-w-56 rounded-xl border border-slate-700 bg-navy-900 p-1 shadow-2xl shadow-black/40"
          >
            {item('regenerateMirror', t.menu.regenerateMirror, icon(Link2))}
            {item('regenerate', t.menu.regenerate, icon(KeyRound))}
            {item('changeServer', t.menu.changeServer, icon(ArrowLeftRight))}
            <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
            {item('qr', t.menu.qr, icon(QrCode))}
            {item('mikrotik', t.menu.mikrotik, icon(Router))}
            {/* The room-only tunnel exists only while the peer is in a room. */}
            {peer.party !== null && item('roomConfig', t.menu.roomConfig, icon(Gamepad2))}
            <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
            {item('details', t.menu.details, icon(Info), false)}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </div>
  );
}

/**
 * The customer's peers through the product's one table: a row per peer from 768 px (the name heads
 * its row), below it a card per peer of this page's own design (PeerCard).
 */
export function PeerList({ peers, showRooms, onIntent, onDownload }: PeerListProps) {
  const c = t.columns;
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
    {
      key: 'server',
      header: c.server,
      className: 'font-mono text-xs',
      cell: (peer) => peer.server.address,
    },
    {
      key: 'serverState',
      header: c.serverState,
      cell: (peer) => <ServerStateBadge active={peer.server.active} />,
    },
    { key: 'location', header: c.location, cell: (peer) => peer.server.ubication },
    ...(showRooms
      ? [{ key: 'rooms', header: c.rooms, cell: (peer: Peer) => (peer.server.allow_partys ? t.yes : t.no) }]
      : []),
    { key: 'mirror', header: c.mirror, cell: (peer) => <MirrorCopy peer={peer} /> },
    {
      key: 'actions',
      header: c.actions,
      cell: (peer) => <PeerActionsCell peer={peer} onIntent={onIntent} onDownload={onDownload} />,
    },
  ];
  return (
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
  );
}

/** Phones (< 768 px): one peer's card, the same fields as the table's columns. */
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
        <PeerStateBadge peer={peer} />
      </div>
      <dl className="mt-3 divide-y divide-slate-800 text-sm">
        {row(c.server, <span className="font-mono text-xs">{peer.server.address}</span>)}
        {row(c.serverState, <ServerStateBadge active={peer.server.active} />)}
        {row(c.location, peer.server.ubication)}
        {showRooms && row(c.rooms, peer.server.allow_partys ? t.yes : t.no)}
        {row(c.mirror, <MirrorCopy peer={peer} />)}
      </dl>
      <div className="mt-4 flex justify-end">
        <PeerActionsCell peer={peer} onIntent={onIntent} onDownload={onDownload} />
      </div>
    </article>
  );
}
