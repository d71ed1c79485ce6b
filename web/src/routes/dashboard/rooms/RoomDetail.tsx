import {
  ArrowLeft,
  CalendarDays,
  Crown,
  Eye,
  EyeOff,
  KeyRound,
  Share2,
  LogOut,
  Plus,
  Trash2,
  UserMinus,
} from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import type { ReactNode } from 'react';
import type { Room, RoomPeer, RoomRole } from '../../../api/rooms';
import { CopyButton } from '../../../components/CopyButton';
import { DataTable, type Column } from '../../../components/DataTable';
import { ui } from '../../../components/ui';
import { esRoomShare, esRooms } from '../../../i18n/es.rooms';
import { formatDate } from '../../../lib/format';
import { ProcessingIndicator, RoleBadge } from './RoomList';
import { PlayGuide, RoomOnlyConfig } from './RoomPlay';

const t = esRooms.detail;

export interface RoomDetailProps {
  room: Room;
  role: RoomRole;
  /** Whether a peer of the room is one of mine (a guest may take out only those). */
  isMine: (peer: RoomPeer) => boolean;
  /** The owner has free peers to add. */
  canAddPeer: boolean;
  /** A call on this room is under way (its buttons wait). */
  busy: boolean;
  onBack: () => void;
  onAddPeer: () => void;
  onRegeneratePassword: () => void;
  onDelete: () => void;
  /** Take a peer out: `leave` for a guest's own peer, otherwise the owner removes it. */
  onRemovePeer: (peer: RoomPeer, leave: boolean) => void;
}

/**
 * One room: owner, creation date, my role and the in-progress indicator; the password (owner only:
 * hidden until asked, copy, regenerate); the peers with their owner and private IP — the address
 * gamers type in, shown large with a copy button — and the actions each role may take: the owner
 * removes any peer, adds free ones and deletes the room; a guest takes out only their own peers.
 * Below them, the room-only configuration of my peers here and how games find each other.
 */
export function RoomDetail(props: RoomDetailProps) {
  const { room, role, canAddPeer, busy, onBack, onAddPeer, onDelete } = props;
  const owner = role === 'owned';
  return (
    <div className="space-y-6">
      <button type="button" className={`${ui.buttonGhost} -ml-3`} onClick={onBack}>
        <ArrowLeft className="size-4" aria-hidden="true" />
        {t.back}
      </button>

      <section aria-labelledby="room-title" aria-busy={room.processing} className={`${ui.card} p-6`}>
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="flex min-w-0 flex-col gap-1.5">
            <h2 id="room-title" className="text-2xl font-bold break-words text-white">
              {room.name}
            </h2>
            <ProcessingIndicator room={room} label={t.processing} />
          </div>
          <RoleBadge role={role} />
        </div>
        <dl className="mt-5 grid gap-4 text-sm sm:grid-cols-3">
          {/* My role is the badge above: 'Administrador' once (issue 32), the owner named here. */}
          <Info label={esRooms.list.owner} icon={<Crown className="size-4" aria-hidden="true" />}>
            {room.user}
          </Info>
          <Info label={t.created} icon={<CalendarDays className="size-4" aria-hidden="true" />}>
            {formatDate(room.created)}
          </Info>
        </dl>
        {owner && room.password !== null && (
          <PasswordBlock
            room={room.name}
            password={room.password}
            busy={busy}
            onRegenerate={props.onRegeneratePassword}
          />
        )}
      </section>

      <section aria-labelledby="room-peers-title" className="space-y-4">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <div>
            <h3 id="room-peers-title" className="text-xl font-semibold text-white">
              {t.peersTitle}
            </h3>
            <p className="mt-1 max-w-2xl text-sm text-slate-400">{t.ipHint}</p>
          </div>
          {owner && canAddPeer && (
            <button type="button" className={ui.buttonPrimary} onClick={onAddPeer} disabled={busy}>
              <Plus className="size-4" aria-hidden="true" />
              {t.addPeer}
            </button>
          )}
        </div>
        <PeersOfRoom {...props} />
      </section>

      <RoomOnlyConfig peers={room.peers.filter(props.isMine)} />
      <PlayGuide discovery={room.discovery} />

      {owner && (
        <div className="flex justify-end border-t border-slate-800 pt-6">
          <button
            type="button"
            onClick={onDelete}
            disabled={busy}
            className="inline-flex items-center justify-center gap-2 rounded-lg border border-red-500/50 px-4 py-2.5 font-semibold text-red-300 transition hover:bg-red-500/10 disabled:cursor-not-allowed disabled:opacity-60"
          >
            <Trash2 className="size-4" aria-hidden="true" />
            {t.deleteRoom}
          </button>
        </div>
      )}
    </div>
  );
}

function Info({ label, icon, children }: { label: string; icon?: ReactNode; children: ReactNode }) {
  return (
    <div>
      <dt className="inline-flex items-center gap-1.5 text-slate-400">
        {icon}
        {label}
      </dt>
      <dd className="mt-0.5 font-medium text-slate-100">{children}</dd>
    </div>
  );
}

/**
 * 'Compartir invitación': the room's name and password (and where to join) in one message, through
 * the phone's share sheet (Web Share API) where there is one, else copied whole to the clipboard.
 */
async function shareInvitation(room: string, password: string): Promise<void> {
  const text = esRoomShare.message(room, password, `${window.location.origin}/dashboard/partys`);
  if (typeof navigator.share === 'function') {
    try {
      await navigator.share({ title: esRoomShare.title(room), text });
      return;
    } catch (error) {
      // The customer closed the share sheet: nothing to do.
      if (error instanceof DOMException && error.name === 'AbortError') return;
    }
  }
  try {
    await navigator.clipboard.writeText(text);
    toast.success(esRoomShare.copied);
  } catch {
    toast.error(esRoomShare.copyError);
  }
}

