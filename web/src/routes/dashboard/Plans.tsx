import { useQuery } from '@tanstack/react-query';
import { ExternalLink, PackageOpen, Wallet } from 'lucide-react';
import { Suspense, lazy, useState } from 'react';
import { paymentSettingsQuery } from '../../api/invoices';
import { plansQuery } from '../../api/queries';
import type { Plan } from '../../api/types';
import { EmptyState } from '../../components/EmptyState';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { PlanCard, PlanGrid } from '../../components/PlanCard';
import { ui } from '../../components/ui';
import { useRuntimeConfig } from '../../config/runtime';
import { es } from '../../i18n/es';
import { esPayments } from '../../i18n/es.payments';
import { PageHeader } from './PageHeader';
import { GatewaysBanner, enabledGateways } from './purchase/GatewaysBanner';

/** The purchase dialog (and its gateway logic) is fetched when a customer first picks a plan. */
const PurchaseDialog = lazy(() =>
  import('./purchase/PurchaseDialog').then((m) => ({ default: m.PurchaseDialog })),
);

/**
 * `/dashboard/plans`: the plans on sale. 'Seleccionar Plan' opens the purchase dialog (existing or
 * new peer); once the invoice exists its payment page opens in a new window, and a note here keeps a
 * link to it in case the browser blocked the window.
 */
export function DashboardPlans() {
  const plans = useQuery(plansQuery());
  const payments = useQuery(paymentSettingsQuery());
  const { support_url } = useRuntimeConfig();
  const [buying, setBuying] = useState<Plan | null>(null);
  const [opened, setOpened] = useState<string | null>(null);
  const t = es.plans;
  const gateways = enabledGateways(payments.data);

  return (
    <>
      <PageHeader title={es.dashboard.plans.title} subtitle={es.dashboard.plans.subtitle} />
      {gateways.length > 0 && (
        <div className="mb-6">
          <GatewaysBanner names={gateways} />
        </div>
      )}
      {opened && (
        <div
          role="status"
          className="mb-6 flex flex-col gap-3 rounded-xl border border-blue-400/20 bg-blue-500/10 px-4 py-3 text-sm text-blue-100 sm:flex-row sm:items-center"
        >
          <Wallet className="size-5 shrink-0" aria-hidden="true" />
          <p className="flex-1">
            <strong className="font-semibold text-white">{esPayments.purchase.openedTitle}. </strong>
            {esPayments.purchase.opened}
          </p>
          <a href={opened} target="_blank" rel="noopener noreferrer" className={ui.buttonSecondary}>
            {esPayments.purchase.openAgain}
            <ExternalLink className="size-4" aria-hidden="true" />
          </a>
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
        <PlanGrid count={plans.data.length}>
          {plans.data.map((plan) => (
            <li key={plan.id}>
              <PlanCard
                plan={plan}
                action={
                  <button
                    type="button"
                    className={`${ui.buttonPrimary} w-full`}
                    onClick={() => setBuying(plan)}
                  >
                    {t.select}
                  </button>
                }
              />
            </li>
          ))}
        </PlanGrid>
      )}
      {buying && (
        <Suspense fallback={null}>
          <PurchaseDialog
            key={buying.id}
            plan={buying}
            onClose={() => setBuying(null)}
            onOpened={(url) => {
              setBuying(null);
              setOpened(url);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
