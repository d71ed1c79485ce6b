/**
 * Node health in the console (issue 34): each server's agent state (red "Sin conexión desde hace
 * 12 min" when away), handshakes in the last 3 minutes, throughput in and out, peers, load, CPU and
 * memory, as the agent reports them with its stats. `admin_server_health` pushes update the cached
 * server lists and details in place (no re-read every 10 s per server); `admin_server` (an agent came
 * or went) re-reads them, once per burst (useCoalescedInvalidate). Used by Servidores and Resumen.
 */
import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { AlertTriangle } from 'lucide-react';
import { useCallback, useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import type { NodeHealth, Paged } from '@vpn/contracts';
import { allServersQuery, fleetKeys } from '../../api/adminFleet';
import type { AdminServer } from '../../api/adminFleet';
import { useAdminPush } from '../../api/RealtimeProvider';
import { ui } from '../../components/ui';
import { esFleet } from '../../i18n/es.manager.fleet';
import { esHealth } from '../../i18n/es.manager.health';
import { QueryView } from './shared';

const t = esHealth;

/** The clock, ticking every `everyMs` (how long ago something happened stays true on screen). */
function useNow(everyMs = 15_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** Puts a pushed health report into every cached copy of that server (lists, detail, picker). */
function applyHealth(queryClient: QueryClient, serverId: number, health: NodeHealth) {
  const patch = <T extends AdminServer>(s: T): T => (s.id === serverId ? { ...s, health } : s);
  queryClient.setQueriesData<Paged<AdminServer> | AdminServer[] | AdminServer>(
    { queryKey: fleetKeys.servers },
    (old) => {
      if (!old) return old;
      if (Array.isArray(old)) return old.map(patch);
      if ('results' in old) return { ...old, results: old.results.map(patch) };
      if ('id' in old && 'health' in old) return patch(old);
      return old;
    },
  );
}

/** A burst of pushes within this long is one re-read (issue 33: 100 agents reconnecting after a
 * panel restart pushed 100 `admin_server`, and each open console recounted peers per server 100
 * times); the red state still shows well within the 10 s issue 34 asks. */
export const PUSH_COALESCE_MS = 1500;

/**
 * A function that re-reads `keys` after a push, at most once per `ms`: the first call arms one
 * re-read `ms` later, and calls until then join it. A fetch already under way is not cancelled.
 */
export function useCoalescedInvalidate(
  keys: readonly (readonly unknown[])[],
  ms = PUSH_COALESCE_MS,
): () => void {
  const queryClient = useQueryClient();
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const latest = useRef(keys);
  latest.current = keys;
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  return useCallback(() => {
    if (timer.current) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      for (const queryKey of latest.current)
        void queryClient.invalidateQueries({ queryKey }, { cancelRefetch: false });
    }, ms);
  }, [queryClient, ms]);
}

/**
 * Keeps the fleet's cached servers live while mounted: health in place, and a re-read when an agent
 * connects or leaves (the red state must show within seconds without a reload), one per burst.
 */
export function useFleetLive(): void {
  const queryClient = useQueryClient();
  const reread = useCoalescedInvalidate([fleetKeys.servers]);
  useAdminPush((m) => {
    if (m.type === 'admin_server_health') applyHealth(queryClient, m.server_id, m.health);
    else if (m.type === 'admin_server') reread();
  });
}

/**
 * The agent's state as a badge: green "En línea", or red "Sin conexión desde hace 12 min". Red is
 * the one signal: a server whose agent is away is never shown green anywhere beside it.
 */
export function AgentState({ server }: { server: Pick<AdminServer, 'agent_online' | 'offline_since'> }) {
  const now = useNow();
  if (server.agent_online)
    return (
      <span className="inline-flex items-center gap-1.5 rounded-full bg-emerald-500/15 px-2.5 py-0.5 text-xs font-semibold text-emerald-300">
        <span className="size-1.5 rounded-full bg-emerald-400" aria-hidden="true" />
        {t.online}
      </span>
    );
  const text = server.offline_since
    ? t.offlineFor(Math.max(0, now - Date.parse(server.offline_since)))
    : t.neverConnected;
  return (
    <span
      data-state="offline"
      className="inline-flex items-center gap-1.5 rounded-full bg-red-500/15 px-2.5 py-0.5 text-xs font-semibold text-red-200 ring-1 ring-red-500/40"
    >
      <AlertTriangle className="size-3.5 text-red-300" aria-hidden="true" />
      {text}
    </span>
  );
}

