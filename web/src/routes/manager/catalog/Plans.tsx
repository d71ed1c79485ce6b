import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Plus } from 'lucide-react';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { AdminPlanCreate, AdminPlanPatch } from '@vpn/contracts';
import {
  adminPlansQuery,
  catalogKeys,
  createPlan,
  deletePlan,
  updatePlan,
  type AdminPlan,
  type PlanBody,
} from '../../../api/adminCatalog';
import { errorMessage } from '../../../api/http';
import { ConfirmDialog } from '../../../components/ConfirmDialog';
import { SearchBox, type Column } from '../../../components/DataTable';
import { TextField } from '../../../components/Field';
import { FormDialog } from '../../../components/FormDialog';
import { ui } from '../../../components/ui';
import { formatDataSize } from '../../../lib/format';
import { formatMbit } from '../../../lib/speed';
import { esManager } from '../../../i18n/es.manager';
import { esCatalog } from '../../../i18n/es.manager.catalog';
import { useCan } from '../ManagerLayout';
import { ListView, ManagerPageHeader, StateBadge } from '../shared';
import { firstIssue, PAGE_SIZE, useListParams } from '../listParams';

const t = esCatalog.plans;

/** `/manager/dashboard/plans`: what is sold — create, edit, hide/show, delete (only without invoices). */
export function ManagerPlans() {
  const queryClient = useQueryClient();
  const canWrite = useCan('plans.write');
  const { q, page, onSearch, onPage } = useListParams();
  const plans = useQuery(adminPlansQuery({ q, page, page_size: PAGE_SIZE }));
  const [editing, setEditing] = useState<AdminPlan | 'new' | null>(null);
  const [deleting, setDeleting] = useState<AdminPlan | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: catalogKeys.plans });

  const toggle = useMutation({
    mutationFn: (plan: AdminPlan) => updatePlan(plan.id, { hidden: !plan.hidden }),
    onSuccess: (plan) => {
      toast.success(plan.hidden ? t.hiddenToast(plan.name) : t.shownToast(plan.name));
      void refresh();
    },
    onError: (error) => toast.error(errorMessage(error, esManager.requestError)),
  });
  const remove = useMutation({
    mutationFn: (plan: AdminPlan) => deletePlan(plan.id),
    onSuccess: (_, plan) => {
      toast.success(t.deleted(plan.name));
      void refresh();
    },
    // 409: the plan has invoices — the server's message suggests hiding it.
    onError: (error) => toast.error(errorMessage(error, esManager.requestError), { duration: 8000 }),
  });

  const columns: Column<AdminPlan>[] = [
    {
      key: 'name',
      header: t.columns.name,
      cell: (p) => <span className="font-medium text-white">{p.name}</span>,
    },
    { key: 'price', header: t.columns.price, cell: (p) => esCatalog.usd(p.price) },
    { key: 'validity', header: t.columns.validity, cell: (p) => esCatalog.days(p.validity_days) },
    {
      key: 'data',
      header: t.columns.data,
      cell: (p) => (p.data_gb === null ? t.unlimited : formatDataSize(p.data_gb * 1e9)),
    },
    { key: 'speed', header: t.columns.speed, cell: (p) => <PlanSpeedCell plan={p} /> },
    { key: 'order', header: t.columns.order, cell: (p) => p.sort_order },
    {
      key: 'state',
      header: t.columns.state,
      cell: (p) => <StateBadge ok={!p.hidden}>{p.hidden ? t.hidden : t.visible}</StateBadge>,
    },
    { key: 'invoices', header: t.columns.invoices, cell: (p) => p.invoices },
  ];
  if (canWrite)
    columns.push({
      key: 'actions',
      header: <span className="sr-only">{t.columns.actions}</span>,
      cell: (p) => (
        <div className="flex flex-wrap gap-1">
          <button
            type="button"
            className={ui.buttonGhost}
            onClick={() => setEditing(p)}
            aria-label={`${t.edit} ${p.name}`}
          >
            {t.edit}
          </button>
          <button
            type="button"
            className={ui.buttonGhost}
            disabled={toggle.isPending}
            onClick={() => toggle.mutate(p)}
            aria-label={`${p.hidden ? t.show : t.hide} ${p.name}`}
          >
            {p.hidden ? t.show : t.hide}
          </button>
          <button
            type="button"
            className={ui.buttonGhost}
            onClick={() => setDeleting(p)}
            aria-label={`${t.delete} ${p.name}`}
          >
            {t.delete}
          </button>
        </div>
      ),
    });

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle}>
        {canWrite && (
          <button type="button" className={ui.buttonPrimary} onClick={() => setEditing('new')}>
            <Plus className="size-4" aria-hidden="true" />
            {t.create}
          </button>
        )}
      </ManagerPageHeader>
      <div className="mb-4">
        <SearchBox value={q} onSearch={onSearch} placeholder={t.searchPlaceholder} label={esCatalog.search} />
      </div>
      <ListView
        query={plans}
        page={page}
        onPage={onPage}
        label={t.tableLabel}
        columns={columns}
        rowKey={(p) => p.id}
        empty={q ? t.emptySearch : t.empty}
      />
      {editing !== null && (
        <PlanDialog
          plan={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(plan, created) => {
            setEditing(null);
            toast.success(created ? t.created(plan.name) : t.saved(plan.name));
            void refresh();
          }}
        />
      )}
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => (open ? undefined : setDeleting(null))}
        title={t.deleteTitle}
        description={deleting ? t.deleteDescription(deleting.name) : ''}
        confirmLabel={deleting ? `${t.delete} ${deleting.name}` : t.delete}
        danger
        onConfirm={() => {
          if (deleting) remove.mutate(deleting);
          setDeleting(null);
        }}
      />
    </section>
  );
}

