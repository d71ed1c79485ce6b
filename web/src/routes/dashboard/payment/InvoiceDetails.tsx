import type { Invoice } from '../../../api/invoices';
import { esPayments } from '../../../i18n/es.payments';

const t = esPayments.payment;

/** Plan, peer, amount (USD) and transaction id of the invoice the gateway came back with. */
export function InvoiceDetails({ invoice, transaction }: { invoice: Invoice; transaction: string | null }) {
  const rows: [string, string][] = [
    [t.plan, invoice.plan_name],
    [t.peer, invoice.peer_name],
    [t.amount, t.amountUsd(invoice.amount)],
  ];
  const tx = transaction ?? invoice.transaction_uuid;
  if (tx) rows.push([t.transaction, tx]);
  return (
    <section
      aria-label={t.detailsTitle}
      className="mt-6 rounded-xl border border-slate-800 bg-navy-950/40 p-4"
    >
      <h2 className="mb-3 text-sm font-semibold tracking-wide text-slate-400 uppercase">{t.detailsTitle}</h2>
      <dl className="space-y-2 text-sm">
        {rows.map(([label, value]) => (
          <div key={label} className="flex justify-between gap-4">
            <dt className="text-slate-400">{label}</dt>
            <dd className="text-right font-medium break-all text-slate-100">{value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
