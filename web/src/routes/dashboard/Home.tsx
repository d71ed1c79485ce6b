import { useQuery } from '@tanstack/react-query';
import { AlarmClock, Gauge, LifeBuoy, Megaphone, ShieldCheck, Users } from 'lucide-react';
import { Suspense, lazy, useState, type ReactNode } from 'react';
import type { Advertisement, Peer } from '@vpn/contracts';
import { advertisementsQuery, clientVersionQuery, peersQuery } from '../../api/queries';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { SupportLink } from '../../components/SupportLink';
import { ui } from '../../components/ui';
import { useRuntimeConfig } from '../../config/runtime';
import { es } from '../../i18n/es';
import { formatDataSize, formatDate } from '../../lib/format';
import { ClientVersionBanner } from './ClientVersionBanner';
import { HomePeers } from './HomePeers';
import { useCurrentUser } from './DashboardLayout';

const t = es.dashboard.home;

/**
 * The purchase dialog, and the invoice's follower after it (with the contracts' schemas it checks
 * the invoice against), are fetched only when a customer renews.
 */
const PaymentFollower = lazy(() =>
  import('./payment/PaymentFollower').then((m) => ({ default: m.PaymentFollower })),
);
const PurchaseDialog = lazy(() =>
  import('./purchase/PurchaseDialog').then((m) => ({ default: m.PurchaseDialog })),
);

const SOON_MS = 3 * 24 * 3_600_000;

/**
 * The peers the banner lists: those expiring within 3 days, and those already expired (switched
 * off at expiry: renewing brings them back with the same configuration), soonest first.
 */
export function expiringSoon(peers: readonly Peer[], now: number): Peer[] {
  return peers
    .filter((p) => p.expiration_date !== null && new Date(p.expiration_date).getTime() - now <= SOON_MS)
    .sort((a, b) => Date.parse(a.expiration_date!) - Date.parse(b.expiration_date!));
}

/**
 * `/dashboard/home` (spec "Dashboard home"): loading ('Cargando información...'), error ('Hubo un
 * error al cargar los datos.' with retry) and content. With no announcements, a welcome card with
 * the feature blurbs (private rooms only where allowed) and a support button; with announcements,
 * their cards (name, date in Spanish long form, message) and the support-centre card. Above either,
 * the client-app banner while a release the customer has not dismissed exists. The banner is extra:
 * if its call fails the page still shows. First of all, the peers about to expire, each with
 * 'Renovar' (the purchase dialog with that peer selected); their list is the Peers page's query,
 * which pushes keep current and the purchase dialog reads anyway.
 */
export function Home() {
  const announcements = useQuery(advertisementsQuery());
  const version = useQuery(clientVersionQuery());
  const peers = useQuery(peersQuery());
  const { renew, view: renewal } = useRenewal();

  // The blocks above the announcements (the peers, the app banner) wait for the first answer of
  // their own calls, asked at the same time: drawing the page before those have answered would push
  // what is already on screen down as they arrive (Lighthouse measured a layout shift of 0.18,
  // issue 32). A call that failed once is not waited for while it retries, nor asked again: those
  // blocks are extra.
  const firstAnswerPending = (q: { isFetched: boolean; failureCount: number }) =>
    !q.isFetched && q.failureCount === 0;
  if (announcements.isPending || firstAnswerPending(peers) || firstAnswerPending(version))
    return <LoadingBlock label={es.common.loading} />;
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
      <ExpiringPeers onRenew={renew} />
      {renewal}
      {version.data && <ClientVersionBanner key={version.data.version} info={version.data} />}
      {announcements.data.length === 0 ? (
        <WelcomeCard status={<HomePeers onRenew={renew} />} />
      ) : (
        <>
          <Greeting />
          <HomePeers onRenew={renew} />
          <AnnouncementList items={announcements.data} />
          <SupportCard />
        </>
      )}
    </div>
  );
}

/** The welcome card (no announcements): greeting, the customer's peers (`status`), blurbs, support. */
function WelcomeCard({ status }: { status: ReactNode }) {
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
      <div className="p-6 pb-0 sm:px-8">{status}</div>
      <ul className={`grid gap-4 p-6 sm:p-8 ${features.length === 3 ? 'md:grid-cols-3' : 'md:grid-cols-2'}`}>
        {features.map(({ icon: Icon, title, text }) => (
          <li key={title} className="rounded-xl border border-slate-800 bg-navy-950/40 p-5">
            <Icon className="size-6 text-emerald-400" aria-hidden="true" />
            <h3 className="mt-3 font-semibold text-white">{title}</h3>
            <p className="mt-1 text-sm text-slate-400">{text}</p>
          </li>
        ))}
      </ul>
      {/* Only when the operator set a support link (issue 32): no button that does nothing. */}
      {support_url && (
        <div className="flex flex-col gap-3 border-t border-slate-800 p-6 sm:flex-row sm:items-center sm:justify-between sm:px-8">
          <p className="text-slate-400">{t.supportText}</p>
          <SupportLink url={support_url} />
        </div>
      )}
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

/** Only when the operator set a support link (issue 32): no button that does nothing. */
function SupportCard() {
  const { support_url } = useRuntimeConfig();
  if (!support_url) return null;
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
        <p className="text-slate-400">{t.supportText}</p>
      </div>
      <SupportLink url={support_url} />
    </section>
  );
}

