import { MonitorSmartphone } from 'lucide-react';
import { Link } from 'react-router';
import type { Peer } from '../../../api/peers';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { formatDate } from '../../../lib/format';

const t = es.dashboard.peers.concurrent;

/** The row's mark for a peer flagged in use on more than one device (issue 19). */
export function ConcurrentUseBadge({ peer }: { peer: Peer }) {
  if (!peer.concurrent_use) return null;
  return (
    <span className="inline-flex w-fit items-center gap-1 rounded-full bg-amber-400/15 px-2 py-0.5 text-xs font-semibold text-amber-200">
      <MonitorSmartphone className="size-3.5" aria-hidden="true" />
      {t.badge}
    </span>
  );
}

/**
 * Above the list, one notice per peer whose keys seem to run on two devices at once: why both
 * connections are unstable, and the two ways out (a peer per device, or new keys for this one).
 * It disappears by itself (the list is live) after 24 h without alternation or a regenerate.
 */
export function ConcurrentUseNotices({
  peers,
  canRegenerate,
  onRegenerate,
}: {
  peers: Peer[];
  canRegenerate: (peer: Peer) => boolean;
  onRegenerate: (peer: Peer) => void;
}) {
  const flagged = peers.filter((p) => p.concurrent_use !== null);
  if (flagged.length === 0) return null;
  return (
    <div className="mb-4 flex flex-col gap-3">
      {flagged.map((peer) => (
        <section
          key={peer.id}
          role="alert"
          aria-labelledby={`concurrent-${peer.id}`}
          className="rounded-xl border border-amber-400/40 bg-amber-400/10 p-4 text-sm text-amber-50"
        >
          <h2 id={`concurrent-${peer.id}`} className="flex items-center gap-2 font-semibold text-amber-100">
            <MonitorSmartphone className="size-4" aria-hidden="true" />
            {t.title(peer.name)}
          </h2>
          <p className="mt-2">{t.text}</p>
          <p className="mt-1 text-amber-200/80">
            {t.since(formatDate(peer.concurrent_use!.detected_at))} {t.regenerateHint}
          </p>
          <div className="mt-3 flex flex-wrap gap-2">
            <Link to="/dashboard/plans" className={`${ui.buttonPrimary} px-3 py-1.5 text-sm`}>
              {t.buy}
            </Link>
            <button
              type="button"
              className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`}
              disabled={!canRegenerate(peer)}
              onClick={() => onRegenerate(peer)}
            >
              {t.regenerate}
            </button>
          </div>
        </section>
      ))}
    </div>
  );
}
