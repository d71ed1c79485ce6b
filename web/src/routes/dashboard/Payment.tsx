import { useQuery, useQueryClient } from '@tanstack/react-query';
import { CircleCheckBig, CircleHelp, CircleX, Undo2 } from 'lucide-react';
import { useEffect } from 'react';
import toast from 'react-hot-toast';
import { Link, useSearchParams } from 'react-router';
import { errorMessage } from '../../api/http';
import { INVOICE_POLL_MAX, invoiceKeys, invoiceQuery } from '../../api/invoices';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { ui } from '../../components/ui';
import { esPayments } from '../../i18n/es.payments';
import { InvoiceDetails } from './payment/InvoiceDetails';
import { PeerReady } from './payment/PeerReady';

/** The three results the spec distinguishes; anything but success/canceled is unknown. */
export type PaymentResult = 'success' | 'canceled' | 'unknown';

export function paymentResult(status: string | null): PaymentResult {
  return status === 'success' || status === 'canceled' ? status : 'unknown';
}

const t = esPayments.payment;

/**
 * `/dashboard/payment`: where the gateway sends the browser back, with `status`, `transaction_uuid`
 * and `remote_id` (the invoice id). Shows the result named in the query and the invoice's plan,
 * peer, amount and transaction. Crediting is decided server-side: after a success the invoice may
 * still read 'pending' for a moment, so it is read again every 3 s (up to ~30 s) until it is paid.
 * A paid invoice whose delivery is still pending (no server available yet) says so: the server
 * delivers it on its own, and the Peers page shows it live when it does. A refunded invoice reads
 * 'Pago reembolsado' whatever the gateway's return said (the money went back, the period with it).
 * Once delivered, the main action opens the peer ready to install (issue 32): QR on screen,
 * Descargar and the app to install, one tap; 'Volver al inicio' stays, second.
 */
export function Payment() {
  const [params] = useSearchParams();
  const result = paymentResult(params.get('status'));
  const transaction = params.get('transaction_uuid');
  const remoteId = params.get('remote_id');
  const queryClient = useQueryClient();
  const invoice = useQuery({
    ...invoiceQuery(remoteId ?? '', { pollWhilePending: result === 'success' }),
    enabled: Boolean(remoteId),
  });

  useEffect(() => {
    if (invoice.isError) toast.error(errorMessage(invoice.error, t.detailsError), { id: 'invoice-details' });
  }, [invoice.isError, invoice.error]);

  const data = invoice.data;
  // A refunded invoice says so whatever the gateway's return said: the money went back.
  const refunded = data?.status === 'refunded';
  const view = refunded
    ? { icon: Undo2, color: 'text-sky-300', title: t.refunded, text: t.refundedText }
    : {
        success: { icon: CircleCheckBig, color: 'text-emerald-400', title: t.success, text: t.successText },
        canceled: { icon: CircleX, color: 'text-red-400', title: t.canceled, text: t.canceledText },
        unknown: { icon: CircleHelp, color: 'text-amber-300', title: t.unknown, text: t.unknownText },
      }[result];
  const Icon = view.icon;
  const polling = result === 'success' && data?.status === 'pending';
  const reads = queryClient.getQueryState(invoiceKeys.invoice(remoteId ?? ''))?.dataUpdateCount ?? 0;
  const gaveUp = polling && reads > INVOICE_POLL_MAX;
  const ready = !refunded && data?.status === 'paid' && data.delivered && data.peer_id !== null;

  return (
    <div className={`${ui.card} mx-auto max-w-lg p-8 text-center`}>
      <Icon className={`mx-auto size-14 ${view.color}`} aria-hidden="true" />
      <h1 className="mt-4 text-2xl font-bold text-white">{view.title}</h1>
      <p className="mt-2 text-slate-300">{view.text}</p>

      {!remoteId ? (
        <>
          <p role="alert" className="mt-4 text-sm text-amber-200">
            {t.detailsError}
          </p>
          {transaction && (
            <p className="mt-2 text-sm text-slate-400">
              {t.transaction}: <span className="font-mono text-slate-200">{transaction}</span>
            </p>
          )}
        </>
      ) : invoice.isPending ? (
        <LoadingBlock label={t.loading} />
      ) : invoice.isError ? (
        <div className="mt-6">
          <ErrorPanel message={t.loadError} onRetry={() => void invoice.refetch()} retryLabel={t.retry} />
        </div>
      ) : (
        <>
          <div className="text-left">
            <InvoiceDetails invoice={invoice.data} transaction={transaction} />
          </div>
          {data?.message ? (
            // The server's reason a reported payment credited nothing (another invoice's payment,
            // a smaller amount, the gateway unreachable): shown as it says it.
            <p role="alert" className="mt-4 text-sm text-amber-200">
              {data.message}
            </p>
          ) : (
            !refunded &&
            (result === 'success' || data?.status === 'paid') && (
              <p role="status" className="mt-4 text-sm text-slate-300">
                {data?.status === 'paid'
                  ? data.delivered
                    ? t.credited
                    : t.deliveryPending
                  : gaveUp
                    ? t.stillPending
                    : polling
                      ? t.confirming
                      : null}
              </p>
            )
          )}
          {ready && <PeerReady peerId={data.peer_id!} />}
        </>
      )}

      <Link to="/dashboard/home" className={`${ready ? ui.buttonSecondary : ui.buttonPrimary} mt-6`}>
        {t.back}
      </Link>
    </div>
  );
}
