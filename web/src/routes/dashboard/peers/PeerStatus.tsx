/**
 * What a customer needs of a peer at a glance, shared by Home's peer cards, the Peers page (cards
 * and rows) and the payment result (issue 32): the server's state in the console's words, the
 * expiry with the days left, the data used of the allowance, the install buttons (QR, Descargar)
 * and, when its server does not answer, the notice with "Cambiar servidor" one tap away.
 */
import type { Peer, ServerStatus } from '@vpn/contracts';
import { AlertTriangle, Download, QrCode } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { ProgressBar } from '../../../components/ProgressBar';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { formatDataSize, formatDate } from '../../../lib/format';
import { reducedText } from '../../../lib/speed';

const t = esPeerStatus;
const tp = es.dashboard.peers;
const DAY_MS = 86_400_000;

/** Download and regenerate only for active peers, and nothing while an operation is under way. */
export function peerActionable(peer: Peer): boolean {
  return peer.active && peer.processing === null;
}

export function StatusPill({ tone, children }: { tone: 'ok' | 'warn' | 'off'; children: ReactNode }) {
  const tones = {
    ok: ['bg-emerald-500/15 text-emerald-300', 'bg-emerald-400'],
    warn: ['bg-amber-500/15 text-amber-200', 'bg-amber-300'],
    off: ['bg-slate-500/20 text-slate-300', 'bg-slate-400'],
  }[tone];
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold ${tones[0]}`}
    >
      <span className={`size-1.5 rounded-full ${tones[1]}`} aria-hidden="true" />
      {children}
    </span>
  );
}

/** Activo / Deshabilitado (spec); a manager's switch-off says so, since buying a plan does not lift it. */
export function PeerStateBadge({ peer }: { peer: Peer }) {
  const badge = (
    <StatusPill tone={peer.active ? 'ok' : 'off'}>{peer.active ? tp.active : tp.disabled}</StatusPill>
  );
  // Online, but held at its plan's reduced speed (issue 35): the details say why.
  if (peer.active && peer.speed.reduced)
    return (
      <span className="inline-flex flex-col items-start gap-1" title={reducedText(peer.speed) ?? undefined}>
        {badge}
        <span className="text-xs text-amber-300">{es.speed.reduced}</span>
      </span>
    );
  if (!peer.manager_disabled) return badge;
  return (
    <span className="inline-flex flex-col items-start gap-1" title={tp.managerDisabledHelp}>
      {badge}
      <span className="text-xs text-amber-300">{tp.managerDisabled}</span>
    </span>
  );
}

/** Activo (green), Sin conexión (amber: the agent is silent), Inactivo (grey: switched off). */
export function ServerStatusBadge({ status }: { status: ServerStatus }) {
  const tone = status === 'active' ? 'ok' : status === 'offline' ? 'warn' : 'off';
  return <StatusPill tone={tone}>{t.server[status]}</StatusPill>;
}

/** "Activo hasta el 5 de abril de 2026 · quedan 12 días", "Venció el …", or "Indeterminado". */
export function expiryText(peer: Pick<Peer, 'expiration_date'>, now = Date.now()): string {
  if (!peer.expiration_date) return t.expiry.none;
  const at = Date.parse(peer.expiration_date);
  const date = formatDate(peer.expiration_date);
  if (at <= now) return t.expiry.expired(date);
  return `${t.expiry.activeUntil(date)} · ${t.expiry.daysLeft(Math.floor((at - now) / DAY_MS))}`;
}

/** The period's data: "1,2 GB de 10 GB" with a bar, or "Sin límite de datos". */
export function DataUsed({ peer }: { peer: Pick<Peer, 'data'> }) {
  if (!peer.data) return <span className="text-slate-300">{t.data.unlimited}</span>;
  const { used, allowance } = peer.data;
  const percent = Math.min(100, Math.floor((used / allowance) * 100));
  const text = t.data.used(formatDataSize(Math.min(used, allowance)), formatDataSize(allowance));
  const tone = percent >= 100 ? 'bg-red-500' : percent >= 80 ? 'bg-amber-400' : 'bg-emerald-500';
  return (
    <span className="flex min-w-32 flex-col gap-1">
      <span className="text-slate-200">{text}</span>
      <ProgressBar label={t.data.label} value={percent} max={100} valueText={text} tone={tone} />
    </span>
  );
}

/** QR and Descargar, side by side: the two ways to put the peer in the app, each one tap. */
export function InstallButtons({
  peer,
  onQr,
  onDownload,
  size = 'md',
  only,
}: {
  peer: Peer;
  onQr: () => void;
  onDownload: () => Promise<void>;
  size?: 'sm' | 'md';
  /** One of the two (e.g. only Descargar where the QR is already on screen). */
  only?: 'download';
}) {
  const [downloading, setDownloading] = useState(false);
  const enabled = peerActionable(peer);
  const pad = size === 'sm' ? 'px-3 py-1.5 text-sm' : '';
  async function download() {
    setDownloading(true);
    try {
      await onDownload();
    } finally {
      setDownloading(false);
    }
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-2">
      {only !== 'download' && (
        <button
          type="button"
          className={`${ui.buttonPrimary} ${pad}`}
          disabled={!enabled}
          onClick={onQr}
          aria-label={t.install.qrLabel(peer.name)}
        >
          <QrCode className="size-4" aria-hidden="true" />
          {t.install.qr}
        </button>
      )}
      <button
        type="button"
        className={`${ui.buttonSecondary} ${pad}`}
        disabled={!enabled || downloading}
        onClick={() => void download()}
        aria-label={es.dashboard.peers.downloadLabel(peer.name)}
        title={peer.active ? undefined : es.dashboard.peers.inactiveHint}
      >
        {downloading ? <Spinner className="size-4" /> : <Download className="size-4" aria-hidden="true" />}
        {t.install.download}
      </button>
    </span>
  );
}

/**
 * The peer's server does not answer (Sin conexión) or was switched off (Inactivo): the peer does not
 * work there, said in words, with "Cambiar servidor" beside it. Nothing while the server is fine.
 */
export function ServerProblem({ peer, onChangeServer }: { peer: Peer; onChangeServer: () => void }) {
  if (peer.server.status === 'active') return null;
  const text =
    peer.server.status === 'offline'
      ? t.serverProblem.offline(peer.server.name)
      : t.serverProblem.inactive(peer.server.name);
  return (
    <div
      role="status"
      className="flex flex-col gap-3 rounded-lg border border-amber-400/40 bg-amber-400/10 px-3 py-2.5 text-sm text-amber-100 sm:flex-row sm:items-center"
    >
      <p className="flex flex-1 items-start gap-2">
        <AlertTriangle className="mt-0.5 size-4 shrink-0 text-amber-300" aria-hidden="true" />
        {text}
      </p>
      <button
        type="button"
        className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
        disabled={peer.processing !== null}
        onClick={onChangeServer}
        aria-label={t.serverProblem.changeLabel(peer.name)}
      >
        {t.serverProblem.change}
      </button>
    </div>
  );
}
