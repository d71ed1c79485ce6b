import { useQuery } from '@tanstack/react-query';
import { Gauge, LifeBuoy, Megaphone, ShieldCheck, Users } from 'lucide-react';
import type { Advertisement } from '@vpn/contracts';
import { advertisementsQuery, clientVersionQuery } from '../../api/queries';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { SupportLink } from '../../components/SupportLink';
import { ui } from '../../components/ui';
import { useRuntimeConfig } from '../../config/runtime';
import { es } from '../../i18n/es';
import { formatDate } from '../../lib/format';
import { ClientVersionBanner } from './ClientVersionBanner';
import { useCurrentUser } from './DashboardLayout';

const t = es.dashboard.home;

/**
 * `/dashboard/home` (spec "Dashboard home"): loading ('Cargando información...'), error ('Hubo un
 * error al cargar los datos.' with retry) and content. With no announcements, a welcome card with
 * the feature blurbs (private rooms only where allowed) and a support button; with announcements,
 * their cards (name, date in Spanish long form, message) and the support-centre card. Above either,
 * the client-app banner while a release the customer has not dismissed exists. The banner is extra:
 * if its call fails the page still shows.
 */
export function Home() {
  const announcements = useQuery(advertisementsQuery());
  const version = useQuery(clientVersionQuery());

  if (announcements.isPending) return <LoadingBlock label={es.common.loading} />;
  if (announcements.isError) {
    return (
      <ErrorPanel
        message={t.error}
        onRetry={() => {
          void announcements.refetch();
          if (version.isError) void version.refetch();
        }}
      />
    );
  }

  return (
    <div className="space-y-6">
      {version.data && <ClientVersionBanner key={version.data.version} info={version.data} />}
      {announcements.data.length === 0 ? (
        <WelcomeCard />
      ) : (
        <>
          <Greeting />
          <AnnouncementList items={announcements.data} />
          <SupportCard />
        </>
      )}
    </div>
  );
}

function WelcomeCard() {
  const user = useCurrentUser();
  const { company_name, support_url } = useRuntimeConfig();
  const features = [
    { icon: ShieldCheck, ...t.features.protection },
    { icon: Gauge, ...t.features.speed },
    ...(user.web_settings.allow_partys ? [{ icon: Users, ...t.features.rooms }] : []),
  ];
  return (
    <section aria-labelledby="welcome-title" className={`${ui.card} overflow-hidden`}>
      <div className="bg-gradient-to-r from-emerald-500/15 via-blue-600/10 to-transparent p-6 sm:p-8">
        <p className="text-sm font-medium text-emerald-300">{es.dashboard.greeting(user.username)}</p>
        <h1 id="welcome-title" className="mt-1 text-3xl font-bold tracking-tight text-white">
          {t.welcomeTitle(company_name)}
        </h1>
        <p className="mt-2 max-w-2xl text-slate-300">{t.welcomeText}</p>
      </div>
      <ul className={`grid gap-4 p-6 sm:p-8 ${features.length === 3 ? 'md:grid-cols-3' : 'md:grid-cols-2'}`}>
        {features.map(({ icon: Icon, title, text }) => (
          <li key={title} className="rounded-xl border border-slate-800 bg-navy-950/40 p-5">
            <Icon className="size-6 text-emerald-400" aria-hidden="true" />
            <h2 className="mt-3 font-semibold text-white">{title}</h2>
            <p className="mt-1 text-sm text-slate-400">{text}</p>
          </li>
        ))}
      </ul>
      <div className="flex flex-col gap-3 border-t border-slate-800 p-6 sm:flex-row sm:items-center sm:justify-between sm:px-8">
        <p className="text-slate-400">{support_url ? t.supportText : t.supportUnavailable}</p>
        <SupportLink url={support_url} />
      </div>
    </section>
  );
}

function Greeting() {
  const user = useCurrentUser();
  const { company_name } = useRuntimeConfig();
  return (
    <header>
      <p className="text-sm font-medium text-emerald-300">{es.dashboard.greeting(user.username)}</p>
      <h1 className="mt-1 text-3xl font-bold tracking-tight text-white">{t.welcomeTitle(company_name)}</h1>
    </header>
  );
}

function AnnouncementList({ items }: { items: Advertisement[] }) {
  return (
    <section aria-labelledby="announcements-title" className="space-y-4">
      <h2 id="announcements-title" className="flex items-center gap-2 text-xl font-semibold text-white">
        <Megaphone className="size-5 text-emerald-400" aria-hidden="true" />
        {t.announcementsTitle}
      </h2>
      <ul aria-label={t.announcementsLabel} className="space-y-4">
        {items.map((item) => (
          <li key={item.id}>
            <article aria-labelledby={`announcement-${item.id}`} className={`${ui.card} p-6`}>
              <h3 id={`announcement-${item.id}`} className="text-lg font-semibold text-white">
                {item.name}
              </h3>
              <p className="mt-1 text-sm text-slate-400">
                {t.publishedOn} <time dateTime={item.created}>{formatDate(item.created)}</time>
              </p>
              <p className="mt-3 whitespace-pre-line text-slate-200">{item.message}</p>
            </article>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SupportCard() {
  const { support_url } = useRuntimeConfig();
  return (
    <section
      aria-labelledby="support-title"
      className={`${ui.card} flex flex-col gap-4 p-6 sm:flex-row sm:items-center sm:p-8`}
    >
      <span className="grid size-12 shrink-0 place-items-center rounded-xl bg-blue-500/15 text-blue-200">
        <LifeBuoy className="size-6" aria-hidden="true" />
      </span>
      <div className="flex-1">
        <h2 id="support-title" className="text-lg font-semibold text-white">
          {t.supportTitle}
        </h2>
        <p className="text-slate-400">{support_url ? t.supportText : t.supportUnavailable}</p>
      </div>
      <SupportLink url={support_url} />
    </section>
  );
}
