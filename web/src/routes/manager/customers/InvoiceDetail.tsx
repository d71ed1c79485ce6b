import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ArrowLeft, BadgeCheck, Undo2 } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import toast from 'react-hot-toast';
import { Link, useParams } from 'react-router';
import { invoiceKeys, invoiceQuery, markInvoicePaid, type AdminInvoice } from '../../../api/adminCustomers';
import { errorMessage } from '../../../api/http';
import { useAdminPush } from '../../../api/RealtimeProvider';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { useCan } from '../ManagerLayout';
import { ManagerPageHeader, QueryView } from '../shared';
import { RefundDialog } from './RefundDialog';
import { InvoiceState, ReasonDialog } from './shared';

const t = esCustomers.invoice;

/**
 * `/manager/dashboard/invoices/:id`: one invoice (and its refund, when it has one); 'Marcar como
 * pagada' with a required reason, and 'Reembolsar' for a paid one (both `invoices.write`).
 */
export function ManagerInvoiceDetail() {
  const id = useParams().id ?? '';
  const queryClient = useQueryClient();
  const invoice = useQuery(invoiceQuery(id));
  useAdminPush((m) => {
    if (m.type === 'admin_invoice' && m.invoice_id === id)
      void queryClient.invalidateQueries({ queryKey: invoiceKeys.detail(id) });
  });
  return (
    <section>
      <Link
        to="/manager/dashboard/invoices"
        className={`${ui.link} mb-4 inline-flex items-center gap-1 text-sm`}
      >
        <ArrowLeft className="size-4" aria-hidden="true" />
        {esCustomers.back}
      </Link>
      <QueryView query={invoice}>{(i) => <InvoiceView invoice={i} />}</QueryView>
    </section>
  );
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-slate-400">{label}</dt>
      <dd className="min-w-0 break-words text-slate-100">{children}</dd>
    </div>
  );
}

function InvoiceView({ invoice: i }: { invoice: AdminInvoice }) {
  const queryClient = useQueryClient();
  const canWrite = useCan('invoices.write');
  const [marking, setMarking] = useState(false);
  const [refunding, setRefunding] = useState(false);
  const f = t.fields;
  const amount = esCustomers.amount(i.amount, i.currency);
  const mark = useMutation({
    mutationFn: (reason: string) => markInvoicePaid(i.id, reason),
    onSuccess: (next) => {
      queryClient.setQueryData(invoiceKeys.detail(i.id), next);
      void queryClient.invalidateQueries({ queryKey: invoiceKeys.all });
      void queryClient.invalidateQueries({ queryKey: ['manager', 'customers', 'detail', next.customer.id] });
      setMarking(false);
      toast.success(t.marked);
    },
  });
  return (
    <>
      <ManagerPageHeader title={`${t.title} · ${amount}`} subtitle={i.plan_name}>
        {canWrite && i.status !== 'paid' && i.status !== 'refunded' && (
          <button type="button" className={ui.buttonPrimary} onClick={() => setMarking(true)}>
            <BadgeCheck className="size-4" aria-hidden="true" />
            {t.markPaid}
          </button>
        )}
        {canWrite && i.status === 'paid' && (
          <button type="button" className={ui.buttonSecondary} onClick={() => setRefunding(true)}>
            <Undo2 className="size-4" aria-hidden="true" />
            {esCustomers.billing.refund}
          </button>
        )}
      </ManagerPageHeader>
      <dl className={`${ui.card} grid grid-cols-[auto_1fr] gap-x-6 gap-y-3 p-6 text-sm`}>
        <Row label={f.state}>
          <InvoiceState status={i.status} />
        </Row>
        <Row label={f.customer}>
          <Link className={ui.link} to={`/manager/dashboard/customers/${i.customer.id}`}>
            {i.customer.username}
          </Link>
        </Row>
        <Row label={f.operation}>{t.operations[i.operation] ?? i.operation}</Row>
        <Row label={f.peer}>
          {i.peer?.name ?? (i.new_peer_name ? esCustomers.invoices.newPeer(i.new_peer_name) : '—')}
        </Row>
        <Row label={f.plan}>{i.plan_name}</Row>
        <Row label={f.amount}>{amount}</Row>
        <Row label={f.gateway}>{esCustomers.gateways[i.gateway] ?? i.gateway}</Row>
        <Row label={f.created}>{esCustomers.dateTime(i.created)}</Row>
        <Row label={f.paid}>{esCustomers.dateTime(i.paid)}</Row>
        {i.status === 'paid' && (
          <Row label={f.delivered}>{i.delivered ? esCustomers.dateTime(i.delivered) : t.notDelivered}</Row>
        )}
        {i.marked_by && <Row label={f.markedBy}>{i.marked_by.username}</Row>}
        {i.mark_reason && <Row label={f.markReason}>{i.mark_reason}</Row>}
        {i.refunded && (
          <>
            <Row label={f.refunded}>{esCustomers.dateTime(i.refunded)}</Row>
            <Row label={f.refundedBy}>{i.refunded_by?.username ?? '—'}</Row>
            <Row label={f.refundReason}>{i.refund_reason ?? '—'}</Row>
            <Row label={f.refundReference}>
              {i.refund_reference ? <code>{i.refund_reference}</code> : t.refundByHand}
            </Row>
          </>
        )}
        <Row label={f.id}>
          <code>{i.id}</code>
        </Row>
        <Row label={f.remoteId}>{i.remote_id ? <code>{i.remote_id}</code> : '—'}</Row>
        <Row label={f.transaction}>{i.transaction_uuid ? <code>{i.transaction_uuid}</code> : '—'}</Row>
      </dl>
      <ReasonDialog
        open={marking}
        onOpenChange={(open) => {
          setMarking(open);
          if (!open) mark.reset();
        }}
        title={t.markTitle}
        description={t.markDescription(amount)}
        note={i.status !== 'pending' ? t.markLate(esCustomers.states[i.status] ?? i.status) : undefined}
        submitLabel={t.markPaid}
        required
        busy={mark.isPending}
        error={mark.error ? errorMessage(mark.error, esManager.requestError) : null}
        onSubmit={(reason) => mark.mutate(reason ?? '')}
      />
      {canWrite && i.status === 'paid' && (
        <RefundDialog invoice={i} open={refunding} onOpenChange={setRefunding} />
      )}
    </>
  );
}