/** A speed field's text from Mbit/s ('' = unlimited). */
const mbitText = (mbit: number | null | undefined) =>
  mbit === null || mbit === undefined ? '' : String(mbit);
/** A decimal field: empty = null (unlimited); a comma is read as the decimal point. */
const optionalNumber = (text: string) => (text.trim() === '' ? null : Number(text.trim().replace(',', '.')));

/** Speed each way and what running out of data or expiring does (issue 35). */
function PlanSpeedCell({ plan }: { plan: AdminPlan }) {
  const each = (mbit: number | null) => (mbit === null ? t.noLimit : formatMbit(mbit));
  const limited = plan.speed_down_mbit !== null || plan.speed_up_mbit !== null;
  const terms =
    plan.on_data_exhausted === 'reduce'
      ? t.reduceTerms(plan.reduced_kbit, plan.grace_days)
      : plan.grace_days > 0
        ? t.graceTerms(plan.reduced_kbit, plan.grace_days)
        : null;
  return (
    <span className="flex flex-col">
      <span>{limited ? t.speed(each(plan.speed_down_mbit), each(plan.speed_up_mbit)) : t.noLimit}</span>
      {terms && <span className="text-xs text-slate-400">{terms}</span>}
    </span>
  );
}

/** Create or edit a plan; checked with the API's own contract first, so its Spanish messages show. */
function PlanDialog({
  plan,
  onClose,
  onSaved,
}: {
  plan: AdminPlan | null;
  onClose: () => void;
  onSaved: (plan: AdminPlan, created: boolean) => void;
}) {
  const f = t.form;
  const [name, setName] = useState(plan?.name ?? '');
  const [description, setDescription] = useState(plan?.description ?? '');
  const [price, setPrice] = useState(plan?.price ?? '');
  const [validity, setValidity] = useState(String(plan?.validity_days ?? 30));
  const [dataGb, setDataGb] = useState(plan?.data_gb === null || !plan ? '' : String(plan.data_gb));
  const [order, setOrder] = useState(String(plan?.sort_order ?? 0));
  const [speedDown, setSpeedDown] = useState(mbitText(plan?.speed_down_mbit));
  const [speedUp, setSpeedUp] = useState(mbitText(plan?.speed_up_mbit));
  const [onExhausted, setOnExhausted] = useState(plan?.on_data_exhausted ?? 'cut');
  const [reducedKbit, setReducedKbit] = useState(String(plan?.reduced_kbit ?? 256));
  const [graceDays, setGraceDays] = useState(String(plan?.grace_days ?? 0));
  const [hidden, setHidden] = useState(plan?.hidden ?? false);
  const [error, setError] = useState<string | null>(null);
  const save = useMutation({
    mutationFn: (body: PlanBody) => (plan ? updatePlan(plan.id, body) : createPlan(body)),
    onSuccess: (saved) => onSaved(saved, plan === null),
    onError: (err) => setError(errorMessage(err, esManager.requestError)),
  });

  function submit() {
    const body = {
      name,
      description,
      price: price.trim().replace(',', '.'),
      validity_days: validity.trim() === '' ? NaN : Number(validity),
      data_gb: dataGb.trim() === '' ? null : Number(dataGb.trim().replace(',', '.')),
      hidden,
      sort_order: order.trim() === '' ? 0 : Number(order),
      speed_down_mbit: optionalNumber(speedDown),
      speed_up_mbit: optionalNumber(speedUp),
      on_data_exhausted: onExhausted,
      reduced_kbit: reducedKbit.trim() === '' ? NaN : Number(reducedKbit),
      grace_days: graceDays.trim() === '' ? 0 : Number(graceDays),
    };
    const issue = firstIssue(plan ? AdminPlanPatch.safeParse(body) : AdminPlanCreate.safeParse(body));
    if (issue) return setError(issue);
    setError(null);
    save.mutate(body);
  }

  const busy = save.isPending;
  return (
    <FormDialog
      onClose={onClose}
      title={plan ? f.editTitle(plan.name) : f.createTitle}
      submitLabel={plan ? f.save : f.create}
      onSubmit={submit}
      busy={busy}
      error={error}
    >
      <TextField label={f.name} value={name} onChange={(e) => setName(e.target.value)} disabled={busy} />
      <TextField
        label={f.description}
        hint={f.descriptionHint}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
        disabled={busy}
      />
      <TextField
        label={f.price}
        hint={f.priceHint}
        inputMode="decimal"
        value={price}
        onChange={(e) => setPrice(e.target.value)}
        disabled={busy}
      />
      <TextField
        label={f.validity}
        inputMode="numeric"
        value={validity}
        onChange={(e) => setValidity(e.target.value)}
        disabled={busy}
      />
      <TextField
        label={f.data}
        hint={f.dataHint}
        inputMode="decimal"
        value={dataGb}
        onChange={(e) => setDataGb(e.target.value)}
        disabled={busy}
      />
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          label={f.speedDown}
          hint={f.speedHint}
          inputMode="decimal"
          value={speedDown}
          onChange={(e) => setSpeedDown(e.target.value)}
          disabled={busy}
        />
        <TextField
          label={f.speedUp}
          hint={f.speedHint}
          inputMode="decimal"
          value={speedUp}
          onChange={(e) => setSpeedUp(e.target.value)}
          disabled={busy}
        />
      </div>
      <label className="block text-sm text-slate-200">
        <span className={ui.label}>{f.onExhausted}</span>
        <select
          className={ui.input}
          value={onExhausted}
          onChange={(e) => setOnExhausted(e.target.value === 'reduce' ? 'reduce' : 'cut')}
          disabled={busy}
        >
          <option value="cut">{f.cut}</option>
          <option value="reduce">{f.reduce}</option>
        </select>
      </label>
      <div className="grid gap-3 sm:grid-cols-2">
        <TextField
          label={f.reducedKbit}
          hint={f.reducedHint}
          inputMode="numeric"
          value={reducedKbit}
          onChange={(e) => setReducedKbit(e.target.value)}
          disabled={busy}
        />
        <TextField
          label={f.graceDays}
          hint={f.graceHint}
          inputMode="numeric"
          value={graceDays}
          onChange={(e) => setGraceDays(e.target.value)}
          disabled={busy}
        />
      </div>
      <TextField
        label={f.order}
        hint={f.orderHint}
        inputMode="numeric"
        value={order}
        onChange={(e) => setOrder(e.target.value)}
        disabled={busy}
      />
      <label className="flex items-center gap-3 text-sm text-slate-200">
        <input
          type="checkbox"
          checked={hidden}
          onChange={(e) => setHidden(e.target.checked)}
          disabled={busy}
          className="size-4 accent-emerald-500"
        />
        {f.hidden}
      </label>
    </FormDialog>
  );
}
