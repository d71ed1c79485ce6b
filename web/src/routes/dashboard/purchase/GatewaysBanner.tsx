import { Wallet } from 'lucide-react';
import { esPayments } from '../../../i18n/es.payments';

const t = esPayments.gateways;

/** What the banner reads of `GET /api/client/payments`. */
export interface GatewayOptions {
  allow_payments_qvapay: boolean;
  allow_payments_remesita: boolean;
}

/** The gateways the banner names; none → no banner (the sandbox is for demos and is not named). */
export function enabledGateways(settings: GatewayOptions | undefined): string[] {
  if (!settings) return [];
  const names: string[] = [];
  if (settings.allow_payments_qvapay) names.push(t.qvapay);
  if (settings.allow_payments_remesita) names.push(t.remesita);
  return names;
}

/** Payment-gateway banner of the dashboard's Plans page (shown when a gateway option is enabled). */
export function GatewaysBanner({ names }: { names: string[] }) {
  return (
    <aside
      aria-label={t.title}
      className="flex items-start gap-4 rounded-2xl border border-emerald-500/30 bg-emerald-500/10 p-5"
    >
      <span className="grid size-11 shrink-0 place-items-center rounded-xl bg-emerald-500/20 text-emerald-300">
        <Wallet className="size-6" aria-hidden="true" />
      </span>
      <div>
        <h2 className="font-semibold text-white">{t.title}</h2>
        <p className="mt-1 text-sm text-slate-300">{t.text(names)}</p>
      </div>
    </aside>
  );
}
