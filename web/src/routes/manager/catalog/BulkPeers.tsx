import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AlertTriangle, ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import type { BulkPeersBody } from '@vpn/contracts';
import { adminPlansQuery, bulkPeers, catalogKeys } from '../../../api/adminCatalog';
import { allServersQuery, fleetKeys } from '../../../api/adminFleet';
import { errorMessage } from '../../../api/http';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { FilterSelect } from '../../../components/DataTable';
import { TextField } from '../../../components/Field';
import { ui } from '../../../components/ui';
import { esBulk } from '../../../i18n/es.manager.bulk';
import { esManager } from '../../../i18n/es.manager';
import { ManagerPageHeader } from '../shared';

const t = esBulk;
type Operation = BulkPeersBody['operation'];
type State = NonNullable<BulkPeersBody['filter']['state']>;
const OPERATIONS: Operation[] = ['extend', 'disable', 'enable', 'move'];
const STATES: State[] = ['active', 'disabled', 'expired'];

/**
 * `/manager/dashboard/peers/bulk` (issue 34): the peers of a filter (server, plan, state) extended
 * by N days, disabled, enabled or moved together. The count that would change is read from the
 * server (a preview) as the form changes; applying asks a red confirmation naming that count, and
 * the server's X-Reauth for the large ones (over 100 peers, any move) through the console's
 * confirmation dialog.
 */
