import { useMutation, useQuery } from '@tanstack/react-query';
import type { Peer } from '@vpn/contracts';
import { useId, useState } from 'react';
import toast from 'react-hot-toast';
import { errorMessage } from '../../../api/http';
import { createInvoice, paymentSettingsQuery } from '../../../api/invoices';
import type { InvoiceBody } from '../../../api/invoices';
import { peersQuery, plansQuery } from '../../../api/queries';
import type { Plan } from '../../../api/types';
import { TextField } from '../../../components/Field';
import { Choice, FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { esPayments } from '../../../i18n/es.payments';
import { esPeerStatus } from '../../../i18n/es.peerStatus';
import { formatPrice } from '../../../lib/format';
import { speedLabel } from '../../../lib/speed';
import { es } from '../../../i18n/es';

const t = esPayments.purchase;

/** The longest peer name the server takes. */
const NAME_MAX = 100;

export type PurchaseMode = 'existing' | 'new';
const GATEWAYS = ['qvapay', 'remesita'] as const;
export type GatewayName = (typeof GATEWAYS)[number];

/**
 * The peers a plan can be bought for from here: peers paid manually are renewed through support,
 * and a peer a manager switched off stays off whatever is bought (the server refuses it too).
 */
export function eligiblePeers(peers: readonly Peer[]): Peer[] {
  return peers.filter((p) => !p.manual_payment && !p.manager_disabled);
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
/** The renewal's plan: the one chosen, else the peer's last plan if still on sale, else the first. */
export function pickPlan(
  plans: readonly Plan[],
  chosenId: string | null,
  peer: Peer | undefined,
): Plan | null {
  if (chosenId) return plans.find((p) => String(p.id) === chosenId) ?? null;
  // The history comes newest first.
  const last = peer?.plans_history[0]?.plan_name;
  return plans.find((p) => p.name === last) ?? plans[0] ?? null;
}

export function openPaymentWindow(url: string): void {
  const win = window.open(url, '_blank');
  if (win) win.opener = null;
}

interface PurchaseDialogProps {
  /** The plan picked on the Plans page; null when renewing from the home banner (chosen here). */
  plan: Plan | null;
  /** Renewal: this peer's id, selected from the start. */
  renew?: number;
  onClose: () => void;
  /** Called with the invoice (its id and payment URL) once it exists and the gateway window was opened. */
  onOpened: (invoice: { id: string; payment_url: string }) => void;
}

/**
 * 'Seleccionar Plan' → this dialog: the plan goes to an existing peer (select of the eligible peers,
 * i.e. without manual payment) or to a new one (name). With no eligible peers the new-peer choice is
 * the default (and the only one). 'Proceder al Pago' creates the invoice and opens its payment URL.
 * Renewing from the home banner (`renew`, no plan yet): the peer is selected and a plan select
 * starts on the plan the peer had last, if it is still on sale, else the first one.
 */
export function PurchaseDialog({ plan: fixedPlan, renew, onClose, onOpened }: PurchaseDialogProps) {
  const peers = useQuery(peersQuery());
  const plans = useQuery({ ...plansQuery(), enabled: fixedPlan === null });
  const all = peers.data ?? [];
  const eligible = eligiblePeers(all);
  const hasManual = all.length > eligible.length;
  const [chosen, setChosen] = useState<PurchaseMode | null>(null);
  const mode: PurchaseMode = chosen ?? (renew !== undefined || eligible.length > 0 ? 'existing' : 'new');
  // The gateways on (GET /api/client/payments, cached by the Plans page); it also says whether some
  // server can take a new peer now: if none can, the dialog says so before any payment.
  const payments = useQuery(paymentSettingsQuery());
  const noNewPeer = payments.data?.new_peer_available === false;
  const [peerId, setPeerId] = useState(renew !== undefined ? String(renew) : '');
  const renewed = all.find((p) => p.id === renew);
  const [planId, setPlanId] = useState<string | null>(null);
  const plan = fixedPlan ?? pickPlan(plans.data ?? [], planId, renewed);
  const planSelectId = `${useId()}-plan`;
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  // With two gateways on, the customer chooses one here (QvaPay preselected).
  const gateways = GATEWAYS.filter((g) => payments.data?.[`allow_payments_${g}`]);
  const [picked, setGateway] = useState<GatewayName | null>(null);
  const gateway = picked ?? gateways[0];
  const choosesGateway = gateways.length > 1;
  const selectId = useId();
  const noteId = `${selectId}-note`;

  const create = useMutation({
    mutationFn: createInvoice,
    onSuccess: (invoice) => {
      openPaymentWindow(invoice.payment_url);
      onOpened(invoice);
    },
    onError: (e) => {
      const message = errorMessage(e, t.error);
      setError(message);
      toast.error(message);
    },
  });

  function submit() {
    if (!plan) {
      setError(t.planRequired);
      return;
    }
    if (mode === 'new' && noNewPeer) {
      setError(esPeerStatus.purchase.noServers);
      return;
    }
    const result = purchaseBody(plan.id, mode, peerId, name);
    if ('error' in result) {
      setError(result.error);
      return;
    }
    setError(null);
    create.mutate(choosesGateway ? { ...result.body, gateway } : result.body);
  }

  const busy = create.isPending;
  const choose = (next: PurchaseMode) => {
    setChosen(next);
    setError(null);
  };

  return (
    <FormDialog
      onClose={onClose}
      title={fixedPlan ? t.title(fixedPlan.name) : t.renewTitle(renewed?.name ?? '')}
      description={plan ? t.description(plan.name, formatPrice(plan.price)) : t.renewDescription}
      submitLabel={t.submit}
      onSubmit={submit}
      busy={busy}
      error={error}
    >
      {fixedPlan === null && (
        <div>
          <label htmlFor={planSelectId} className={ui.label}>
            {t.planLabel}
          </label>
          <select
            id={planSelectId}
            name="plan"
            className={ui.input}
            value={plan ? String(plan.id) : ''}
            onChange={(e) => {
              setPlanId(e.target.value);
              setError(null);
            }}
            disabled={busy}
          >
            {!plan && <option value="">{t.selectPlan}</option>}
            {(plans.data ?? []).map((p) => (
              <option key={p.id} value={String(p.id)}>
                {`${p.name} · ${formatPrice(p.price)}`}
              </option>
            ))}
          </select>
        </div>
      )}
      {plan && (
        <p className="text-sm text-emerald-300">
          <span className="sr-only">{es.speed.label}: </span>
          {speedLabel(plan.speed_down_mbit, plan.speed_up_mbit)}
        </p>
      )}
      <fieldset>
        <legend className={ui.label}>{t.choiceLegend}</legend>
        <div className="grid grid-cols-2 gap-3">
          {(['existing', 'new'] as const).map((option) => (
            <Choice
              key={option}
              name="purchase-mode"
              checked={mode === option}
              onChange={() => choose(option)}
              disabled={
                busy || (option === 'existing' ? eligible.length === 0 : noNewPeer && eligible.length > 0)
              }
            >
              {option === 'existing' ? t.existing : t.new}
            </Choice>
          ))}
        </div>
        {!peers.isPending && eligible.length === 0 && !noNewPeer && (
          <p className="mt-2 text-xs text-amber-200">{t.noEligiblePeers}</p>
        )}
        {noNewPeer && (
          <p role="alert" className="mt-2 text-sm text-amber-200">
            {esPeerStatus.purchase.noServers}
          </p>
        )}
      </fieldset>

      {choosesGateway && (
        <fieldset>
          <legend className={ui.label}>{t.gatewayLegend}</legend>
          <div className="grid grid-cols-2 gap-3">
            {gateways.map((g) => (
              <Choice
                key={g}
                name="gateway"
                checked={gateway === g}
                onChange={() => setGateway(g)}
                disabled={busy}
              >
                {esPayments.gateways[g]}
              </Choice>
            ))}
          </div>
        </fieldset>
      )}

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
