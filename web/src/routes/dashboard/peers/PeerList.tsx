import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import {
  ArrowLeftRight,
  Download,
  EllipsisVertical,
  Info,
  KeyRound,
  Link2,
  QrCode,
  Router,
} from 'lucide-react';
import { useState } from 'react';
import type { ReactNode } from 'react';
import type { Peer } from '../../../api/peers';
import { CopyButton } from '../../../components/CopyButton';
import { OnlineDot } from '../../../components/OnlineDot';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { absoluteUrl } from '../../../lib/format';

const t = es.dashboard.peers;

/** What a row asks the page to do (dialogs and views belong to the page). */
export type PeerIntent = 'regenerateMirror' | 'regenerate' | 'changeServer' | 'qr' | 'mikrotik' | 'details';

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

export function PeerStateBadge({ peer }: { peer: Peer }) {
  return <Badge ok={peer.active}>{peer.active ? t.active : t.disabled}</Badge>;
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
            <DropdownMenu.Separator className="my-1 h-px bg-slate-700" />
            {item('details', t.menu.details, icon(Info), false)}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
    </div>
  );
}

/** Desktop (≥ 768 px): one table row per peer. */
export function PeerTable({ peers, showRooms, onIntent, onDownload }: PeerListProps) {
  const c = t.columns;
  const th = ui.th;
  return (
    <div className={`${ui.card} overflow-x-auto`}>
      <table className="w-full text-left text-sm">
        <caption className="sr-only">{t.listLabel}</caption>
        <thead className="border-b border-slate-800">
          <tr>
            <th scope="col" className={th}>
              {c.name}
            </th>
            <th scope="col" className={th}>
              {c.state}
            </th>
            <th scope="col" className={th}>
              {c.server}
            </th>
            <th scope="col" className={th}>
              {c.serverState}
            </th>
            <th scope="col" className={th}>
              {c.location}
            </th>
            {showRooms && (
              <th scope="col" className={th}>
                {c.rooms}
              </th>
            )}
            <th scope="col" className={th}>
              {c.mirror}
            </th>
            <th scope="col" className={th}>
              {c.actions}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {peers.map((peer) => (
            <tr key={peer.id} aria-busy={peer.processing !== null} className="align-middle">
              <th scope="row" className="min-w-36 px-4 py-3 font-semibold text-white">
                <div className="flex flex-col gap-1">
                  <span className="inline-flex items-center gap-2">
                    <OnlineDot online={peer.online} />
                    {peer.name}
                    {peer.online && <span className="sr-only">({t.details.online})</span>}
                  </span>
                  <BusyIndicator peer={peer} />
                </div>
              </th>
              <td className="px-4 py-3">
                <PeerStateBadge peer={peer} />
              </td>
              <td className="px-4 py-3 font-mono text-xs text-slate-200">{peer.server.address}</td>
              <td className="px-4 py-3">
                <ServerStateBadge active={peer.server.active} />
              </td>
              <td className="px-4 py-3 text-slate-300">{peer.server.ubication}</td>
              {showRooms && (
                <td className="px-4 py-3 text-slate-300">{peer.server.allow_partys ? t.yes : t.no}</td>
              )}
              <td className="px-4 py-3">
                <MirrorCopy peer={peer} />
              </td>
              <td className="px-4 py-3">
                <PeerActionsCell peer={peer} onIntent={onIntent} onDownload={onDownload} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Mobile (< 768 px): one card per peer, the same fields as the table's columns. */
export function PeerCards({ peers, showRooms, onIntent, onDownload }: PeerListProps) {
  const c = t.columns;
  const row = (label: string, value: ReactNode) => (
    <div className="flex items-center justify-between gap-3 py-2">
      <dt className="text-slate-400">{label}</dt>
      <dd className="text-right text-slate-200">{value}</dd>
    </div>
  );
  return (
    <ul aria-label={t.listLabel} className="space-y-4">
      {peers.map((peer) => (
        <li key={peer.id}>
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
        </li>
      ))}
    </ul>
  );
}
