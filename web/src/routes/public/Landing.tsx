import {
  ArrowRight,
  Check,
  Download,
  Gauge,
  Laptop,
  LockKeyhole,
  ShieldCheck,
  Smartphone,
  Wallet,
  EyeOff,
} from 'lucide-react';
import { Link } from 'react-router';
import { PublicShell } from '../../components/PublicLayoutShell';
import { paymentMethods } from '../../components/GatewayBanner';
import { ui } from '../../components/ui';
import { useDocumentTitle } from '../../lib/title';
import { es } from '../../i18n/es';
import { usePublicSettings } from './PublicLayout';

export const WIREGUARD_INSTALL_URL = 'https://www.wireguard.com/install/';

const features = [
  { icon: ShieldCheck, ...es.landing.features.security },
  { icon: EyeOff, ...es.landing.features.privacy },
  { icon: Gauge, ...es.landing.features.speed },
];

/** `/`: the product's front page (only when show_landing is on; the gate sends others to /login). */
export function Landing() {
  useDocumentTitle(es.titles.welcome);
  const settings = usePublicSettings();
  const t = es.landing;

  return (
    <PublicShell settings={settings}>
      {/* Hero */}
      <section className="relative overflow-hidden">
        <div
          className="pointer-events-none absolute inset-0 bg-[radial-gradient(ellipse_at_top_right,rgba(16,185,129,0.22),transparent_50%),radial-gradient(ellipse_at_bottom_left,rgba(37,99,235,0.25),transparent_55%)]"
          aria-hidden="true"
        />
        <div className="relative mx-auto grid max-w-6xl items-center gap-12 px-4 py-20 sm:px-6 md:py-28 lg:grid-cols-2">
          <div>
            <p className="inline-flex items-center gap-2 rounded-full border border-emerald-400/30 bg-emerald-400/10 px-3 py-1 text-sm font-medium text-emerald-300">
              <LockKeyhole className="size-4" aria-hidden="true" />
              {t.badge}
            </p>
            <h1 className="mt-6 text-4xl font-extrabold tracking-tight text-white sm:text-5xl lg:text-6xl">
              {t.heroTitle}
            </h1>
            <p className="mt-6 max-w-xl text-lg text-slate-300">{t.heroText}</p>
            <div className="mt-8 flex flex-wrap gap-3">
              <Link to="/plans" className={`${ui.buttonPrimary} px-6 py-3`}>
                {t.seePlans}
                <ArrowRight className="size-4" aria-hidden="true" />
              </Link>
              {settings.allow_registration && (
                <Link to="/register" className={`${ui.buttonSecondary} px-6 py-3`}>
                  {t.createAccount}
                </Link>
              )}
              <Link to="/login" className={`${ui.buttonGhost} px-6 py-3`}>
                {t.haveAccount}
              </Link>
            </div>
          </div>
          <HeroIllustration />
        </div>
      </section>

      {/* Features */}
      <section aria-labelledby="features-title" className="border-t border-white/5 bg-navy-900/40">
        <div className="mx-auto max-w-6xl px-4 py-20 sm:px-6">
          <div className="max-w-2xl">
            <h2 id="features-title" className="text-3xl font-bold tracking-tight text-white">
              {t.featuresTitle}
            </h2>
            <p className="mt-3 text-slate-400">{t.featuresText}</p>
          </div>
          <ul className="mt-12 grid gap-6 md:grid-cols-3">
            {features.map(({ icon: Icon, title, text }) => (
              <li key={title} className={`${ui.card} p-6`}>
                <span className="grid size-12 place-items-center rounded-xl bg-emerald-500/15 text-emerald-300">
                  <Icon className="size-6" aria-hidden="true" />
                </span>
                <h3 className="mt-5 text-lg font-semibold text-white">{title}</h3>
                <p className="mt-2 text-slate-400">{text}</p>
              </li>
            ))}
          </ul>
          <div className="mt-6 flex flex-col gap-4 rounded-2xl border border-blue-400/20 bg-gradient-to-r from-blue-600/15 to-emerald-500/10 p-6 sm:flex-row sm:items-center">
            <span className="grid size-12 shrink-0 place-items-center rounded-xl bg-blue-500/20 text-blue-200">
              <Wallet className="size-6" aria-hidden="true" />
            </span>
            <div>
              <h3 className="text-lg font-semibold text-white">{t.paymentsTitle}</h3>
              <p className="mt-1 text-slate-300">{t.paymentsText(paymentMethods(settings))}</p>
            </div>
          </div>
        </div>
      </section>

      {/* Flexible plans + WireGuard */}
      <div className="mx-auto grid max-w-6xl gap-6 px-4 py-20 sm:px-6 lg:grid-cols-2">
        <section aria-labelledby="plans-title" className={`${ui.card} flex flex-col p-8`}>
          <h2 id="plans-title" className="text-2xl font-bold text-white">
            {t.plansTitle}
          </h2>
          <p className="mt-3 text-slate-400">{t.plansText}</p>
          <ul className="mt-6 flex-1 space-y-3">
            {t.plansBullets.map((line) => (
              <li key={line} className="flex gap-2 text-slate-200">
                <Check className="mt-0.5 size-5 shrink-0 text-emerald-400" aria-hidden="true" />
                {line}
              </li>
            ))}
          </ul>
          <Link to="/plans" className={`${ui.buttonPrimary} mt-8 self-start`}>
            {t.plansCta}
            <ArrowRight className="size-4" aria-hidden="true" />
          </Link>
        </section>

        <section aria-labelledby="wireguard-title" className={`${ui.card} flex flex-col p-8`}>
          <h2 id="wireguard-title" className="text-2xl font-bold text-white">
            {t.wireguardTitle}
          </h2>
          <p className="mt-3 text-slate-400">{t.wireguardText}</p>
          <ul className="mt-6 flex flex-1 flex-wrap content-start gap-2">
            {t.wireguardPlatforms.map((platform) => (
              <li
                key={platform}
                className="rounded-full border border-slate-700 bg-navy-950/60 px-3 py-1 text-sm text-slate-200"
              >
                {platform}
              </li>
            ))}
          </ul>
          <a
            href={WIREGUARD_INSTALL_URL}
            target="_blank"
            rel="noopener noreferrer"
            className={`${ui.buttonSecondary} mt-8 self-start`}
          >
            <Download className="size-4" aria-hidden="true" />
            {t.wireguardDownload}
            <span className="sr-only"> {es.common.openInNewTab}</span>
          </a>
        </section>
      </div>

      {/* Call to action */}
      <section className="mx-auto max-w-6xl px-4 pb-24 sm:px-6">
        <div className="flex flex-col items-start gap-6 rounded-3xl bg-gradient-to-br from-emerald-500 to-emerald-700 p-8 text-navy-950 sm:p-12 md:flex-row md:items-center md:justify-between">
          <div>
            <h2 className="text-3xl font-bold tracking-tight">{t.ctaTitle}</h2>
            <p className="mt-2 text-lg text-navy-900">{t.ctaText}</p>
          </div>
          <div className="flex flex-wrap gap-3">
            {settings.allow_registration ? (
              <Link
                to="/register"
                className="rounded-lg bg-navy-950 px-6 py-3 font-semibold text-white hover:bg-navy-900"
              >
                {t.createAccount}
              </Link>
            ) : (
              <Link
                to="/login"
                className="rounded-lg bg-navy-950 px-6 py-3 font-semibold text-white hover:bg-navy-900"
              >
                {es.nav.login}
              </Link>
            )}
            <Link
              to="/plans"
              className="rounded-lg border border-navy-950/30 px-6 py-3 font-semibold hover:bg-white/10"
            >
              {t.seePlans}
            </Link>
          </div>
        </div>
      </section>
    </PublicShell>
  );
}

