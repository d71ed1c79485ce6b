import { Gauge, LifeBuoy, ShieldCheck, Users } from 'lucide-react';
import { useRuntimeConfig } from '../../config/runtime';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useCurrentUser } from './DashboardLayout';

/**
 * `/dashboard/home`. Announcements and the client-version banner arrive with a later issue; until
 * then the page shows the spec's "no announcements" layout: a welcome card with the feature blurbs
 * (private rooms only where allowed) and the support contact (only when a support URL is configured).
 */
export function Home() {
  const user = useCurrentUser();
  const { company_name, support_url } = useRuntimeConfig();
  const t = es.dashboard.home;
  const features = [
    { icon: ShieldCheck, ...t.features.protection },
    { icon: Gauge, ...t.features.speed },
    ...(user.web_settings.allow_partys ? [{ icon: Users, ...t.features.rooms }] : []),
  ];

  return (
    <div className="space-y-6">
      <section aria-labelledby="welcome-title" className={`${ui.card} overflow-hidden`}>
        <div className="bg-gradient-to-r from-emerald-500/15 via-blue-600/10 to-transparent p-6 sm:p-8">
          <p className="text-sm font-medium text-emerald-300">{es.dashboard.greeting(user.username)}</p>
          <h1 id="welcome-title" className="mt-1 text-3xl font-bold tracking-tight text-white">
            {t.welcomeTitle(company_name)}
          </h1>
          <p className="mt-2 max-w-2xl text-slate-300">{t.welcomeText}</p>
        </div>
        <ul
          className={`grid gap-4 p-6 sm:p-8 ${features.length === 3 ? 'md:grid-cols-3' : 'md:grid-cols-2'}`}
        >
          {features.map(({ icon: Icon, title, text }) => (
            <li key={title} className="rounded-xl border border-slate-800 bg-navy-950/40 p-5">
              <Icon className="size-6 text-emerald-400" aria-hidden="true" />
              <h2 className="mt-3 font-semibold text-white">{title}</h2>
              <p className="mt-1 text-sm text-slate-400">{text}</p>
            </li>
          ))}
        </ul>
      </section>

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
        {support_url && (
          <a href={support_url} target="_blank" rel="noopener noreferrer" className={ui.buttonPrimary}>
            {t.support}
            <span className="sr-only"> {es.common.openInNewTab}</span>
          </a>
        )}
      </section>
    </div>
  );
}
