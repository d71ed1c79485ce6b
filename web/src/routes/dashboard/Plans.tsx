import { useQuery } from '@tanstack/react-query';
import { Info, PackageOpen } from 'lucide-react';
import { plansQuery, publicSettingsQuery } from '../../api/queries';
import { EmptyState } from '../../components/EmptyState';
import { ErrorPanel } from '../../components/ErrorPanel';
import { GatewayBanner } from '../../components/GatewayBanner';
import { LoadingBlock } from '../../components/LoadingScreen';
import { PlanCard, PlanGrid } from '../../components/PlanCard';
import { ui } from '../../components/ui';
import { useRuntimeConfig } from '../../config/runtime';
import { es } from '../../i18n/es';
import { PageHeader } from './PageHeader';

/**
 * `/dashboard/plans`: the real plans on sale. Buying (the purchase dialog and the payment gateway)
 * arrives with a later issue, so 'Seleccionar Plan' is shown disabled with a note saying so, rather
 * than a button that pretends to work.
 */
export function DashboardPlans() {
  const plans = useQuery(plansQuery());
  const settings = useQuery(publicSettingsQuery());
  const { support_url } = useRuntimeConfig();
  const t = es.plans;
  const noteId = 'purchase-soon-note';

  return (
    <>
      <PageHeader title={es.dashboard.plans.title} subtitle={es.dashboard.plans.subtitle} />
      {settings.data?.allow_payments_qvapay && (
        <div className="mb-6">
          <GatewayBanner />
        </div>
      )}
      {plans.isPending ? (
        <LoadingBlock label={t.loading} />
      ) : plans.isError ? (
        <ErrorPanel message={t.loadError} onRetry={() => void plans.refetch()} />
      ) : plans.data.length === 0 ? (
        <EmptyState icon={PackageOpen} title={t.noPlansDashboard}>
          {support_url && (
            <a href={support_url} target="_blank" rel="noopener noreferrer" className={ui.buttonPrimary}>
              {t.contactSupport}
            </a>
          )}
        </EmptyState>
      ) : (
        <>
          <p
            id={noteId}
            className="mb-6 flex items-start gap-2 rounded-xl border border-blue-400/20 bg-blue-500/10 px-4 py-3 text-sm text-blue-100"
          >
            <Info className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
            {t.purchaseSoon}
          </p>
          <PlanGrid count={plans.data.length}>
            {plans.data.map((plan) => (
              <li key={plan.id}>
                <PlanCard
                  plan={plan}
                  action={
                    <button
                      type="button"
                      className={`${ui.buttonPrimary} w-full`}
                      disabled
                      aria-describedby={noteId}
                    >
                      {t.select}
                    </button>
                  }
                />
              </li>
            ))}
          </PlanGrid>
        </>
      )}
    </>
  );
}
