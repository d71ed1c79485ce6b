/**
 * A server's detail panel: live status (agent online, revision lag, version, last seen), drain
 * progress, actions, and its peers (paged, searchable). Pushes keep it current (Servers.tsx).
 */
import { ProgressBar } from '../../components/ProgressBar';
import { useQuery } from '@tanstack/react-query';
import { ArrowRightLeft, ArrowUpCircle, KeyRound, Pencil, Trash2, X } from 'lucide-react';
import { useState } from 'react';
import { SERVER_PEERS_PAGE_SIZE, serverDetailQuery, serverPeersQuery } from '../../api/adminFleet';
import type { AdminServerDetail, DrainProgress, ServerPeer } from '../../api/adminFleet';
import { DataTable, SearchBox } from '../../components/DataTable';
import type { Column } from '../../components/DataTable';
import { ui } from '../../components/ui';
import { esFleet } from '../../i18n/es.manager.fleet';
import { useCan } from './ManagerLayout';
import { AgentState, HealthFigures } from './NodeHealth';
import { QueryView, StateBadge } from './shared';

const t = esFleet.detail;

export interface DetailActions {
  onEdit: (server: AdminServerDetail) => void;
  onDrain: (server: AdminServerDetail) => void;
  onDelete: (server: AdminServerDetail) => void;
  onRotate: (server: AdminServerDetail) => void;
  onUpgrade: (server: AdminServerDetail) => void;
}

export function ServerDetail({
  id,
  onClose,
  actions,
}: {
  id: number;
  onClose: () => void;
  actions: DetailActions;
}) {
  const detail = useQuery(serverDetailQuery(id));
  const canWrite = useCan('servers.write');
  return (
    <aside aria-label={t.status} className={`${ui.card} mt-6 p-5`}>
      <QueryView query={detail}>
        {(server) => (
          <>
            <div className="flex flex-wrap items-start justify-between gap-3">
              <div>
                <h2 className="text-xl font-semibold text-white">{server.name}</h2>
                <p className="font-mono text-sm text-slate-400">{server.endpoint}</p>
              </div>
              <div className="flex flex-wrap gap-2">
                {canWrite && (
                  <>
                    <Action icon={Pencil} label={t.edit} onClick={() => actions.onEdit(server)} />
                    <Action icon={ArrowRightLeft} label={t.drain} onClick={() => actions.onDrain(server)} />
                    <Action icon={KeyRound} label={t.rotate} onClick={() => actions.onRotate(server)} />
                    {server.agent_online && server.agent_latest_version && (
                      <Action
                        icon={ArrowUpCircle}
                        label={t.upgrade}
                        onClick={() => actions.onUpgrade(server)}
                      />
                    )}
                    <Action icon={Trash2} label={t.remove} onClick={() => actions.onDelete(server)} />
                  </>
                )}
                <button type="button" className={ui.buttonGhost} onClick={onClose} aria-label={t.close}>
                  <X className="size-4" aria-hidden="true" />
                </button>
              </div>
            </div>
            <Status server={server} />
            <div className="mt-4">
              <HealthFigures server={server} />
            </div>
            {server.agent_upgrade && <UpgradeState upgrade={server.agent_upgrade} />}
            {server.drain && <DrainBar drain={server.drain} />}
            <ServerPeers id={server.id} />
          </>
        )}
      </QueryView>
    </aside>
  );
}

function Action({ icon: Icon, label, onClick }: { icon: typeof X; label: string; onClick: () => void }) {
  return (
    <button type="button" className={`${ui.buttonSecondary} px-3 py-1.5 text-sm`} onClick={onClick}>
      <Icon className="size-4" aria-hidden="true" />
      {label}
    </button>
  );
}

