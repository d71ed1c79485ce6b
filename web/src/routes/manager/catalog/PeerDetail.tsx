import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type ReactNode } from 'react';
import toast from 'react-hot-toast';
import { Reason } from '@vpn/contracts';
import { allServersQuery } from '../../../api/adminFleet';
import {
  adminPeerQuery,
  adminPlansQuery,
  catalogKeys,
  patchPeer,
  type AdminPeer,
  type AdminPeerDetail,
  type PeerPatch,
} from '../../../api/adminCatalog';
import { errorMessage } from '../../../api/http';
import { DataTable } from '../../../components/DataTable';
import { TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { Modal } from '../../../components/Modal';
import { OnlineDot } from '../../../components/OnlineDot';
import { ui } from '../../../components/ui';
import { DataAllowanceBar } from '../../../components/DataAllowanceBar';
import { UsageChart } from '../../../components/UsageChart';
import { es } from '../../../i18n/es';
import { esManager } from '../../../i18n/es.manager';
import { esCatalog } from '../../../i18n/es.manager.catalog';
import { formatDate } from '../../../lib/format';
import { formatKbit, reducedText, speedLabel } from '../../../lib/speed';
import { esConcurrent } from '../../../i18n/es.manager.concurrent';
import { useCan } from '../ManagerLayout';
import { QueryView, StateBadge } from '../shared';
import { firstIssue } from '../listParams';

const t = esCatalog.peers;

function bytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat('es-ES', { maximumFractionDigits: unit ? 1 : 0 }).format(value)} ${units[unit]}`;
}

export function PeerState({ peer }: { peer: Pick<AdminPeer, 'active' | 'processing'> }) {
  if (peer.processing) return <StateBadge ok={false}>{t.processing}</StateBadge>;
  return <StateBadge ok={peer.active}>{peer.active ? t.active : t.disabled}</StateBadge>;
}

type Action = 'grant' | 'move' | 'toggle' | null;

/** A peer's detail: where it is, its plan history and traffic; the actions a role may take. */
export function PeerDetail({ id, onClose }: { id: number; onClose: () => void }) {
  const canWrite = useCan('peers.write');
  const peer = useQuery({
    ...adminPeerQuery(id),
    // A move waits for the agents: re-read until the busy state ends.
    refetchInterval: (query) => (query.state.data?.processing ? 2000 : false),
  });
  const [action, setAction] = useState<Action>(null);
  const title = peer.data ? t.detailTitle(peer.data.name) : t.title;
  return (
    <Modal open onOpenChange={(o) => (o ? undefined : onClose())} title={title} size="max-w-3xl">
      <QueryView query={peer}>
        {(p) => (
          <div className="space-y-6">
            <Facts peer={p} />
            {canWrite && (
              <div className="flex flex-wrap gap-2">
                <button type="button" className={ui.buttonPrimary} onClick={() => setAction('grant')}>
                  {t.grant}
                </button>
                <button
                  type="button"
                  className={ui.buttonSecondary}
                  disabled={p.processing !== null}
                  onClick={() => setAction('move')}
                >
                  {t.move}
                </button>
                <button type="button" className={ui.buttonSecondary} onClick={() => setAction('toggle')}>
                  {p.enabled ? t.disable : t.enable}
                </button>
              </div>
            )}
            <History peer={p} />
            {action && <ActionDialog peer={p} action={action} onClose={() => setAction(null)} />}
          </div>
        )}
      </QueryView>
    </Modal>
  );
}

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="contents">
      <dt className="text-slate-400">{label}</dt>
      <dd className="min-w-0 break-words text-slate-100">{children}</dd>
    </div>
  );
}

function Facts({ peer: p }: { peer: AdminPeerDetail }) {
  const f = t.fields;
  // The customer's wording for the same numbers (operators see what the customer sees).
  const d = es.dashboard.peers.details;
  const u = p.usage;
  const hasUsage = u.rx_bytes + u.tx_bytes > 0 || u.last_handshake !== null;
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-6 gap-y-2 text-sm">
      <Fact label={t.columns.state}>
        <PeerState peer={p} /> {p.manual_payment && <span className="ml-2 text-slate-400">{t.manual}</span>}
      </Fact>
      <Fact label={f.owner}>
        {p.owner.username}
        {p.owner.disabled && <span className="ml-2 text-amber-300">{t.ownerDisabled}</span>}
      </Fact>
      <Fact label={f.server}>{p.server.name}</Fact>
      <Fact label={f.address}>
        <span className="font-mono">{p.address}</span>
      </Fact>
      <Fact label={f.publicKey}>
        <span className="font-mono text-xs">{p.public_key}</span>
      </Fact>
      <Fact label={f.expires}>{p.expires_at ? formatDate(p.expires_at) : esCatalog.never}</Fact>
      <Fact label={f.created}>{formatDate(p.created)}</Fact>
      {p.party && <Fact label={f.room}>{p.party.name}</Fact>}
      <Fact label={es.speed.label}>
        {speedLabel(p.speed.down_mbit, p.speed.up_mbit)}
        {p.active && p.speed.reduced && (
          <span className="block text-amber-200">
            {es.speed.reduced}: {formatKbit(p.speed.reduced.kbit)}. {reducedText(p.speed)}
          </span>
        )}
      </Fact>
      {p.concurrent_use && (
        <Fact label={esConcurrent.field}>
          <span className="text-amber-200">
            {esConcurrent.value(p.concurrent_use.endpoints, formatDate(p.concurrent_use.detected_at))}
          </span>
          {p.concurrent_use.recent.length > 0 && (
            <span className="block text-slate-400">
              {esConcurrent.recent(p.concurrent_use.recent.join(', '))}
            </span>
          )}
          <span className="block text-slate-400">
            {esConcurrent.detections(p.concurrent_use.detections_24h, formatDate(p.concurrent_use.last_seen))}
          </span>
        </Fact>
      )}
      {hasUsage ? (
        <>
          <Fact label={f.usage}>{t.traffic(bytes(u.rx_bytes), bytes(u.tx_bytes))}</Fact>
          <Fact label={f.usage30}>{t.traffic(bytes(u.rx_bytes_30d), bytes(u.tx_bytes_30d))}</Fact>
          {u.last_handshake && <Fact label={f.handshake}>{formatDate(u.last_handshake)}</Fact>}
          {u.endpoint && <Fact label={f.endpoint}>{u.endpoint}</Fact>}
          <Fact label={d.connection}>
            <OnlineDot online={u.online} /> {u.online ? d.online : d.offline}
          </Fact>
          <Fact label={d.period(formatDate(u.period.since))}>
            {d.download} {bytes(u.period.download)} · {d.upload} {bytes(u.period.upload)}
          </Fact>
          {u.period.allowance !== null && (
            <div className="sm:col-span-2">
              <DataAllowanceBar used={u.period.used} allowance={u.period.allowance} />
            </div>
          )}
          <Fact label={d.chartTitle}>
            <UsageChart
              from={u.days_from}
              upload={u.upload}
              download={u.download}
              label={d.chartLabel}
              dayLabel={d.dayLabel}
            />
          </Fact>
        </>
      ) : (
        <Fact label={f.usage}>{t.noUsage}</Fact>
      )}
    </dl>
  );
}

function History({ peer }: { peer: AdminPeerDetail }) {
  const c = t.historyColumns;
  return (
    <div>
      <h3 className="mb-2 font-semibold text-white">{t.history}</h3>
      <DataTable
        label={t.history}
        rows={peer.plans_history}
        rowKey={(h) => `${h.created}-${h.plan_name}`}
        empty={t.historyEmpty}
        columns={[
          { key: 'plan', header: c.plan, cell: (h) => h.plan_name },
          { key: 'price', header: c.price, cell: (h) => esCatalog.usd(h.plan_price) },
          { key: 'days', header: c.days, cell: (h) => esCatalog.days(h.validity_days) },
          { key: 'date', header: c.date, cell: (h) => formatDate(h.created) },
          {
            key: 'origin',
            header: c.origin,
            cell: (h) =>
              h.manual ? (
                <span>
                  {t.granted(h.granted_by)}
                  {h.reason && <span className="block text-xs text-slate-400">{h.reason}</span>}
                </span>
              ) : h.refunded ? (
                <span className="text-amber-300">{t.refunded(formatDate(h.refunded))}</span>
              ) : (
                t.paid
              ),
          },
        ]}
      />
    </div>
  );
}

/** Grant a plan, move to another server, or switch on/off — each a small form, each audited. */
function ActionDialog({
  peer,
  action,
  onClose,
}: {
  peer: AdminPeerDetail;
  action: Exclude<Action, null>;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const selectId = useId();
  const [choice, setChoice] = useState('');
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const plans = useQuery({ ...adminPlansQuery({ page_size: 100 }), enabled: action === 'grant' });
  const servers = useQuery({ ...allServersQuery(), enabled: action === 'move' });
  const mutation = useMutation({
    mutationFn: (body: PeerPatch) => patchPeer(peer.id, body),
    onSuccess: (updated) => {
      queryClient.setQueryData(adminPeerQuery(peer.id).queryKey, updated);
      void queryClient.invalidateQueries({ queryKey: catalogKeys.peers });
      if (action === 'grant') {
        const plan = plans.data?.results.find((p) => String(p.id) === choice);
        toast.success(t.granted_toast(plan?.name ?? '', peer.name));
      } else if (action === 'move') toast.success(t.moved(peer.name, updated.server.name));
      else toast.success(updated.enabled ? t.enabled_toast(peer.name) : t.disabled_toast(peer.name));
      onClose();
    },
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const why = reason.trim();
    if (action === 'grant') {
      if (!choice) return setError(t.grantPlanPlaceholder);
      const issue = firstIssue(Reason.safeParse(why));
      if (issue) return setError(issue);
      setError(null);
      return mutation.mutate({ operation: 'grant', plan: Number(choice), reason: why });
    }
    if (action === 'move') {
      if (!choice) return setError(t.moveServerPlaceholder);
      setError(null);
      return mutation.mutate({ operation: 'change_server', server: Number(choice) });
    }
    if (why) {
      const issue = firstIssue(Reason.safeParse(why));
      if (issue) return setError(issue);
    }
    setError(null);
    mutation.mutate({ active: !peer.enabled, ...(why ? { reason: why } : {}) });
  }

  const busy = mutation.isPending;
  const select = (label: string, placeholder: string, options: { value: string; label: string }[]) => (
    <div>
      <label htmlFor={selectId} className={ui.label}>
        {label}
      </label>
      <select
        id={selectId}
        className={ui.input}
        value={choice}
        onChange={(e) => setChoice(e.target.value)}
        disabled={busy}
      >
        <option value="">{placeholder}</option>
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </div>
  );
  const common = {
    onClose,
    onSubmit: submit,
    busy,
    error,
  };

  if (action === 'grant')
    return (
      <FormDialog
        {...common}
        title={t.grantTitle(peer.name)}
        description={t.grantDescription}
        submitLabel={t.grant}
      >
        {select(
          t.grantPlan,
          t.grantPlanPlaceholder,
          (plans.data?.results ?? []).map((p) => ({
            value: String(p.id),
            label: `${p.hidden ? t.hiddenPlan(p.name) : p.name} — ${esCatalog.usd(p.price)} · ${esCatalog.days(p.validity_days)}`,
          })),
        )}
        <TextField
          label={esCatalog.reason}
          hint={esCatalog.reasonHint}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          disabled={busy}
        />
      </FormDialog>
    );
  if (action === 'move')
    return (
      <FormDialog
        {...common}
        title={t.moveTitle(peer.name)}
        description={t.moveDescription}
        submitLabel={t.move}
      >
        {select(
          t.moveServer,
          t.moveServerPlaceholder,
          (servers.data ?? [])
            .filter((s) => s.id !== peer.server.id && s.active)
            .map((s) => ({ value: String(s.id), label: `${s.name} — ${s.ubication}` })),
        )}
      </FormDialog>
    );
  return (
    <FormDialog
      {...common}
      title={peer.enabled ? t.disableTitle(peer.name) : t.enableTitle(peer.name)}
      description={peer.enabled ? t.disableDescription : t.enableDescription}
      submitLabel={peer.enabled ? t.disable : t.enable}
    >
      <TextField
        label={t.reasonOptional}
        hint={esCatalog.reasonHint}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        disabled={busy}
      />
    </FormDialog>
  );
}