export function ManagerBulkPeers() {
  const queryClient = useQueryClient();
  const servers = useQuery(allServersQuery());
  const plans = useQuery(adminPlansQuery({ page: 1, page_size: 100 }));
  const [server, setServer] = useState('');
  const [plan, setPlan] = useState('');
  const [state, setState] = useState('');
  const [operation, setOperation] = useState<Operation>('extend');
  const [days, setDays] = useState('3');
  const [target, setTarget] = useState('');
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState(false);

  const dayCount = Number(days);
  const daysValid = Number.isInteger(dayCount) && dayCount >= 1 && dayCount <= 365;
  const body: BulkPeersBody | null =
    (operation === 'extend' && !daysValid) || (operation === 'move' && !target)
      ? null
      : {
          filter: {
            ...(server ? { server: Number(server) } : {}),
            ...(plan ? { plan: Number(plan) } : {}),
            ...(state ? { state: state as State } : {}),
          },
          operation,
          ...(operation === 'extend' ? { days: dayCount } : {}),
          ...(operation === 'move' ? { to_server: Number(target) } : {}),
        };

  const preview = useQuery({
    queryKey: ['manager', 'peers', 'bulk-preview', body],
    queryFn: () => bulkPeers({ ...body!, preview: true }),
    enabled: body !== null,
  });

  const apply = useMutation({
    mutationFn: (b: BulkPeersBody) =>
      bulkPeers({ ...b, ...(reason.trim() ? { reason: reason.trim() } : {}) }),
    onSuccess: (answer) => {
      toast.success(t.done(answer.count, answer.customers), { duration: 8000 });
      void queryClient.invalidateQueries({ queryKey: catalogKeys.peers });
      void queryClient.invalidateQueries({ queryKey: fleetKeys.servers });
    },
    // Cancelling the password confirmation leaves the call refused, with the server's sentence.
    onError: (error) => toast.error(errorMessage(error, esManager.requestError), { duration: 8000 }),
  });

  const serverName = (id: string) => servers.data?.find((s) => String(s.id) === id)?.name ?? '';
  const planName = (id: string) => plans.data?.results.find((p) => String(p.id) === id)?.name ?? '';
  const filterWords =
    [
      server && `${t.server.toLowerCase()} ${serverName(server)}`,
      plan && `${t.plan.toLowerCase()} ${planName(plan)}`,
      state && t.states[state as State].toLowerCase(),
    ]
      .filter(Boolean)
      .join(', ') || t.all.toLowerCase();
  const count = preview.data?.count ?? 0;
  const confirmLabel =
    operation === 'extend'
      ? t.confirm.extend(count, dayCount)
      : operation === 'move'
        ? t.confirm.move(count, serverName(target))
        : t.confirm[operation](count);

  const serverOptions = (servers.data ?? []).map((s) => ({ value: String(s.id), label: s.name }));
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <form
        className="grid gap-6 lg:grid-cols-2"
        onSubmit={(e) => {
          e.preventDefault();
          if (body && count > 0) setConfirming(true);
        }}
      >
        <fieldset className={`${ui.card} space-y-4 p-5`}>
          <legend className="sr-only">{t.filterTitle}</legend>
          <h2 className="font-semibold text-white">{t.filterTitle}</h2>
          <FilterSelect
            label={t.server}
            value={server}
            onChange={setServer}
            options={[{ value: '', label: t.all }, ...serverOptions]}
          />
          <FilterSelect
            label={t.plan}
            value={plan}
            onChange={setPlan}
            options={[
              { value: '', label: t.all },
              ...(plans.data?.results ?? []).map((p) => ({ value: String(p.id), label: p.name })),
            ]}
          />
          <FilterSelect
            label={t.state}
            value={state}
            onChange={setState}
            options={[{ value: '', label: t.all }, ...STATES.map((s) => ({ value: s, label: t.states[s] }))]}
          />
        </fieldset>
        <fieldset className={`${ui.card} space-y-4 p-5`}>
          <legend className="sr-only">{t.actionTitle}</legend>
          <h2 className="font-semibold text-white">{t.actionTitle}</h2>
          <FilterSelect
            label={t.operation}
            value={operation}
            onChange={(v) => setOperation(v as Operation)}
            options={OPERATIONS.map((o) => ({ value: o, label: t.operations[o] }))}
          />
          {operation === 'extend' && (
            <TextField
              label={t.days}
              hint={t.daysHint}
              type="number"
              inputMode="numeric"
              min={1}
              max={365}
              value={days}
              onChange={(e) => setDays(e.target.value)}
              aria-invalid={!daysValid}
            />
          )}
          {operation === 'move' && (
            <FilterSelect
              label={t.target}
              value={target}
              onChange={setTarget}
              options={[
                { value: '', label: t.chooseTarget },
                ...serverOptions.filter((s) => s.value !== server),
              ]}
            />
          )}
          <TextField
            label={t.reason}
            placeholder={t.reasonPlaceholder}
            maxLength={300}
            value={reason}
            onChange={(e) => setReason(e.target.value)}
          />
        </fieldset>
        <div className={`${ui.card} p-5 lg:col-span-2`}>
          <h2 className="mb-2 font-semibold text-white">{t.previewTitle}</h2>
          <p role="status" aria-live="polite" className="text-lg text-slate-100">
            {body === null
              ? operation === 'move'
                ? t.chooseTarget
                : t.daysHint
              : preview.isFetching && !preview.data
                ? t.counting
                : preview.isError
                  ? errorMessage(preview.error, esManager.requestError)
                  : t.willChange(count)}
          </p>
          {operation === 'enable' && <p className="mt-1 text-sm text-slate-400">{t.enableNote}</p>}
          {operation === 'move' && <p className="mt-1 text-sm text-slate-400">{t.moveNote}</p>}
          {preview.data?.reauth && count > 0 && (
            <p className="mt-2 flex items-center gap-2 text-sm text-amber-200">
              <ShieldCheck className="size-4" aria-hidden="true" />
              {t.reauthNote}
            </p>
          )}
          <button
            type="submit"
            className={`${ui.buttonDanger} mt-4`}
            disabled={!body || count === 0 || preview.isFetching || apply.isPending}
          >
            <AlertTriangle className="size-4" aria-hidden="true" />
            {t.apply}
          </button>
        </div>
      </form>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={t.confirmTitle}
        description={t.confirmBody(filterWords)}
        confirmLabel={confirmLabel}
        danger
        onConfirm={() => {
          if (!body) return;
          apply.mutate(body, {
            onSettled: () =>
              void queryClient.invalidateQueries({ queryKey: ['manager', 'peers', 'bulk-preview'] }),
          });
        }}
      />
    </section>
  );
}