/** Decorative: a phone and a laptop joined by an encrypted tunnel. */
function HeroIllustration() {
  return (
    <div className="relative hidden lg:block" aria-hidden="true">
      <div className="absolute -inset-6 rounded-[2.5rem] bg-emerald-500/10 blur-3xl" />
      <div className={`${ui.card} relative p-8`}>
        <div className="flex items-center justify-between">
          <div className="grid size-16 place-items-center rounded-2xl bg-navy-800 text-slate-200">
            <Smartphone className="size-8" />
          </div>
          <div className="mx-4 h-1 flex-1 rounded-full bg-gradient-to-r from-emerald-400 via-emerald-300 to-blue-400" />
          <div className="grid size-20 place-items-center rounded-2xl bg-gradient-to-br from-emerald-400 to-emerald-600 text-navy-950 shadow-lg shadow-emerald-500/30">
            <ShieldCheck className="size-10" />
          </div>
          <div className="mx-4 h-1 flex-1 rounded-full bg-gradient-to-r from-blue-400 via-emerald-300 to-emerald-400" />
          <div className="grid size-16 place-items-center rounded-2xl bg-navy-800 text-slate-200">
            <Laptop className="size-8" />
          </div>
        </div>
        <div className="mt-8 space-y-3 font-mono text-sm">
          <div className="flex justify-between rounded-lg bg-navy-950/70 px-4 py-3">
            <span className="text-slate-400">[Interface]</span>
            <span className="text-emerald-300">WireGuard</span>
          </div>
          <div className="flex justify-between rounded-lg bg-navy-950/70 px-4 py-3">
            <span className="text-slate-400">ChaCha20-Poly1305</span>
            <span className="text-emerald-300">●</span>
          </div>
          <div className="flex justify-between rounded-lg bg-navy-950/70 px-4 py-3">
            <span className="text-slate-400">Curve25519</span>
            <span className="text-emerald-300">●</span>
          </div>
        </div>
      </div>
    </div>
  );
}