function PasswordBlock({
  room,
  password,
  busy,
  onRegenerate,
}: {
  room: string;
  password: string;
  busy: boolean;
  onRegenerate: () => void;
}) {
  const [visible, setVisible] = useState(false);
  return (
    <div className="mt-6 rounded-xl border border-slate-800 bg-navy-950/50 p-4">
      <p id="room-password-label" className="text-sm text-slate-400">
        {t.password}
      </p>
      <div className="mt-2 flex flex-wrap items-center gap-x-4 gap-y-3">
        <output
          aria-labelledby="room-password-label"
          className="min-w-40 font-mono text-lg tracking-wider text-white"
        >
          {visible ? password : t.hiddenPassword}
        </output>
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            onClick={() => setVisible((v) => !v)}
            aria-pressed={visible}
            className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
          >
            {visible ? (
              <EyeOff className="size-4" aria-hidden="true" />
            ) : (
              <Eye className="size-4" aria-hidden="true" />
            )}
            {visible ? t.hidePassword : t.showPassword}
          </button>
          <CopyButton
            text={password}
            label={t.copyPassword}
            copiedLabel={t.copiedPassword}
            ariaLabel={t.copyPasswordLabel}
            ariaCopiedLabel={t.copiedPasswordLabel}
            successToast={t.copiedPasswordToast}
            errorToast={t.copyError}
          />
          <button
            type="button"
            onClick={onRegenerate}
            disabled={busy}
            className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
          >
            <KeyRound className="size-4" aria-hidden="true" />
            {t.regenerate}
          </button>
          <button
            type="button"
            onClick={() => void shareInvitation(room, password)}
            className={`${ui.buttonPrimary} px-3 py-1.5 text-sm`}
          >
            <Share2 className="size-4" aria-hidden="true" />
            {esRoomShare.share}
          </button>
        </div>
      </div>
      <p className="mt-2 text-xs text-slate-400">{t.passwordHint}</p>
    </div>
  );
}

function PrivateIp({ peer }: { peer: RoomPeer }) {
  return (
    <div className="flex flex-wrap items-center gap-2">
      <span className="font-mono text-base font-semibold text-emerald-300">{peer.private_ip}</span>
      <CopyButton
        text={peer.private_ip}
        label={t.copyIp}
        copiedLabel={t.copiedIp}
        ariaLabel={t.copyIpLabel(peer.name)}
        ariaCopiedLabel={t.copiedIpLabel(peer.name)}
        successToast={t.copiedIpToast}
        errorToast={t.copyError}
      />
    </div>
  );
}

function PeerAction({ peer, role, isMine, busy, onRemovePeer }: RoomDetailProps & { peer: RoomPeer }) {
  const small = 'px-3 py-1.5 text-sm';
  if (role === 'owned') {
    return (
      <button
        type="button"
        className={`${ui.buttonSecondary} ${small}`}
        disabled={busy}
        onClick={() => onRemovePeer(peer, false)}
        aria-label={t.removeLabel(peer.name)}
      >
        <UserMinus className="size-4" aria-hidden="true" />
        {t.remove}
      </button>
    );
  }
  if (!isMine(peer)) return <span className="text-slate-400">—</span>;
  return (
    <button
      type="button"
      className={`${ui.buttonSecondary} ${small}`}
      disabled={busy}
      onClick={() => onRemovePeer(peer, true)}
      aria-label={t.leaveLabel(peer.name)}
    >
      <LogOut className="size-4" aria-hidden="true" />
      {t.leave}
    </button>
  );
}

function MineBadge() {
  return (
    <span className="rounded-full bg-emerald-500/15 px-2 py-0.5 text-xs font-semibold text-emerald-300">
      {t.yours}
    </span>
  );
}

/** The room's peers through the product's one table: rows from 768 px, this page's cards below. */
function PeersOfRoom(props: RoomDetailProps) {
  const { room, isMine } = props;
  const c = t.columns;
  const columns: Column<RoomPeer>[] = [
    {
      key: 'name',
      header: c.name,
      className: 'whitespace-nowrap',
      cell: (peer) => (
        <span className="inline-flex items-center gap-2">
          {peer.name}
          {isMine(peer) && <MineBadge />}
        </span>
      ),
    },
    { key: 'owner', header: c.owner, cell: (peer) => peer.user },
    { key: 'ip', header: c.ip, cell: (peer) => <PrivateIp peer={peer} /> },
    { key: 'actions', header: c.actions, cell: (peer) => <PeerAction {...props} peer={peer} /> },
  ];
  return (
    <DataTable
      label={t.peersLabel(room.name)}
      columns={columns}
      rows={room.peers}
      rowKey={(peer) => peer.id}
      empty={<span className="text-slate-400">{t.noPeers}</span>}
      rowHeader
      card={(peer) => (
        <article aria-labelledby={`room-peer-${peer.id}`} className={`${ui.card} space-y-3 p-5`}>
          <div className="flex items-center justify-between gap-3">
            <h4 id={`room-peer-${peer.id}`} className="text-lg font-semibold text-white">
              {peer.name}
            </h4>
            {isMine(peer) && <MineBadge />}
          </div>
          <dl className="space-y-2 text-sm">
            <div>
              <dt className="text-slate-400">{c.ip}</dt>
              <dd className="mt-0.5">
                <PrivateIp peer={peer} />
              </dd>
            </div>
            <div className="flex justify-between gap-3">
              <dt className="text-slate-400">{c.owner}</dt>
              <dd className="text-slate-200">{peer.user}</dd>
            </div>
          </dl>
          <div className="flex justify-end">
            <PeerAction {...props} peer={peer} />
          </div>
        </article>
      )}
    />
  );
}