/** The switch "Activo"/"Desactivado", never green while the agent is away. */
export function EnabledState({ server }: { server: Pick<AdminServer, 'active' | 'agent_online'> }) {
  const tone = !server.active
    ? 'bg-slate-500/20 text-slate-300'
    : server.agent_online
      ? 'bg-emerald-500/15 text-emerald-300'
      : 'bg-red-500/15 text-red-200';
  return (
    <span className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ${tone}`}>
      {!server.active
        ? esFleet.servers.disabled
        : server.agent_online
          ? esFleet.servers.enabled
          : t.enabledOffline}
    </span>
  );
}

/** The health figures of one server, as a definition list (label, value). */
export function HealthFigures({ server, compact = false }: { server: AdminServer; compact?: boolean }) {
  const h = server.health;
  if (!h) return <p className="text-xs text-slate-400">{t.noReport}</p>;
  const f = t.figures;
  const rows: [string, string][] = [
    [f.handshakes, `${t.count(h.handshakes_3m)} / ${t.count(h.peers)}`],
    [f.in, t.rate(h.rx_rate)],
    [f.out, t.rate(h.tx_rate)],
    [f.load, t.load(h.load)],
    [f.cpu, t.cpu(h.cpu)],
    [f.memory, t.memory(h.memory)],
  ];
  return (
    <dl
      className={
        compact
          ? 'grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-xs'
          : 'grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-3'
      }
    >
      {rows.map(([label, value]) => (
        <div key={label} className={compact ? 'contents' : ''}>
          <dt className="text-slate-400">{label}</dt>
          <dd className="font-medium text-white tabular-nums">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * Resumen's first block: the servers whose agent is away, in red and first, then every node with
 * its health. Only for roles that read servers.
 */
export function FleetHealth() {
  useFleetLive();
  const servers = useQuery(allServersQuery());
  return (
    <section aria-labelledby="fleet-health" className="mb-8">
      <h2 id="fleet-health" className="mb-1 text-lg font-semibold text-white">
        {t.title}
      </h2>
      <p className="mb-4 text-sm text-slate-400">{t.subtitle}</p>
      <QueryView query={servers}>
        {(list) => {
          if (list.length === 0) return <p className="text-sm text-slate-400">{t.noServers}</p>;
          const offline = list.filter((s) => !s.agent_online);
          const ordered = [...offline, ...list.filter((s) => s.agent_online)];
          return (
            <>
              {offline.length > 0 ? (
                <div
                  role="alert"
                  className="mb-4 flex items-start gap-3 rounded-2xl border border-red-500/40 bg-red-500/10 p-4 text-red-100"
                >
                  <AlertTriangle className="mt-0.5 size-5 shrink-0 text-red-300" aria-hidden="true" />
                  <div>
                    <p className="font-semibold">{t.offlineAlert(offline.length)}</p>
                    <p className="text-sm">{offline.map((s) => s.name).join(', ')}</p>
                  </div>
                </div>
              ) : (
                <p className="mb-4 text-sm text-emerald-300">{t.allOnline(list.length)}</p>
              )}
              <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3 2xl:grid-cols-4">
                {ordered.map((s) => (
                  <li
                    key={s.id}
                    data-server={s.name}
                    className={`${ui.card} p-4 ${s.agent_online ? '' : 'border-red-500/50 bg-red-950/30'}`}
                  >
                    <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
                      <Link
                        to={`/manager/dashboard/servers?server=${s.id}`}
                        className="font-semibold text-white hover:underline"
                      >
                        {s.name}
                      </Link>
                      <AgentState server={s} />
                    </div>
                    <HealthFigures server={s} />
                  </li>
                ))}
              </ul>
            </>
          );
        }}
      </QueryView>
    </section>
  );
}