function Status({ server }: { server: AdminServerDetail }) {
  const when = server.last_seen_at
    ? new Date(server.last_seen_at).toLocaleString('es-ES', { dateStyle: 'short', timeStyle: 'medium' })
    : t.never;
  const rows: [string, React.ReactNode][] = [
    [t.agent, <AgentState key="a" server={server} />],
    [t.lag, t.lagValue(server.revision_lag)],
    [
      t.version,
      <span key="v" className="inline-flex flex-wrap items-center gap-2">
        {t.versionValue(server.agent_version, server.agent_node_version)}
        {server.agent_outdated && <OutdatedBadge latest={server.agent_latest_version} />}
      </span>,
    ],
    [t.latest, server.agent_latest_version ?? t.notBuilt],
    [t.lastSeen, when],
    [t.onlinePeers, `${server.online_peers} / ${server.peers}`],
    [t.rooms, server.allow_partys ? t.roomsOn : t.roomsOff],
    [
      t.relay,
      t.relayValue(
        server.relay.active,
        server.allow_discovery,
        server.relay.relayed,
        server.relay.dropped,
        server.relay.error,
      ),
    ],
  ];
  return (
    <dl className="mt-4 grid gap-x-6 gap-y-3 sm:grid-cols-2 lg:grid-cols-3">
      {rows.map(([label, value]) => (
        <div key={label}>
          <dt className="text-xs tracking-wide text-slate-400 uppercase">{label}</dt>
          <dd className="mt-0.5 text-slate-100">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** "desactualizado": the agent is older than the file this panel serves. */
export function OutdatedBadge({ latest }: { latest: string | null }) {
  return (
    <span
      title={esFleet.servers.outdatedTitle(latest)}
      className="rounded-full bg-amber-500/15 px-2 py-0.5 text-xs font-semibold text-amber-200"
    >
      {esFleet.servers.outdated}
    </span>
  );
}

function UpgradeState({ upgrade }: { upgrade: NonNullable<AdminServerDetail['agent_upgrade']> }) {
  const failed = upgrade.status === 'failed';
  const text =
    upgrade.status === 'pending'
      ? t.upgradePending(upgrade.version)
      : upgrade.status === 'restarting'
        ? t.upgradeRestarting(upgrade.version)
        : t.upgradeFailed(upgrade.version, upgrade.error);
  return (
    <p
      role={failed ? 'alert' : 'status'}
      aria-label={t.upgradeTitle}
      className={`mt-4 rounded-lg border px-3 py-2 text-sm ${
        failed ? 'border-amber-500/40 bg-amber-500/10 text-amber-200' : 'border-slate-700 text-slate-200'
      }`}
    >
      {text}
    </p>
  );
}

export function DrainBar({ drain }: { drain: DrainProgress }) {
  return (
    <div className="mt-5">
      <div className="mb-1.5 flex justify-between text-sm">
        <span className="font-medium text-slate-200">
          {t.drainTitle}: {drain.done ? t.drainDone : t.drainRunning}
        </span>
        <span className="text-slate-400">{t.drainProgress(drain.moved, drain.total)}</span>
      </div>
      <ProgressBar label={t.drainTitle} value={drain.moved} max={drain.total} />
      {drain.error && (
        <p role="alert" className="mt-2 text-sm text-amber-200">
          {drain.error}
        </p>
      )}
    </div>
  );
}

function ServerPeers({ id }: { id: number }) {
  const [q, setQ] = useState('');
  const [page, setPage] = useState(1);
  const peers = useQuery(serverPeersQuery(id, q, page));
  const c = t.peerColumns;
  const columns: Column<ServerPeer>[] = [
    { key: 'name', header: c.name, cell: (p) => <span className="font-medium text-white">{p.name}</span> },
    { key: 'customer', header: c.customer, cell: (p) => p.customer },
    {
      key: 'address',
      header: c.address,
      cell: (p) => <span className="font-mono text-xs">{p.address}</span>,
    },
    {
      key: 'state',
      header: c.state,
      cell: (p) => <StateBadge ok={p.active}>{p.active ? t.peerActive : t.peerInactive}</StateBadge>,
    },
    {
      key: 'online',
      header: c.online,
      cell: (p) => (
        <StateBadge ok={p.online}>{p.online ? esFleet.servers.online : esFleet.servers.offline}</StateBadge>
      ),
    },
  ];
  return (
    <section className="mt-6">
      <div className="mb-3 flex flex-wrap items-center justify-between gap-3">
        <h3 className="text-lg font-semibold text-white">{t.peers}</h3>
        <SearchBox
          value={q}
          onSearch={(next) => {
            setQ(next);
            setPage(1);
          }}
          placeholder={t.peersPlaceholder}
          label={t.peersSearch}
        />
      </div>
      <QueryView query={peers}>
        {(data) => (
          <DataTable
            label={t.peers}
            columns={columns}
            rows={data.results}
            rowKey={(p) => p.id}
            empty={t.noPeers}
            stale={peers.isPlaceholderData}
            pagination={{ page, pageSize: SERVER_PEERS_PAGE_SIZE, count: data.count, onPage: setPage }}
          />
        )}
      </QueryView>
    </section>
  );
}
