import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { useSearchParams } from 'react-router';
import { adminKeys, metricsQuery } from '../../api/admin';
import type { AdminMetrics } from '../../api/admin';
import { seriesQuery } from '../../api/adminFleet';
import { useAdminPush } from '../../api/RealtimeProvider';
import { FilterSelect } from '../../components/DataTable';
import { LoadingBlock } from '../../components/LoadingScreen';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { esFleet } from '../../i18n/es.manager.fleet';
import { useCan, useCurrentManager } from './ManagerLayout';
import { FleetHealth, useCoalescedInvalidate } from './NodeHealth';
import { ManagerPageHeader, QueryView } from './shared';

// The charting library is a separate chunk, fetched only when Resumen is shown.
const OverviewCharts = lazy(() => import('./OverviewCharts'));

const t = esManager.overview;
const ORDER: (keyof AdminMetrics)[] = [
  'customers',
  'peers',
  'active_peers',
  'servers',
  'servers_online',
  'invoices_paid_30d',
  'revenue_usd_30d',
  'concurrent_use_peers',
];
const RANGES = ['7', '30', '90', '365'] as const;
type Range = (typeof RANGES)[number];

/** The last `days` UTC days, ending today, as the API's from/to. */
export function rangeOf(days: number, now = new Date()): { from: string; to: string } {
  const to = now.toISOString().slice(0, 10);
  const from = new Date(Date.parse(`${to}T00:00:00Z`) - (days - 1) * 86_400_000).toISOString().slice(0, 10);
  return { from, to };
}

/** `/manager/dashboard`: headline numbers, and the charts over a chosen period (in the URL). */
export function ManagerOverview() {
  const manager = useCurrentManager();
  const canReadServers = useCan('servers.read');
  const [params, setParams] = useSearchParams();
  const range: Range = (RANGES as readonly string[]).includes(params.get('range') ?? '')
    ? (params.get('range') as Range)
    : '30';
  const { from, to } = rangeOf(Number(range));
  const metrics = useQuery(metricsQuery());
  const series = useQuery(seriesQuery(from, to));

  // A server's agent came or went: the cards and the per-server figures follow, once per burst of
  // pushes (each re-read counts peers per server; issue 33).
  const reread = useCoalescedInvalidate([adminKeys.metrics]);
  useAdminPush((m) => {
    if (m.type === 'admin_server') reread();
  });

  return (
    <section>
      <ManagerPageHeader title={t.consoleTitle} subtitle={t.subtitle(manager.username)} />
      {/* The fleet's health leads: a server whose agent is away is the first thing read (issue 34). */}
      {canReadServers && <FleetHealth />}
      <h2 className="mb-4 text-lg font-semibold text-white">{t.title}</h2>
      <QueryView query={metrics}>
        {(data) => (
          <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
            {ORDER.filter((key) => data[key] !== undefined).map((key) => (
              <div key={key} className={`${ui.card} p-5`}>
                <dt className="text-sm text-slate-400">{t.metrics[key]}</dt>
                <dd className="mt-2 text-3xl font-bold text-white">
                  {key === 'revenue_usd_30d'
                    ? t.usd(data[key] ?? 0)
                    : (data[key] ?? 0).toLocaleString('es-ES')}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </QueryView>
      <div className="mt-8 mb-4 flex justify-end">
        <FilterSelect
          label={esFleet.charts.range}
          value={range}
          options={RANGES.map((r) => ({ value: r, label: esFleet.charts.ranges[r] }))}
          onChange={(value) =>
            setParams(
              (prev) => {
                const next = new URLSearchParams(prev);
                if (value === '30') next.delete('range');
                else next.set('range', value);
                return next;
              },
              { replace: true },
            )
          }
        />
      </div>
      <QueryView query={series}>
        {(data) => (
          <Suspense fallback={<LoadingBlock label={esFleet.charts.loading} />}>
            <div className={series.isPlaceholderData ? 'opacity-60 transition-opacity' : undefined}>
              <OverviewCharts data={data} />
            </div>
          </Suspense>
        )}
      </QueryView>
    </section>
  );
}
