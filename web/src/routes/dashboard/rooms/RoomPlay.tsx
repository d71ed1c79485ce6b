/**
 * The room page's lower half (issue 25): the room-only configuration of the customer's own peers in
 * the room, and how games meet in a room.
 */
import { Download, Gamepad2, QrCode, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import type { RoomPeer } from '../../../api/rooms';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { esRoomPlay as t } from '../../../i18n/es.roomPlay';
import { RoomConfigDialog, downloadRoomConfig } from '../peers/RoomConfigDialog';

/**
 * The room-only tunnel of each of my peers in this room, as a download and a QR code (the QR dialog
 * fetches nothing until it opens, and loads the encoder only then).
 */
export function RoomOnlyConfig({ peers }: { peers: RoomPeer[] }) {
  const r = t.roomConfig;
  const [qrPeer, setQrPeer] = useState<RoomPeer | null>(null);
  const [downloading, setDownloading] = useState<number | null>(null);
  if (peers.length === 0) return null;
  async function download(peer: RoomPeer) {
    setDownloading(peer.id);
    try {
      await downloadRoomConfig(peer);
    } finally {
      setDownloading(null);
    }
  }
  const small = 'px-3 py-1.5 text-sm';
  return (
    <section aria-labelledby="room-config-title" className={`${ui.card} space-y-4 p-6`}>
      <div>
        <h3 id="room-config-title" className="text-xl font-semibold text-white">
          {r.title}
        </h3>
        <p className="mt-1 max-w-2xl text-sm text-slate-400">{es.dashboard.peers.roomConfig.explanation}</p>
      </div>
      <ul className="divide-y divide-slate-800">
        {peers.map((peer) => (
          <li key={peer.id} className="flex flex-wrap items-center justify-between gap-3 py-3">
            <span className="font-medium text-slate-100">{peer.name}</span>
            <span className="flex flex-wrap gap-2">
              <button
                type="button"
                className={`${ui.buttonSecondary} ${small}`}
                disabled={downloading === peer.id}
                onClick={() => void download(peer)}
                aria-label={es.dashboard.peers.roomConfig.downloadLabel(peer.name)}
              >
                {downloading === peer.id ? (
                  <Spinner className="size-4" />
                ) : (
                  <Download className="size-4" aria-hidden="true" />
                )}
                {r.download}
              </button>
              <button
                type="button"
                className={`${ui.buttonSecondary} ${small}`}
                onClick={() => setQrPeer(peer)}
                aria-label={r.qrButtonLabel(peer.name)}
              >
                <QrCode className="size-4" aria-hidden="true" />
                {r.qr}
              </button>
            </span>
          </li>
        ))}
      </ul>
      <RoomConfigDialog peer={qrPeer} showQr onClose={() => setQrPeer(null)} />
    </section>
  );
}

/**
 * How games meet in a room: discovery, the games it was checked with and how, Windows' firewall.
 * Where the operator turned discovery off (`room.discovery`), it says so and tells how to join by IP
 * instead; the games list, which promises discovery, is left out.
 */
export function PlayGuide({ discovery }: { discovery: boolean }) {
  const p = t.play;
  return (
    <section aria-labelledby="room-play-title" className={`${ui.card} space-y-4 p-6`}>
      <h3 id="room-play-title" className="inline-flex items-center gap-2 text-xl font-semibold text-white">
        <Gamepad2 className="size-5 text-emerald-300" aria-hidden="true" />
        {p.title}
      </h3>
      {!discovery && <p className="max-w-2xl text-sm text-amber-200">{p.discoveryOff}</p>}
      {discovery && (
        <>
          <p className="max-w-2xl text-sm text-slate-300">{p.discovery}</p>
          <div>
            <h4 className="font-semibold text-slate-100">{p.triedTitle}</h4>
            <p className="mt-1 text-sm text-slate-400">{p.triedIntro}</p>
            <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-300">
              {p.games.map((game) => (
                <li key={game.name}>
                  <span className="font-medium text-slate-100">{game.name}</span>: {game.how}
                </li>
              ))}
            </ul>
            <p className="mt-3 max-w-2xl text-sm text-slate-400">{p.byIp}</p>
          </div>
        </>
      )}
      <div className="rounded-xl border border-slate-800 bg-navy-950/50 p-4">
        <h4 className="inline-flex items-center gap-2 font-semibold text-slate-100">
          <ShieldCheck className="size-4 text-sky-300" aria-hidden="true" />
          {p.windowsTitle}
        </h4>
        <p className="mt-1 text-sm text-slate-300">{p.windows}</p>
      </div>
    </section>
  );
}
