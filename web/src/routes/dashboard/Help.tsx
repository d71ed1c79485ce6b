import { Download, HelpCircle, Link2, MonitorCog, Smartphone, Users } from 'lucide-react';
import type { LucideIcon } from 'lucide-react';
import { useRef, useState } from 'react';
import type { KeyboardEvent, ReactNode } from 'react';
import { ui } from '../../components/ui';
import { useRuntimeConfig } from '../../config/runtime';
import { es } from '../../i18n/es';
import { formatDataSize } from '../../lib/format';
import { WIREGUARD_INSTALL_URL } from '../public/Landing';
import { useCurrentUser } from './DashboardLayout';
import { PageHeader } from './PageHeader';

const t = es.dashboard.help;

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
          <span className="pt-0.5 break-words">{step}</span>
        </li>
      ))}
    </ol>
  );
}

/** F-Droid's page of the official app: reachable from Cuba, unlike Google Play. */
export const WIREGUARD_FDROID_URL = 'https://f-droid.org/packages/com.wireguard.android/';

/**
 * Where a Cuban phone gets the app (issue 32): the APK this panel serves (with its size), the
 * operator's link, and F-Droid; never only Google Play.
 */
function AndroidApps() {
  const android = useRuntimeConfig().android;
  const links = [
    ...(android?.apk
      ? [{ href: android.apk.url, label: t.androidApk(formatDataSize(android.apk.size)), download: true }]
      : []),
    ...(android?.app_url ? [{ href: android.app_url, label: t.androidLink, download: false }] : []),
    { href: WIREGUARD_FDROID_URL, label: t.androidFdroid, download: false },
  ];
  return (
    <div className="mb-5 rounded-lg border border-emerald-500/30 bg-emerald-500/5 p-4">
      <h3 className="flex items-center gap-2 font-semibold text-white">
        <Smartphone className="size-4 text-emerald-400" aria-hidden="true" />
        {t.androidAppsTitle}
      </h3>
      <p className="mt-1 text-sm text-slate-300">{t.androidAppsText}</p>
      <ul className="mt-3 flex flex-wrap gap-2">
        {links.map(({ href, label, download }) => (
          <li key={href}>
            {download ? (
              <a href={href} download className={`${ui.buttonPrimary} py-2 text-sm`}>
                <Download className="size-4" aria-hidden="true" />
                {label}
              </a>
            ) : (
              <a
                href={href}
                target="_blank"
                rel="noopener noreferrer"
                className={`${ui.buttonSecondary} py-2 text-sm`}
              >
                <Download className="size-4" aria-hidden="true" />
                {label}
                <span className="sr-only"> {es.common.openInNewTab}</span>
              </a>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}

/**
 * The setup guides, one tab per platform (WAI-ARIA tabs: arrow keys, Home and End move between
 * them, only the chosen guide is shown).
 */
function PlatformGuides() {
  const [selected, setSelected] = useState(0);
  const tabs = useRef<(HTMLButtonElement | null)[]>([]);
  const platforms = t.platforms;

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const last = platforms.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: selected === last ? 0 : selected + 1,
      ArrowLeft: selected === 0 ? last : selected - 1,
      Home: 0,
      End: last,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    setSelected(next);
    tabs.current[next]?.focus();
  }

  const current = platforms[selected] ?? platforms[0];
  return (
    <div>
      <div
        role="tablist"
        aria-label={t.platformsLabel}
        className="flex flex-wrap gap-2"
        onKeyDown={onKeyDown}
      >
        {platforms.map((platform, i) => (
          <button
            key={platform.id}
            ref={(el) => {
              tabs.current[i] = el;
            }}
            type="button"
            role="tab"
            id={`help-tab-${platform.id}`}
            aria-selected={i === selected}
            aria-controls={`help-panel-${platform.id}`}
            tabIndex={i === selected ? 0 : -1}
            onClick={() => setSelected(i)}
            className={`rounded-lg px-3 py-1.5 text-sm font-medium transition ${
              i === selected
                ? 'bg-emerald-500/15 text-emerald-300'
                : 'text-slate-300 hover:bg-white/5 hover:text-white'
            }`}
          >
            {platform.name}
          </button>
        ))}
      </div>
      <div
        role="tabpanel"
        id={`help-panel-${current.id}`}
        aria-labelledby={`help-tab-${current.id}`}
        tabIndex={0}
        className="mt-5 rounded-xl border border-slate-800 bg-navy-950/40 p-5"
      >
        {current.id === 'android' && <AndroidApps />}
        <Steps steps={current.steps} />
      </div>
    </div>
  );
}

/**
 * `/dashboard/help` (spec "Help centre"): VPN setup step by step for each platform — using the
 * `.conf` ('Descargar'), the QR code ('Código QR'), the RouterOS script ('Script MikroTik') and the
 * mirror link ('Copiar'), the Peers page's own labels —, room usage (only where rooms are allowed)
 * and the FAQ.
 */
export function Help() {
  const user = useCurrentUser();
  return (
    <>
      <PageHeader title={t.title} subtitle={t.subtitle} />
      <div className="space-y-6">
        <Section id="help-setup" icon={MonitorCog} title={t.setupTitle}>
          <p className="mb-5 text-slate-300">{t.setupIntro}</p>
          <PlatformGuides />
          <div className="mt-6 rounded-xl border border-slate-800 p-5">
            <h3 className="flex items-center gap-2 font-semibold text-white">
              <Link2 className="size-4 text-emerald-400" aria-hidden="true" />
              {t.mirrorTitle}
            </h3>
            <p className="mt-2 text-slate-400">{t.mirrorText}</p>
          </div>
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
            <p className="mt-4 text-sm text-slate-400">{t.roomsNote}</p>
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
