import { useId, useState, type ReactNode } from 'react';
import type { ListParams } from '../../../api/adminCustomers';
import { FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esCustomers as t } from '../../../i18n/es.manager.customers';
import { useListParams as useUrlListParams } from '../listParams';

/** Clientes' and Facturas' list state (`?q=&state=&gateway=&page=`), on the console's one URL hook. */
export function useListParams(): [ListParams, (patch: Partial<ListParams>) => void] {
  const { q, page, filters, update } = useUrlListParams(['state', 'gateway']);
  return [
    { q: q || undefined, state: filters.state || undefined, gateway: filters.gateway || undefined, page },
    update,
  ];
}

const STATE_TONE: Record<string, string> = {
  paid: 'bg-emerald-500/15 text-emerald-300',
  pending: 'bg-amber-500/15 text-amber-200',
  failed: 'bg-rose-500/15 text-rose-300',
  refunded: 'bg-sky-500/15 text-sky-300',
};

/** An invoice state as a coloured pill ('Pagada', 'Pendiente'…). */
export function InvoiceState({ status }: { status: string }) {
  return (
    <span
      className={`inline-flex rounded-full px-2.5 py-0.5 text-xs font-semibold ${
        STATE_TONE[status] ?? 'bg-slate-500/20 text-slate-300'
      }`}
    >
      {t.states[status] ?? status}
    </span>
  );
}

/**
 * A confirmation that records a reason (disable a customer, mark an invoice paid, refund one, settle a
 * payment). The reason is checked here (at least 3 characters) when required, so a short one never
 * reaches the server; `validate` checks the page's own fields (`children`, above the reason) first.
 */
export function ReasonDialog({
  open,
  onOpenChange,
  title,
  description,
  note,
  submitLabel,
  required,
  busy,
  error,
  onSubmit,
  validate,
  children,
  danger,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: string;
  note?: string;
  submitLabel: string;
  required: boolean;
  busy: boolean;
  error: string | null;
  onSubmit: (reason: string | undefined) => void;
  /** The page's own fields' check: a Spanish message stops the submit. */
  validate?: () => string | null;
  /** Extra fields shown above the reason. */
  children?: ReactNode;
  /** A red submit (a refund, a disable). */
  danger?: boolean;
}) {
  const id = useId();
  const [reason, setReason] = useState('');
  const [local, setLocal] = useState<string | null>(null);
  return (
    <FormDialog
      open={open}
      onClose={() => {
        setReason('');
        setLocal(null);
        onOpenChange(false);
      }}
      title={title}
      description={description}
      submitLabel={submitLabel}
      danger={danger}
      busy={busy}
      error={local ?? error}
      onSubmit={() => {
        const text = reason.trim();
        const invalid = validate?.();
        if (invalid) return setLocal(invalid);
        if ((required || text.length > 0) && text.length < 3) return setLocal(t.reasonTooShort);
        setLocal(null);
        onSubmit(text || undefined);
      }}
    >
      {note && <p className="rounded-lg bg-amber-500/10 p-3 text-sm text-amber-100">{note}</p>}
      {children}
      <div>
        <label htmlFor={id} className={ui.label}>
          {required ? t.reasonLabel : t.customer.reasonOptional}
        </label>
        <textarea
          id={id}
          value={reason}
          maxLength={300}
          rows={3}
          onChange={(e) => setReason(e.target.value)}
          disabled={busy}
          className={ui.input}
        />
      </div>
    </FormDialog>
  );
}
