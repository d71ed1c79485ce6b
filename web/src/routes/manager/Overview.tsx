import { useQuery } from '@tanstack/react-query';
import { metricsQuery } from '../../api/admin';
import type { AdminMetrics } from '../../api/admin';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { useCurrentManager } from './ManagerLayout';
import { ManagerPageHeader, QueryView } from './shared';

const t = esManager.overview;
const ORDER: (keyof AdminMetrics)[] = [
  'customers',
  'peers',
  'active_peers',
  'servers',
  'servers_online',
  'invoices_paid_30d',
  'revenue_usd_30d',
];

/** `/manager/dashboard`: headline numbers. */
export function ManagerOverview() {
  const manager = useCurrentManager();
  const metrics = useQuery(metricsQuery());
  return (
    <section>
      <ManagerPageHeader title={t.consoleTitle} subtitle={t.subtitle(manager.username)} />
      <h2 className="mb-4 text-lg font-semibold text-white">{t.title}</h2>
      <QueryView query={metrics}>
        {(data) => (
          <dl className="grid gap-4 sm:grid-cols-2 lg:grid-cols-4">
            {ORDER.map((key) => (
              <div key={key} className={`${ui.card} p-5`}>
                <dt className="text-sm text-slate-400">{t.metrics[key]}</dt>
                <dd className="mt-2 text-3xl font-bold text-white">
                  {key === 'revenue_usd_30d' ? t.usd(data[key]) : data[key].toLocaleString('es-ES')}
                </dd>
              </div>
            ))}
          </dl>
        )}
      </QueryView>
    </section>
  );
}
