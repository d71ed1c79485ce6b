import { CalendarDays, Crown, Users } from 'lucide-react';
import type { ReactNode } from 'react';
import { MAX_OWNED_PARTIES } from '../../../api/partys';
import type { Party, PartyRole } from '../../../api/partys';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { esPartys } from '../../../i18n/es.partys';
import { formatDate } from '../../../lib/format';

const t = esPartys.list;

/** 'Administrador' (my room) or 'Invitado' (a room my peers are guests in). */
export function RoleBadge({ role }: { role: PartyRole }) {
  const owned = role === 'owned';
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-full px-2.5 py-0.5 text-xs font-semibold ${
        owned ? 'bg-emerald-500/15 text-emerald-300' : 'bg-sky-500/15 text-sky-300'
      }`}
    >
      {owned && <Crown className="size-3.5" aria-hidden="true" />}
      {owned ? esPartys.roles.owner : esPartys.roles.guest}
    </span>
  );
}

/** The room's in-progress indicator while its servers apply a membership change. */
export function ProcessingIndicator({ party, label = t.processing }: { party: Party; label?: string }) {
  if (!party.processing) return null;
  return (
    <span role="status" className="inline-flex items-center gap-1.5 text-xs font-medium text-amber-300">
      <Spinner className="size-3.5" />
      {label}
    </span>
  );
}

interface PartyListProps {
  owned: Party[];
  guest: Party[];
  onOpen: (party: Party) => void;
}

/**
 * The rooms: those I administer ('Administrador', with how many of the 5 I use) and those my peers
 * are guests in ('Invitado'). Each card shows the name, total peers, creation date, role, owner and
 * the in-progress indicator, and opens the room's detail.
 */
export function PartyList({ owned, guest, onOpen }: PartyListProps) {
  return (
    <div className="space-y-10">
      {owned.length > 0 && (
        <Section
          id="owned-partys"
          title={t.ownedTitle}
          aside={t.ownedCount(owned.length)}
          partys={owned}
          role="owned"
          onOpen={onOpen}
        />
      )}
      {guest.length > 0 && (
        <Section id="guest-partys" title={t.guestTitle} partys={guest} role="guest" onOpen={onOpen} />
      )}
    </div>
  );
}

function Section({
  id,
  title,
  aside,
  partys,
  role,
  onOpen,
}: {
  id: string;
  title: string;
  aside?: string;
  partys: Party[];
  role: PartyRole;
  onOpen: (party: Party) => void;
}) {
  return (
    <section aria-labelledby={`${id}-title`}>
      <div className="mb-4 flex items-baseline justify-between gap-3">
        <h2 id={`${id}-title`} className="text-xl font-semibold text-white">
          {title}
        </h2>
        {aside && (
          <span
            className={`text-sm ${isOwned(role) && partys.length >= MAX_OWNED_PARTIES ? 'text-amber-300' : 'text-slate-400'}`}
          >
            {aside}
          </span>
        )}
      </div>
      <ul aria-labelledby={`${id}-title`} className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
        {partys.map((party) => (
          <li key={party.id}>
            <PartyCard party={party} role={role} onOpen={onOpen} />
          </li>
        ))}
      </ul>
    </section>
  );
}

const isOwned = (role: PartyRole) => role === 'owned';

function PartyCard({
  party,
  role,
  onOpen,
}: {
  party: Party;
  role: PartyRole;
  onOpen: (party: Party) => void;
}) {
  const nameId = `party-${party.id}-name`;
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
      aria-busy={party.processing}
      className={`${ui.card} flex h-full flex-col gap-3 p-5`}
    >
      <div className="flex items-start justify-between gap-3">
        <div className="flex min-w-0 flex-col gap-1">
          <h3 id={nameId} className="truncate text-lg font-semibold text-white" title={party.name}>
            {party.name}
          </h3>
          <ProcessingIndicator party={party} />
        </div>
        <RoleBadge role={role} />
      </div>
      <dl className="divide-y divide-slate-800 text-sm">
        {row(t.totalPeers, <Users className="size-4" aria-hidden="true" />, t.peers(party.peers.length))}
        {row(t.created, <CalendarDays className="size-4" aria-hidden="true" />, formatDate(party.created))}
        {!isOwned(role) && row(t.owner, <Crown className="size-4" aria-hidden="true" />, party.user)}
      </dl>
      <div className="mt-auto flex justify-end pt-1">
        <button
          type="button"
          className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
          onClick={() => onOpen(party)}
          aria-label={t.openLabel(party.name)}
        >
          {t.open}
        </button>
      </div>
    </article>
  );
}
