import { useQuery } from '@tanstack/react-query';
import { ArrowLeft, MapPin, ServerOff } from 'lucide-react';
import { errorMessage } from '../../../api/http';
import type { AvailableServer, Peer } from '../../../api/peers';
import { availableServersQuery } from '../../../api/queries';
import { EmptyState } from '../../../components/EmptyState';
import { ErrorPanel } from '../../../components/ErrorPanel';
import { LoadingBlock } from '../../../components/LoadingScreen';
import { ui } from '../../../components/ui';
import { es } from '../../../i18n/es';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { ServerStatusBadge, peerActionable } from './PeerStatus';

const t = es.dashboard.peers;

interface ChangeServerViewProps {
  peer: Peer;
  showRooms: boolean;
  onBack: () => void;
  onSelect: (server: AvailableServer) => void;
}

/**
 * The change-server view: the servers the peer may move to (address, state, location, rooms yes/no
 * where rooms are allowed), each with 'Seleccionar', and 'Volver a Peers'. Servers shown Inactivo
 * or Sin conexión stay selectable: the control plane queues the move and says so. A peer in a room
 * cannot go to a server without Salas (the control plane refuses it): such a server says so before
 * the tap, and its 'Seleccionar' is off.
 */
export function ChangeServerView({ peer, showRooms, onBack, onSelect }: ChangeServerViewProps) {
  const servers = useQuery(availableServersQuery(peer.id));
  const c = t.changeServer;

  let body;
  if (servers.isPending) body = <LoadingBlock label={es.common.loading} />;
  else if (servers.isError)
    body = (
      <ErrorPanel message={errorMessage(servers.error, c.loadError)} onRetry={() => void servers.refetch()} />
    );
  else if (servers.data.length === 0) body = <EmptyState icon={ServerOff} title={c.empty} />;
  else
    body = (
      <ul aria-label={c.listLabel} className="grid gap-4 md:grid-cols-2">
        {servers.data.map((server) => {
          const roomless = peer.party !== null && !server.allow_partys;
          return (
            <li key={server.id}>
              <article
                aria-labelledby={`server-${server.id}-name`}
                className={`${ui.card} flex h-full flex-col gap-3 p-5`}
              >
                <div className="flex items-start justify-between gap-3">
                  <h3 id={`server-${server.id}-name`} className="font-semibold text-white">
                    {server.name}
                  </h3>
                  <ServerStatusBadge status={server.status} />
                </div>
                <dl className="space-y-1.5 text-sm">
                  <div className="flex justify-between gap-3">
                    <dt className="text-slate-400">{c.address}</dt>
                    <dd className="font-mono text-xs text-slate-200">{server.address}</dd>
                  </div>
                  <div className="flex justify-between gap-3">
                    <dt className="text-slate-400">{t.columns.location}</dt>
                    <dd className="inline-flex items-center gap-1 text-slate-200">
                      <MapPin className="size-3.5" aria-hidden="true" />
                      {server.ubication}
                    </dd>
                  </div>
                  {showRooms && (
                    <div className="flex justify-between gap-3">
                      <dt className="text-slate-400">{t.columns.rooms}</dt>
                      <dd className="text-slate-200">{server.allow_partys ? t.yes : t.no}</dd>
                    </div>
                  )}
                </dl>
                {roomless && (
                  <p id={`server-${server.id}-rooms`} className="text-sm text-amber-200">
                    {esPeerStatus.noRoomsWarning(peer.party!.name)}
                  </p>
                )}
                <button
                  type="button"
                  className={`${ui.buttonPrimary} mt-auto py-2 text-sm`}
                  aria-label={c.selectLabel(server.name)}
                  aria-describedby={roomless ? `server-${server.id}-rooms` : undefined}
                  disabled={!peerActionable(peer) || roomless}
                  onClick={() => onSelect(server)}
                >
                  {c.select}
                </button>
              </article>
            </li>
          );
        })}
      </ul>
    );

  return (
    <section aria-labelledby="change-server-title" className="space-y-6">
      <div className="flex flex-col gap-4 sm:flex-row sm:items-center sm:justify-between">
        <div>
          <h2 id="change-server-title" className="text-xl font-semibold text-white">
            {c.title(peer.name)}
          </h2>
          <p className="mt-1 text-sm text-slate-400">
            {c.current}: <span className="text-slate-200">{peer.server.name}</span> ·{' '}
            <span className="font-mono text-xs">{peer.server.address}</span> · {peer.server.ubication}
          </p>
        </div>
        <button type="button" className={ui.buttonSecondary} onClick={onBack}>
          <ArrowLeft className="size-4" aria-hidden="true" />
          {c.back}
        </button>
      </div>
      {body}
    </section>
  );
}
