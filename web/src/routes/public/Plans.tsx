import { useQuery } from '@tanstack/react-query';
import { PackageOpen, RefreshCw, UserPlus } from 'lucide-react';
import { Link } from 'react-router';
import { plansQuery } from '../../api/queries';
import { EmptyState } from '../../components/EmptyState';
import { ErrorPanel } from '../../components/ErrorPanel';
import { GatewayBanner, paymentMethods } from '../../components/GatewayBanner';
import { LoadingBlock } from '../../components/LoadingScreen';
import { PlanCard, PlanGrid } from '../../components/PlanCard';
import { PublicShell } from '../../components/PublicLayoutShell';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';
import { useDocumentTitle } from '../../lib/title';
import { usePublicSettings } from './PublicLayout';

/** `/plans`: the plans on sale, with the spec's four states (loading, error, empty, list). */
export function Plans() {
  useDocumentTitle(es.titles.plans);
  const settings = usePublicSettings();
  return (
    <PublicShell settings={settings}>
      <div className="mx-auto max-w-6xl px-4 py-14 sm:px-6">
        <header className="flex flex-col gap-6 md:flex-row md:items-end md:justify-between">
          <div>
            <h1 className="text-4xl font-bold tracking-tight text-white">{es.plans.title}</h1>
            <p className="mt-2 text-slate-400">{es.plans.subtitle}</p>
          </div>
          {settings.allow_registration && (
            <div className="flex flex-col items-start gap-2 md:items-end">
              <p className="text-sm text-slate-400">{es.plans.registerPrompt}</p>
              <Link to="/register" className={ui.buttonPrimary}>
                <UserPlus className="size-4" aria-hidden="true" />
                {es.plans.registerCta}
              </Link>
            </div>
          )}
        </header>

        {settings.allow_payments_qvapay && (
          <div className="mt-8">
            <GatewayBanner methods={paymentMethods(settings)} />
          </div>
        )}

        <div className="mt-10">
          <PlanList />
        </div>
      </div>
    </PublicShell>
  );
}

/**
 * The plans themselves in the spec's four states. Its own component because it is the one part of
 * a public page that is data: the control plane renders it with the current plans into the
 * pre-rendered /plans (`renderPlanList` in `prerender/render.tsx`).
 */
export function PlanList() {
  const plans = useQuery(plansQuery());
  return (
    <>
      {plans.isPending ? (
        <LoadingBlock label={es.plans.loading} />
      ) : plans.isError ? (
        <ErrorPanel message={es.plans.loadError} onRetry={() => void plans.refetch()} />
      ) : plans.data.length === 0 ? (
        <EmptyState icon={PackageOpen} title={es.plans.emptyTitle} text={es.plans.emptyText}>
          <button
            type="button"
            className={ui.buttonSecondary}
            onClick={() => void plans.refetch()}
            disabled={plans.isFetching}
          >
            <RefreshCw className={`size-4 ${plans.isFetching ? 'animate-spin' : ''}`} aria-hidden="true" />
            {es.common.update}
          </button>
        </EmptyState>
      ) : (
        <PlanGrid count={plans.data.length}>
          {plans.data.map((plan) => (
            <li key={plan.id}>
              <PlanCard
                plan={plan}
                action={
                  <Link
                    to="/register"
                    className={`${ui.buttonPrimary} w-full`}
                    aria-label={`${es.plans.acquire} ${plan.name}`}
                  >
                    {es.plans.acquire}
                  </Link>
                }
              />
            </li>
          ))}
        </PlanGrid>
      )}
    </>
  );
}