/**
 * The peers whose data allowance is at 80 % or more (the server also mails and pushes the notice
 * once), fullest first. Adding a plan starts a new period with the plan's data.
 */
export function runningOutOfData(peers: readonly Peer[]): Peer[] {
  const share = (p: Peer) => p.data!.used / p.data!.allowance;
  return peers.filter((p) => p.data !== null && share(p) >= 0.8).sort((a, b) => share(b) - share(a));
}

/** One of the home's peer notices: a list of peers, each with why and a button to add a plan. */
function PeerNotice(props: {
  id: string;
  icon: ReactNode;
  title: string;
  text: string;
  action: string;
  items: { peer: Peer; detail: string }[];
  onRenew: (peerId: number) => void;
}) {
  return (
    <section
      aria-labelledby={props.id}
      className="rounded-xl border border-amber-400/30 bg-amber-500/10 p-4 text-amber-50 sm:p-5"
    >
      <h2 id={props.id} className="flex items-center gap-2 font-semibold text-white">
        {props.icon}
        {props.title}
      </h2>
      <p className="mt-1 text-sm text-amber-100/90">{props.text}</p>
      <ul className="mt-3 divide-y divide-amber-400/20">
        {props.items.map(({ peer, detail }) => (
          <li key={peer.id} className="flex flex-wrap items-center gap-3 py-2">
            <span className="flex-1">
              <strong className="font-semibold text-white">{peer.name}</strong>{' '}
              <span className="text-sm">{detail}</span>
            </span>
            {peer.manual_payment || peer.manager_disabled ? (
              <span className="text-sm text-amber-100/80">
                {peer.manager_disabled ? t.expiring.managerDisabled : t.expiring.manual}
              </span>
            ) : (
              <button
                type="button"
                className={ui.buttonPrimary}
                aria-label={`${props.action} ${peer.name}`}
                onClick={() => props.onRenew(peer.id)}
              >
                {props.action}
              </button>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}

function ExpiringPeers({ onRenew }: { onRenew: (peerId: number) => void }) {
  const peers = useQuery(peersQuery());
  const now = Date.now();
  const soon = expiringSoon(peers.data ?? [], now);
  const low = runningOutOfData(peers.data ?? []);
  if (soon.length === 0 && low.length === 0) return null;
  return (
    <>
      {soon.length > 0 && (
        <PeerNotice
          id="expiring-title"
          icon={<AlarmClock className="size-5 text-amber-300" aria-hidden="true" />}
          title={t.expiring.title}
          text={t.expiring.text}
          action={t.expiring.renew}
          onRenew={onRenew}
          items={soon.map((peer) => {
            const date = formatDate(peer.expiration_date!);
            const past = Date.parse(peer.expiration_date!) <= now;
            return { peer, detail: past ? t.expiring.expired(date) : t.expiring.expires(date) };
          })}
        />
      )}
      {low.length > 0 && (
        <PeerNotice
          id="data-title"
          icon={<Gauge className="size-5 text-amber-300" aria-hidden="true" />}
          title={t.data.title}
          text={t.data.text}
          action={t.data.add}
          onRenew={onRenew}
          items={low.map((peer) => {
            const { used, allowance } = peer.data!;
            return {
              peer,
              detail:
                used >= allowance
                  ? t.data.exhausted(formatDataSize(allowance))
                  : t.data.used(Math.floor((used / allowance) * 100), formatDataSize(allowance)),
            };
          })}
        />
      )}
    </>
  );
}

/**
 * Renewing from Home (a notice's Renovar or a peer card's): the purchase dialog with that peer
 * selected, then the invoice followed here until the peer is ready (PaymentFollower).
 */
function useRenewal() {
  const [renewing, setRenewing] = useState<number | null>(null);
  const [opened, setOpened] = useState<{ id: string; payment_url: string } | null>(null);
  const renew = (id: number) => {
    setOpened(null);
    setRenewing(id);
  };
  const view = (
    <>
      {opened && (
        <Suspense fallback={null}>
          <PaymentFollower
            key={opened.id}
            invoiceId={opened.id}
            paymentUrl={opened.payment_url}
            onDismiss={() => setOpened(null)}
          />
        </Suspense>
      )}
      {renewing !== null && (
        <Suspense fallback={null}>
          <PurchaseDialog
            key={renewing}
            plan={null}
            renew={renewing}
            onClose={() => setRenewing(null)}
            onOpened={(invoice) => {
              setRenewing(null);
              setOpened(invoice);
            }}
          />
        </Suspense>
      )}
    </>
  );
  return { renew, view };
}
