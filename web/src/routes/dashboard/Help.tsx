import { Download, HelpCircle, MonitorCog, Users } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { WIREGUARD_INSTALL_URL } from '../public/Landing';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';

function Section({
  id,
  icon: Icon,
  title,
  children,
}: {
  id: string;
  icon: LucideIcon;
  title: string;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className={`${ui.card} p-6 sm:p-8`}>
      <h2 id={id} className="flex items-center gap-3 text-xl font-semibold text-white">
        <Icon className="size-6 text-emerald-400" aria-hidden="true" />
        {title}
      </h2>
      <div className="mt-4">{children}</div>
    </section>
  );
}

function Steps({ steps }: { steps: readonly string[] }) {
  return (
    <ol className="space-y-3">
      {steps.map((step, i) => (
        <li key={step} className="flex gap-3 text-slate-300">
          <span className="grid size-7 shrink-0 place-items-center rounded-full bg-emerald-500/15 text-sm font-semibold text-emerald-300">
            {i + 1}
          </span>
          <span className="pt-0.5">{step}</span>
        </li>
      ))}
    </ol>
  );
}

/** `/dashboard/help`: VPN setup, room usage (only where rooms are allowed) and the FAQ. */
export function Help() {
  const user = useCurrentUser();
  const t = es.dashboard.help;
  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <div className="space-y-6">
        <Section id="help-setup" icon={MonitorCog} title={t.setupTitle}>
          <Steps steps={t.setupSteps} />
          <a
            href={WIREGUARD_INSTALL_URL}
            target="_blank"
            rel="noopener noreferrer"
            className={`${ui.buttonSecondary} mt-6`}
          >
            <Download className="size-4" aria-hidden="true" />
            {t.downloadClient}
            <span className="sr-only"> {es.common.openInNewTab}</span>
          </a>
        </Section>
        {user.web_settings.allow_partys && (
          <Section id="help-rooms" icon={Users} title={t.roomsTitle}>
            <Steps steps={t.roomsSteps} />
          </Section>
        )}
        <Section id="help-faq" icon={HelpCircle} title={t.faqTitle}>
          <div className="divide-y divide-slate-800">
            {t.faq.map(({ q, a }) => (
              <details key={q} className="group py-3">
                <summary className="cursor-pointer list-none font-medium text-slate-100 marker:hidden">
                  <span className="mr-2 inline-block text-emerald-400 transition group-open:rotate-90">
                    ›
                  </span>
                  {q}
                </summary>
                <p className="mt-2 pl-5 text-slate-400">{a}</p>
              </details>
            ))}
          </div>
        </Section>
      </div>
    </>
  );
}
