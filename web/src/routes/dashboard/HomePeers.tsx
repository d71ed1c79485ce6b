import { useQuery } from '@tanstack/react-query';
import type { Peer } from '@vpn/contracts';
import { MonitorSmartphone } from 'lucide-react';
import { Suspense, lazy, useState } from 'react';
import toast from 'react-hot-toast';
import { Link, useNavigate } from 'react-router';
import { errorMessage } from '../../api/http';
import { configFileName, fetchPeerConfig, saveTextFile } from '../../api/peers';
import { peersQuery } from '../../api/queries';
import { OnlineDot } from '../../components/OnlineDot';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { esPeerStatus } from '../../i18n/es.peerStatus';
import { DataUsed, InstallButtons, PeerStateBadge, ServerProblem, expiryText } from './peers/PeerStatus';

/** The QR dialog (Radix's dialog, the config's fetch) is fetched when a customer first opens it. */
const PeerQrDialog = lazy(() => import('./peers/PeerQrDialog').then((m) => ({ default: m.PeerQrDialog })));

const t = esPeerStatus.home;

/**
 * Home's status (issue 32): one card per peer — state, "activo hasta …" with the days left, data used
 * of the allowance, QR and Descargar, Renovar, and its server's trouble with "Cambiar servidor" one
 * tap away — or, for a customer without peers, the way to a first plan.
 */
export function HomePeers({ onRenew }: { onRenew: (peerId: number) => void }) {
  const peers = useQuery(peersQuery());
  const navigate = useNavigate();
  const [qr, setQr] = useState<number | null>(null);

  // The page's own loading and error states cover its main call; until the list is there (or if
  // it fails) this block is simply not shown.
  if (!peers.data) return null;

  if (peers.data.length === 0)
    return (
      <section
        aria-labelledby="first-plan-title"
        className="rounded-xl border border-emerald-400/30 bg-emerald-500/10 p-5"
      >
        <h2 id="first-plan-title" className="flex items-center gap-2 text-lg font-semibold text-white">
          <MonitorSmartphone className="size-5 text-emerald-300" aria-hidden="true" />
          {t.firstTitle}
        </h2>
        <p className="mt-1 text-sm text-slate-200">{t.firstText}</p>
        <Link to="/dashboard/plans" className={`${ui.buttonPrimary} mt-4`}>
          {t.firstCta}
        </Link>
      </section>
    );

  async function download(peer: Peer) {
    try {
      saveTextFile(configFileName(peer.name), await fetchPeerConfig(peer.id));
    } catch (error) {
      toast.error(errorMessage(error, es.dashboard.peers.errors.download(peer.name)));
    }
  }

  return (
    <section aria-labelledby="home-peers-title" className="space-y-3">
      <div className="flex flex-wrap items-baseline justify-between gap-2">
        <h2 id="home-peers-title" className="text-xl font-semibold text-white">
          {t.title}
        </h2>
        <Link to="/dashboard/peers" className={`${ui.link} text-sm`}>
          {t.all}
        </Link>
      </div>
      <ul className="grid gap-4 md:grid-cols-2">
        {peers.data.map((peer) => (
          <li key={peer.id}>
            <article
              aria-labelledby={`home-peer-${peer.id}`}
              className={`${ui.card} flex h-full flex-col gap-3 p-5`}
            >
              <div className="flex items-start justify-between gap-3">
                <h3
                  id={`home-peer-${peer.id}`}
                  className="inline-flex items-center gap-2 text-lg font-semibold text-white"
                >
                  <OnlineDot online={peer.online} />
                  {peer.name}
                </h3>
                <PeerStateBadge peer={peer} />
              </div>
              <p className="text-sm text-slate-300">{expiryText(peer)}</p>
              <div className="text-sm">
                <DataUsed peer={peer} />
              </div>
              <ServerProblem
                peer={peer}
                onChangeServer={() => void navigate(`/dashboard/peers?change=${peer.id}`)}
              />
              <div className="mt-auto flex flex-wrap items-center gap-2 pt-1">
                <InstallButtons
                  peer={peer}
                  size="sm"
                  onQr={() => setQr(peer.id)}
                  onDownload={() => download(peer)}
                />
                {!peer.manual_payment && !peer.manager_disabled && (
                  <button
                    type="button"
                    className={`${ui.buttonGhost} text-sm`}
                    aria-label={t.renewLabel(peer.name)}
                    onClick={() => onRenew(peer.id)}
                  >
                    {t.renew}
                  </button>
                )}
              </div>
            </article>
          </li>
        ))}
      </ul>
      {qr !== null && (
        <Suspense fallback={null}>
          <PeerQrDialog peer={peers.data.find((p) => p.id === qr) ?? null} onClose={() => setQr(null)} />
        </Suspense>
      )}
    </section>
  );
}
