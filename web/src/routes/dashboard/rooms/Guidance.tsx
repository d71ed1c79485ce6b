import { AtSign, MonitorSmartphone, ServerCog, Users } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { Suspense, lazy, useState, type ReactNode } from 'react';
import { Link } from 'react-router';
import { EmptyState } from '../../../components/EmptyState';
import { ui } from '../../../components/ui';
import { esRooms } from '../../../i18n/es.rooms';
import { useCurrentUser } from '../DashboardLayout';

/** Configuración's alias dialog, fetched when a customer sets the alias from here. */
const AliasDialog = lazy(() => import('../Settings').then((m) => ({ default: m.AliasDialog })));

const t = esRooms.guidance;

function GuidanceCard({
  id,
  icon: Icon,
  title,
  text,
  children,
}: {
  id: string;
  icon: LucideIcon;
  title: string;
  text: string;
  children: ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${id}-title`}
      className="flex flex-col gap-4 rounded-2xl border border-amber-400/30 bg-amber-400/5 p-5 sm:flex-row sm:items-center"
    >
      <span className="grid size-12 shrink-0 place-items-center rounded-xl bg-amber-400/10 text-amber-300">
        <Icon className="size-6" aria-hidden="true" />
      </span>
      <div className="flex-1">
        <h2 id={`${id}-title`} className="font-semibold text-white">
          {title}
        </h2>
        <p className="mt-1 text-sm text-slate-300">{text}</p>
      </div>
      <div className="flex flex-wrap gap-3">{children}</div>
    </section>
  );
}

/**
 * No alias yet: rooms show members by alias, so the server refuses to create or join without one.
 * 'Configurar alias' opens Configuración's own alias dialog right here (issue 32): once saved, the
 * customer is still in Salas, this card gone, instead of left on the settings page.
 */
export function AliasCard() {
  const user = useCurrentUser();
  const [open, setOpen] = useState(false);
  return (
    <GuidanceCard id="guide-alias" icon={AtSign} title={t.aliasTitle} text={t.aliasText}>
      <button type="button" className={ui.buttonPrimary} onClick={() => setOpen(true)}>
        {t.aliasCta}
      </button>
      {open && (
        <Suspense fallback={null}>
          <AliasDialog user={user} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </GuidanceCard>
  );
}

/**
 * No rooms and no free peer. With free peers only on servers that do not allow rooms, the way out is
 * moving them (or buying another); with none at all, a peer must be acquired first.
 */
export function NoPeersCard({ blocked }: { blocked: boolean }) {
  if (blocked) {
    return (
      <GuidanceCard id="guide-peers" icon={ServerCog} title={t.wrongServerTitle} text={t.wrongServerText}>
        <Link to="/dashboard/peers" className={ui.buttonPrimary}>
          {t.wrongServerCta}
        </Link>
        <Link to="/dashboard/plans" className={ui.buttonSecondary}>
          {t.noPeersCta}
        </Link>
      </GuidanceCard>
    );
  }
  return (
    <GuidanceCard id="guide-peers" icon={MonitorSmartphone} title={t.noPeersTitle} text={t.noPeersText}>
      <Link to="/dashboard/plans" className={ui.buttonPrimary}>
        {t.noPeersCta}
      </Link>
    </GuidanceCard>
  );
}

/** No rooms yet: offer creating one (or joining someone's) when that can work now. */
export function NoRoomsState({ actions }: { actions: ReactNode }) {
  return (
    <EmptyState icon={Users} title={t.emptyTitle} text={t.emptyText}>
      {actions}
    </EmptyState>
  );
}
