import { useMutation, useQuery } from '@tanstack/react-query';
import type { Peer } from '@vpn/contracts';
import { useId, useState } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import { createInvoice } from '../../../api/invoices';
import type { InvoiceBody } from '../../../api/invoices';
import { peersQuery } from '../../../api/queries';
import type { Plan } from '../../../api/types';
import { TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esPayments } from '../../../i18n/es.payments';
import { formatPrice } from '../../../lib/format';

const t = esPayments.purchase;

/** The longest peer name the server takes. */
const NAME_MAX = 100;

export type PurchaseMode = 'existing' | 'new';

/** The peers a plan can be bought for from here: peers paid manually are renewed through support. */
export function eligiblePeers(peers: readonly Peer[]): Peer[] {
  return peers.filter((p) => !p.manual_payment);
}

/**
 * Validates the dialog's choice (spec §5) and builds the invoice body: `add_plan` with the peer's
 * id, or `new_peer` with the new peer's name. Answers the spec's message when nothing was chosen.
 */
export function purchaseBody(
  plan: number,
  mode: PurchaseMode,
  peerId: string,
  newName: string,
): { body: InvoiceBody } | { error: string } {
  if (mode === 'existing') {
    const id = Number(peerId);
    if (!peerId || !Number.isInteger(id) || id <= 0) return { error: t.peerRequired };
    return { body: { operation: 'add_plan', peer: id, plan } };
  }
  const name = newName.trim();
  if (!name) return { error: t.peerRequired };
  return { body: { operation: 'new_peer', peer: name, plan } };
}

/**
 * Opens the gateway's page in a new window and then cuts its handle on this one. Not 'noopener':
 * a window opened that way starts with an empty sessionStorage, and a customer who did not tick
 * "Recordarme" keeps the session there — the gateway's return to /dashboard/payment would land
 * on the login page.
 */
export function openPaymentWindow(url: string): void {
  const win = window.open(url, '_blank');
  if (win) win.opener = null;
}

interface PurchaseDialogProps {
  plan: Plan;
  onClose: () => void;
  /** Called with the payment URL once the invoice exists and the gateway window was opened. */
  onOpened: (paymentUrl: string) => void;
}

/**
 * 'Seleccionar Plan' → this dialog: the plan goes to an existing peer (select of the eligible peers,
 * i.e. without manual payment) or to a new one (name). With no eligible peers the new-peer choice is
 * the default (and the only one). 'Proceder al Pago' creates the invoice and opens its payment URL.
 */
export function PurchaseDialog({ plan, onClose, onOpened }: PurchaseDialogProps) {
  const peers = useQuery(peersQuery());
  const all = peers.data ?? [];
  const eligible = eligiblePeers(all);
  const hasManual = all.length > eligible.length;
  const [chosen, setChosen] = useState<PurchaseMode | null>(null);
  const mode: PurchaseMode = chosen ?? (eligible.length > 0 ? 'existing' : 'new');
  const [peerId, setPeerId] = useState('');
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const selectId = useId();
  const noteId = `${selectId}-note`;

  const create = useMutation({
    mutationFn: createInvoice,
    onSuccess: ({ payment_url }) => {
      openPaymentWindow(payment_url);
      onOpened(payment_url);
    },
    onError: (e) => {
      const message = errorMessage(e, t.error);
      setError(message);
      toast.error(message);
    },
  });

  function submit() {
    const result = purchaseBody(plan.id, mode, peerId, name);
    if ('error' in result) {
      setError(result.error);
      return;
    }
    setError(null);
    create.mutate(result.body);
  }

  const busy = create.isPending;
  const choose = (next: PurchaseMode) => {
    setChosen(next);
    setError(null);
  };

  return (
    <FormDialog
      open
      onOpenChange={(open) => (open ? undefined : onClose())}
      title={t.title(plan.name)}
      description={t.description(plan.name, formatPrice(plan.price))}
      submitLabel={t.submit}
      onSubmit={submit}
      busy={busy}
      error={error}
    >
      <fieldset>
        <legend className={ui.label}>{t.choiceLegend}</legend>
        <div className="grid grid-cols-2 gap-3">
          {(['existing', 'new'] as const).map((option) => (
            <label
              key={option}
              className={`flex cursor-pointer items-center gap-2 rounded-lg border px-3 py-2.5 text-sm font-medium ${
                mode === option
                  ? 'border-emerald-400 bg-emerald-500/10 text-white'
                  : 'border-slate-700 text-slate-300'
              } ${option === 'existing' && eligible.length === 0 ? 'cursor-not-allowed opacity-50' : ''}`}
            >
              <input
                type="radio"
                name="purchase-mode"
                value={option}
                checked={mode === option}
                onChange={() => choose(option)}
                disabled={busy || (option === 'existing' && eligible.length === 0)}
                className="accent-emerald-500"
              />
              {option === 'existing' ? t.existing : t.new}
            </label>
          ))}
        </div>
        {!peers.isPending && eligible.length === 0 && (
          <p className="mt-2 text-xs text-amber-200">{t.noEligiblePeers}</p>
        )}
      </fieldset>

      {mode === 'existing' ? (
        <div>
          <label htmlFor={selectId} className={ui.label}>
            {t.peerLabel}
          </label>
          <select
            id={selectId}
            name="peer"
            className={ui.input}
            value={peerId}
            onChange={(e) => {
              setPeerId(e.target.value);
              setError(null);
            }}
            disabled={busy}
            aria-describedby={hasManual ? noteId : undefined}
          >
            <option value="">{t.selectPeer}</option>
            {eligible.map((peer) => (
              <option key={peer.id} value={String(peer.id)}>
                {peer.name}
              </option>
            ))}
          </select>
          {hasManual && (
            <p id={noteId} className="mt-1.5 text-xs text-slate-400">
              {t.manualNote}
            </p>
          )}
        </div>
      ) : (
        <TextField
          label={t.newPeerLabel}
          name="new-peer"
          value={name}
          maxLength={NAME_MAX}
          placeholder={t.newPeerPlaceholder}
          autoComplete="off"
          onChange={(e) => {
            setName(e.target.value);
            setError(null);
          }}
          disabled={busy}
        />
      )}
    </FormDialog>
  );
}
