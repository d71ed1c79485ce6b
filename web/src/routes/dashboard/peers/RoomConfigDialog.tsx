import { Download, QrCode as QrIcon } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import { configFileName, fetchPeerConfig, saveTextFile } from '../../../api/peers';
import { Modal } from '../../../components/Modal';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { ConfigQr } from './PeerQrDialog';

const t = es.dashboard.peers.roomConfig;

/** What the dialog needs of a peer: the Peers page passes a `Peer`, the room page a `RoomPeer`. */
export interface RoomConfigPeer {
  id: number;
  name: string;
}

/**
 * Downloads a peer's room-only `.conf` (`?scope=room`) as `{peer}-sala.conf`; a refusal (a peer in
 * no room, an inactive one) is shown as the server's message.
 */
export async function downloadRoomConfig(peer: RoomConfigPeer): Promise<void> {
  try {
    const text = await fetchPeerConfig(peer.id, 'conf', 'room');
    saveTextFile(configFileName(peer.name, 'conf', 'room'), text);
  } catch (error) {
    toast.error(errorMessage(error, t.error(peer.name)));
  }
}

/**
 * "Configuración solo para la Sala": the room-only tunnel of a peer in a room, as a download and a
 * QR code, with the one sentence that tells it from the normal configuration. Nothing is fetched
 * until the customer asks: the file on "Descargar", the file and the QR encoder on "Código QR"
 * (`showQr` opens with the code already asked for).
 */
export function RoomConfigDialog({
  peer,
  showQr = false,
  onClose,
}: {
  peer: RoomConfigPeer | null;
  showQr?: boolean;
  onClose: () => void;
}) {
  return (
    <Modal
      open={peer !== null}
      onOpenChange={(open) => !open && onClose()}
      title={peer ? t.title(peer.name) : ''}
      description={t.explanation}
      size="max-w-md"
    >
      {peer && <RoomConfigBody key={peer.id} peer={peer} showQr={showQr} />}
    </Modal>
  );
}

function RoomConfigBody({ peer, showQr }: { peer: RoomConfigPeer; showQr: boolean }) {
  const [qr, setQr] = useState(showQr);
  const [downloading, setDownloading] = useState(false);
  async function download() {
    setDownloading(true);
    try {
      await downloadRoomConfig(peer);
    } finally {
      setDownloading(false);
    }
  }
  // The code first: on a phone (390 × 844) below the hint and the buttons it fell under the
  // dialog's fold, cut off until scrolled (issue 32, point 10).
  return (
    <div className="space-y-4">
      {qr && (
        <ConfigQr peer={peer} scope="room" label={t.qrLabel(peer.name)} errorText={t.qrError(peer.name)} />
      )}
      <p className="text-sm text-slate-300">{t.importHint}</p>
      <div className="flex flex-wrap gap-2">
        <button
          type="button"
          className={ui.buttonPrimary}
          disabled={downloading}
          onClick={() => void download()}
          aria-label={t.downloadLabel(peer.name)}
        >
          {downloading ? <Spinner className="size-4" /> : <Download className="size-4" aria-hidden="true" />}
          {t.download}
        </button>
        {!qr && (
          <button type="button" className={ui.buttonSecondary} onClick={() => setQr(true)}>
            <QrIcon className="size-4" aria-hidden="true" />
            {t.showQr}
          </button>
        )}
      </div>
    </div>
  );
}
