import { useQuery } from '@tanstack/react-query';
import { PackageOpen } from 'lucide-react';
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
import { PageHeader } from './PageHeader';
import { PaymentFollower } from './payment/PaymentFollower';
import { GatewaysBanner, enabledGateways } from './purchase/GatewaysBanner';

/** The purchase dialog (and its gateway logic) is fetched when a customer first picks a plan. */
const PurchaseDialog = lazy(() =>
  import('./purchase/PurchaseDialog').then((m) => ({ default: m.PurchaseDialog })),
);

/**
 * `/dashboard/plans`: the plans on sale. 'Seleccionar Plan' opens the purchase dialog (existing or
 * new peer); once the invoice exists its payment page opens in a new window, and this page follows
 * the invoice (PaymentFollower): a link to the gateway in case the browser blocked the window, then
 * the new peer ready to install once it is paid.
 */
export function DashboardPlans() {
  const plans = useQuery(plansQuery());
  const payments = useQuery(paymentSettingsQuery());
  const { support_url } = useRuntimeConfig();
  const [buying, setBuying] = useState<Plan | null>(null);
  const [opened, setOpened] = useState<{ id: string; payment_url: string } | null>(null);
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
        <PaymentFollower
          key={opened.id}
          invoiceId={opened.id}
          paymentUrl={opened.payment_url}
          onDismiss={() => setOpened(null)}
        />
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
            onOpened={(invoice) => {
              setBuying(null);
              setOpened(invoice);
            }}
          />
        </Suspense>
      )}
    </>
  );
}
