import { Wallet } from 'lucide-react';
import type { PublicSettings } from '@vpn/contracts';
import { es } from '../i18n/es';

/** The payment methods the operator enabled, by name (issue 32: the landing and /plans name them). */
export function paymentMethods(
  settings: Pick<PublicSettings, 'allow_payments_qvapay' | 'allow_payments_remesita'>,
): string[] {
  const names: string[] = [];
  if (settings.allow_payments_qvapay) names.push(es.plans.methods.qvapay);
  if (settings.allow_payments_remesita) names.push(es.plans.methods.remesita);
  return names;
}

/**
 * Payment-gateway banner of the public /plans (the spec: shown only when allow_payments_qvapay is
 * on), naming every method enabled.
 */
export function GatewayBanner({ methods }: { methods: string[] }) {
  return (
    <aside
      aria-label={es.plans.gatewayTitle}
      className="flex items-start gap-4 rounded-2xl border border-emerald-500/30 bg-emerald-500/10 p-5"
    >
      <span className="grid size-11 shrink-0 place-items-center rounded-xl bg-emerald-500/20 text-emerald-300">
        <Wallet className="size-6" aria-hidden="true" />
      </span>
      <div>
        <h2 className="font-semibold text-white">{es.plans.gatewayTitle}</h2>
        <p className="mt-1 text-sm text-slate-300">{es.plans.gatewayText(methods)}</p>
      </div>
    </aside>
  );
}
