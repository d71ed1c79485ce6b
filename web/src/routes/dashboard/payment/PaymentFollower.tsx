import { useQuery } from '@tanstack/react-query';
import { CircleCheckBig, CircleX, ExternalLink, Wallet } from 'lucide-react';
import { useEffect, useRef } from 'react';
import { FOLLOW_POLL, invoiceQuery } from '../../../api/invoices';
import { ui } from '../../../components/ui';
import { esPayments } from '../../../i18n/es.payments';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { PeerReady } from './PeerReady';

const t = esPeerStatus.follow;

/**
 * Where the customer tapped 'Proceder al Pago' (Planes, or Renovar on Home), while the gateway is
 * open in another tab (issue 32): follows the invoice (`GET /api/client/invoices/{id}` every 4 s
 * while in sight) and, once it is paid and delivered, shows the peer ready to install as the
 * payment result does. Brought into view at every change: the plan card tapped may be far below.
 */
export function PaymentFollower({
  invoiceId,
  paymentUrl,
  onDismiss,
}: {
  invoiceId: string;
  paymentUrl: string;
  onDismiss: () => void;
}) {
  const invoice = useQuery(invoiceQuery(invoiceId, { pollWhilePending: true, ...FOLLOW_POLL }));
  const data = invoice.data;
  const stage = !data
    ? 'pending'
    : data.status === 'paid'
      ? data.delivered
        ? 'ready'
        : 'paid'
      : data.status === 'pending'
        ? 'pending'
        : 'closed';
  const ref = useRef<HTMLElement>(null);
  useEffect(() => {
    ref.current?.scrollIntoView?.({ block: 'start', behavior: 'smooth' });
  }, [stage]);

  if (stage === 'ready' && data?.peer_id != null)
    return (
      <section ref={ref} aria-live="polite" aria-label={t.paidTitle} className="mb-6 scroll-mt-20">
        <PeerReady peerId={data.peer_id} />
      </section>
    );

  const closed = stage === 'closed';
  const Icon = closed ? CircleX : stage === 'pending' ? Wallet : CircleCheckBig;
  return (
    <section
      ref={ref}
      role="status"
      className={`mb-6 flex scroll-mt-20 flex-col gap-3 rounded-xl border px-4 py-3 text-sm sm:flex-row sm:items-center ${
        closed
          ? 'border-slate-600 bg-slate-500/10 text-slate-200'
          : 'border-blue-400/20 bg-blue-500/10 text-blue-100'
      }`}
    >
      <Icon className="size-5 shrink-0" aria-hidden="true" />
      <p className="flex-1">
        <strong className="font-semibold text-white">
          {closed ? t.canceledTitle : stage === 'pending' ? esPayments.purchase.openedTitle : t.paidTitle}
          .{' '}
        </strong>
        {closed
          ? data?.status === 'canceled'
            ? t.canceled
            : t.failed
          : stage === 'pending'
            ? t.waiting
            : esPayments.payment.deliveryPending}
      </p>
      {stage === 'pending' && (
        <a href={paymentUrl} target="_blank" rel="noopener noreferrer" className={ui.buttonSecondary}>
          {esPayments.purchase.openAgain}
          <ExternalLink className="size-4" aria-hidden="true" />
        </a>
      )}
      {closed && (
        <button type="button" className={ui.buttonSecondary} onClick={onDismiss}>
          {t.dismiss}
        </button>
      )}
    </section>
  );
}
