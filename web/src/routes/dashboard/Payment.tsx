import { CircleCheckBig, CircleHelp, CircleX } from 'lucide-react';
import { Link, useSearchParams } from 'react-router';
import { ui } from '../../components/ui';
import { es } from '../../i18n/es';

/** The three results the spec distinguishes; anything but success/canceled is unknown. */
export type PaymentResult = 'success' | 'canceled' | 'unknown';

export function paymentResult(status: string | null): PaymentResult {
  return status === 'success' || status === 'canceled' ? status : 'unknown';
}

/**
 * `/dashboard/payment`: where the gateway sends the browser back. It only displays the result named
 * in the query (`status`, `transaction_uuid`, `remote_id`); crediting is decided server-side. The
 * invoice details (plan, peer, amount) are loaded by a later issue.
 */
export function Payment() {
  const [params] = useSearchParams();
  const result = paymentResult(params.get('status'));
  const transaction = params.get('transaction_uuid') ?? params.get('remote_id');
  const t = es.dashboard.payment;
  const view = {
    success: { icon: CircleCheckBig, color: 'text-emerald-400', title: t.success, text: t.successText },
    canceled: { icon: CircleX, color: 'text-red-400', title: t.canceled, text: t.canceledText },
    unknown: { icon: CircleHelp, color: 'text-amber-300', title: t.unknown, text: t.unknownText },
  }[result];
  const Icon = view.icon;

  return (
    <div className={`${ui.card} mx-auto max-w-lg p-8 text-center`}>
      <Icon className={`mx-auto size-14 ${view.color}`} aria-hidden="true" />
      <h1 className="mt-4 text-2xl font-bold text-white">{view.title}</h1>
      <p className="mt-2 text-slate-300">{view.text}</p>
      {transaction && (
        <p className="mt-4 text-sm text-slate-400">
          {t.transaction}: <span className="font-mono text-slate-200">{transaction}</span>
        </p>
      )}
      <Link to="/dashboard/home" className={`${ui.buttonPrimary} mt-6`}>
        {t.back}
      </Link>
    </div>
  );
}
