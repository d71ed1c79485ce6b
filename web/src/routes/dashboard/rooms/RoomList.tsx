import { CalendarDays, Crown, Users } from 'lucide-react';
import type { ReactNode } from 'react';
import { MAX_OWNED_ROOMS } from '../../../api/rooms';
import type { Room, RoomRole } from '../../../api/rooms';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { esRooms } from '../../../i18n/es.rooms';
import { formatDate } from '../../../lib/format';

const t = esRooms.list;

/** 'Administrador' (my room) or 'Invitado' (a room my peers are guests in). */
export function RoleBadge({ role }: { role: RoomRole }) {
  const owned = role === 'owned';
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-semibold ${
        owned ? 'bg-emerald-500/15 text-emerald-300' : 'bg-sky-500/15 text-sky-300'
      }`}
    >
      {owned && <Crown className="size-3.5" aria-hidden="true" />}
      {owned ? esRooms.roles.owner : esRooms.roles.guest}
    </span>
  );
}

/** The room's in-progress indicator while its servers apply a membership change. */
export function ProcessingIndicator({ room, label = t.processing }: { room: Room; label?: string }) {
  if (!room.processing) return null;
  return (
    <span role="status" className="inline-flex items-center gap-1.5 text-xs font-medium text-amber-300">
      <Spinner className="size-3.5" />
      {label}
    </span>
  );
}

interface RoomListProps {
  owned: Room[];
  guest: Room[];
  onOpen: (room: Room) => void;
}

/**
 * The rooms: those I administer ('Administrador', with how many of the 5 I use) and those my peers
 * are guests in ('Invitado'). Each card shows the name, total peers, creation date, role, owner and
 * the in-progress indicator, and opens the room's detail.
 */
export function RoomList({ owned, guest, onOpen }: RoomListProps) {
  return (
    <div className="space-y-10">
      {owned.length > 0 && (
        <Section
          id="owned-rooms"
          title={t.ownedTitle}
          aside={t.ownedCount(owned.length)}
          rooms={owned}
          role="owned"
          onOpen={onOpen}
        />
      )}
      {guest.length > 0 && (
        <Section id="guest-rooms" title={t.guestTitle} rooms={guest} role="guest" onOpen={onOpen} />
      )}
    </div>
  );
}

function Section({
  id,
  title,
  aside,
  rooms,
  role,
  onOpen,
}: {
  id: string;
  title: string;
  aside?: string;
  rooms: Room[];
  role: RoomRole;
  onOpen: (room: Room) => void;
}) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <div className="mb-4 flex items-baseline justify-between gap-3">
        <h2 id={`${id}-title`} className="text-xl font-semibold text-white">
          {title}
        </h2>
        {aside && (
          <span
            className={`text-sm ${isOwned(role) && rooms.length >= MAX_OWNED_ROOMS ? 'text-amber-300' : 'text-slate-400'}`}
          >
            {aside}
          </span>
        )}
      </div>
      <ul aria-labelledby={`${id}-title`} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {rooms.map((room) => (
          <li key={room.id}>
            <RoomCard room={room} role={role} onOpen={onOpen} />
          </li>
        ))}
      </ul>
    </section>
  );
}

const isOwned = (role: RoomRole) => role === 'owned';

function RoomCard({ room, role, onOpen }: { room: Room; role: RoomRole; onOpen: (room: Room) => void }) {
  const nameId = `room-${room.id}-name`;
  const row = (label: string, icon: ReactNode, value: ReactNode) => (
    <div className="flex items-center justify-between gap-3 py-1.5">
      <dt className="inline-flex items-center gap-1.5 text-slate-400">
        {icon}
        {label}
      </dt>
      <dd className="text-right text-slate-200">{value}</dd>
    </div>
  );
  return (
    <article
      aria-labelledby={nameId}
      aria-busy={room.processing}
      className={`${ui.card} flex h-full flex-col gap-3 p-5`}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="flex min-w-0 flex-col gap-1">
          <h3 id={nameId} className="truncate text-lg font-semibold text-white" title={room.name}>
            {room.name}
          </h3>
          <ProcessingIndicator room={room} />
        </div>
        <RoleBadge role={role} />
      </div>
      <dl className="divide-y divide-slate-800 text-sm">
        {row(t.totalPeers, <Users className="size-4" aria-hidden="true" />, t.peers(room.peers.length))}
        {row(t.created, <CalendarDays className="size-4" aria-hidden="true" />, formatDate(room.created))}
        {!isOwned(role) && row(t.owner, <Crown className="size-4" aria-hidden="true" />, room.user)}
      </dl>
      <div className="mt-auto flex justify-end pt-1">
        <button
          type="button"
          className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
          onClick={() => onOpen(room)}
          aria-label={t.openLabel(room.name)}
        >
          {t.open}
        </button>
      </div>
    </article>
  );
}
