import { Wallet } from 'lucide-react';
import { es } from '../i18n/es';

/** Payment-gateway banner (shown only when allow_payments_qvapay is on). */
export function GatewayBanner() {
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
        <p className="mt-1 text-sm text-slate-300">{es.plans.gatewayText}</p>
      </div>
    </aside>
  );
}
