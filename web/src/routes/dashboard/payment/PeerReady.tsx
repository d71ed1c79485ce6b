import { useQuery } from '@tanstack/react-query';
import { ExternalLink, QrCode, Smartphone } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import toast from 'react-hot-toast';
import { Link } from 'react-router';
import { errorMessage } from '../../../api/http';
import { configFileName, fetchPeerConfig, saveTextFile } from '../../../api/peers';
import { clientVersionQuery, peersQuery } from '../../../api/queries';
import { LoadingBlock } from '../../../components/LoadingScreen';
import { ui } from '../../../components/ui';
import { useRuntimeConfig } from '../../../config/runtime';
import { es } from '../../../i18n/es';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { ConfigQr } from '../peers/PeerQrDialog';
import { formatDataSize } from '../../../lib/format';
import { InstallButtons, expiryText } from '../peers/PeerStatus';

/**
 * The app to install on this device: on Android the APK the panel serves (with its size) or the
 * operator's Android link (Ajustes → Enlaces para clientes; never Google Play, which Cuba cannot
 * reach), else the client release the operator publishes.
 */
function useAppLink(): { href: string; label: string } | null {
  const { android } = useRuntimeConfig();
  const version = useQuery(clientVersionQuery());
  if (/Android/i.test(navigator.userAgent)) {
    if (android?.apk) return { href: android.apk.url, label: t.apk(formatDataSize(android.apk.size)) };
    if (android?.app_url) return { href: android.app_url, label: t.app };
  }
  const url = version.data?.url;
  if (!url) return null;
  return { href: url, label: version.data?.version ? t.appVersion(version.data.version) : t.app };
}

const t = esPeerStatus.ready;

/**
 * A peer a payment just delivered, ready to install (issue 32): its name and "activo hasta …", and
 * one main action, "Instalar … en este dispositivo", which puts its QR on screen with Descargar, the
 * WireGuard app to install (the client release's link the operator publishes) and the three steps.
 * Shown by the payment result and by the tab that opened the gateway, so both read the same.
 */
export function PeerReady({ peerId }: { peerId: number }) {
  const peers = useQuery(peersQuery());
  const app = useAppLink();
  const peer = peers.data?.find((p) => p.id === peerId);
  const [open, setOpen] = useState(false);
  // The list may predate the delivery (cached for 30 s): read it again once when the peer is missing.
  const reread = useRef(false);
  const missing = peers.data !== undefined && !peer;
  useEffect(() => {
    if (missing && !reread.current) {
      reread.current = true;
      void peers.refetch();
    }
  }, [missing, peers]);

  if (!peer) return <LoadingBlock label={t.waiting} />;

  async function download() {
    if (!peer) return;
    try {
      saveTextFile(configFileName(peer.name), await fetchPeerConfig(peer.id));
    } catch (error) {
      toast.error(errorMessage(error, es.dashboard.peers.errors.download(peer.name)));
    }
  }

  return (
    <section
      aria-labelledby={`ready-${peer.id}`}
      className="mt-6 rounded-xl border border-emerald-400/30 bg-emerald-500/10 p-4 text-left"
    >
      <h2 id={`ready-${peer.id}`} className="flex items-center gap-2 text-lg font-semibold text-white">
        <Smartphone className="size-5 text-emerald-300" aria-hidden="true" />
        {t.title(peer.name)}
      </h2>
      <p className="mt-1 text-sm text-slate-200">{expiryText(peer)}</p>
      {!open ? (
        <button type="button" className={`${ui.buttonPrimary} mt-4 w-full`} onClick={() => setOpen(true)}>
          <QrCode className="size-5" aria-hidden="true" />
          {t.open(peer.name)}
        </button>
      ) : (
        <div className="mt-4 space-y-4">
          <p className="text-sm text-slate-200">{t.steps}</p>
          {app && (
            <a
              href={app.href}
              target="_blank"
              rel="noopener noreferrer"
              className={`${ui.buttonSecondary} w-full`}
            >
              {app.label}
              <ExternalLink className="size-4" aria-hidden="true" />
            </a>
          )}
          <ConfigQr
            peer={peer}
            scope="full"
            label={es.dashboard.peers.qr.imageLabel(peer.name)}
            errorText={es.dashboard.peers.qr.error(peer.name)}
          />
          <div className="flex flex-wrap items-center justify-between gap-3">
            {/* QR is already on screen: only Descargar is offered beside the link to Peers. */}
            <InstallButtons peer={peer} onQr={() => undefined} onDownload={download} only="download" />
            <Link to="/dashboard/peers" className={ui.link}>
              {t.peers}
            </Link>
          </div>
        </div>
      )}
    </section>
  );
}
