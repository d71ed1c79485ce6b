import { useMutation, useQueryClient } from '@tanstack/react-query';
import { billingMsg, type InvoiceRefund } from '@vpn/contracts';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { refundInvoice } from '../../../api/adminBilling';
import { invoiceKeys, type AdminInvoice } from '../../../api/adminCustomers';
import { errorMessage } from '../../../api/http';
import { Choice } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { ReasonDialog } from './shared';

const t = esCustomers.billing;
type Method = InvoiceRefund['method'];

/**
 * 'Reembolsar' a paid invoice: the reason, and — when its gateway can send the money back itself
 * (`refundable_by_gateway`) — an explicit choice between doing so and recording a refund made another
 * way (no default, so money is never sent twice by a hurried click). Otherwise only the record.
 * Either way the server takes back from the peer the period the invoice bought; the dialog says so.
 */
export function RefundDialog({
  invoice: i,
  open,
  onOpenChange,
}: {
  invoice: AdminInvoice;
  open: boolean;
  onOpenChange: (open: boolean) => void;
}) {
  const queryClient = useQueryClient();
  const both = i.refundable_by_gateway;
  const [method, setMethod] = useState<Method | null>(both ? null : 'manual');
  const gateway = esCustomers.gateways[i.gateway] ?? i.gateway;
  const amount = esCustomers.amount(i.amount, i.currency);
  const refund = useMutation({
    mutationFn: (body: InvoiceRefund) => refundInvoice(i.id, body),
    onSuccess: (next) => {
      queryClient.setQueryData(invoiceKeys.detail(i.id), next);
      void queryClient.invalidateQueries({ queryKey: invoiceKeys.all });
      void queryClient.invalidateQueries({ queryKey: ['manager', 'customers', 'detail', next.customer.id] });
      void queryClient.invalidateQueries({ queryKey: ['manager', 'billing'] });
      onOpenChange(false);
      toast.success(billingMsg.refunded);
    },
  });
  const options: Method[] = both ? ['gateway', 'manual'] : ['manual'];
  const peer = i.peer?.name ?? i.new_peer_name;
  return (
    <ReasonDialog
      open={open}
      onOpenChange={(next) => {
        if (!next) {
          refund.reset();
          setMethod(both ? null : 'manual');
        }
        onOpenChange(next);
      }}
      title={t.refundTitle}
      description={t.refundDescription(amount, i.customer.username)}
      note={t.refundTakesBack(peer)}
      submitLabel={t.refundAmount(amount)}
      danger
      required
      busy={refund.isPending}
      error={refund.error ? errorMessage(refund.error, esManager.requestError) : null}
      validate={() => (method ? null : t.methodRequired)}
      onSubmit={(reason) => method && refund.mutate({ method, reason: reason ?? '' })}
    >
      <fieldset>
        <legend className={ui.label}>{t.methodLegend}</legend>
        <div className="grid gap-2">
          {options.map((option) => (
            <Choice
              key={option}
              name="refund-method"
              checked={method === option}
              onChange={() => setMethod(option)}
              disabled={refund.isPending}
            >
              {option === 'gateway' ? t.methodGateway(gateway) : t.methodManual}
            </Choice>
          ))}
        </div>
        {!both && <p className="mt-2 text-xs text-slate-400">{t.methodManualOnly(gateway)}</p>}
      </fieldset>
    </ReasonDialog>
  );
}
