import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { FileDown } from 'lucide-react';
import { lazy, Suspense, useRef, type KeyboardEvent } from 'react';
import toast from 'react-hot-toast';
import { useNavigate, useSearchParams } from 'react-router';
import { InvoiceStatus } from '@vpn/contracts';
import { exportInvoicesCsv } from '../../../api/adminBilling';
import { invoiceKeys, invoicesQuery, type AdminInvoice, type ListParams } from '../../../api/adminCustomers';
import { errorMessage } from '../../../api/http';
import { useAdminPush } from '../../../api/RealtimeProvider';
import { FilterSelect, SearchBox, type Column } from '../../../components/DataTable';
import { LoadingBlock } from '../../../components/LoadingScreen';
import { Spinner } from '../../../components/Spinner';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { saveBlob } from '../../../lib/download';
import { useCan } from '../ManagerLayout';
import { ListView, ManagerPageHeader } from '../shared';
import { InvoiceState, useListParams } from './shared';

// The revenue table and the payments without an open invoice are their own chunk, fetched (with
// their data) only when their tab is opened.
const RevenuePanel = lazy(() => import('./Finance').then((m) => ({ default: m.RevenuePanel })));
const UnmatchedPanel = lazy(() => import('./Finance').then((m) => ({ default: m.UnmatchedPanel })));

const t = esCustomers.invoices;
const b = esCustomers.billing;

export const invoiceColumns: Column<AdminInvoice>[] = [
  { key: 'created', header: t.columns.created, cell: (i) => esCustomers.dateTime(i.created) },
  { key: 'customer', header: t.columns.customer, cell: (i) => i.customer.username },
  {
    key: 'peer',
    header: t.columns.peer,
    cell: (i) => i.peer?.name ?? (i.new_peer_name ? t.newPeer(i.new_peer_name) : '—'),
  },
  { key: 'plan', header: t.columns.plan, cell: (i) => i.plan_name },
  {
    key: 'amount',
    header: t.columns.amount,
    cell: (i) => esCustomers.amount(i.amount, i.currency),
    className: 'text-right tabular-nums',
  },
  { key: 'gateway', header: t.columns.gateway, cell: (i) => esCustomers.gateways[i.gateway] ?? i.gateway },
  { key: 'state', header: t.columns.state, cell: (i) => <InvoiceState status={i.status} /> },
];

const TABS = ['list', 'revenue', 'unmatched'] as const;
type Tab = (typeof TABS)[number];

/**
 * `/manager/dashboard/invoices`: the invoices (search, state and gateway filters, pages). Roles with
 * `revenue.read` (owner, finance) also get 'Exportar CSV' of the list as filtered, and two more tabs:
 * the monthly revenue per gateway and the payments without an open invoice (`?tab=`, so a tab can be
 * linked). Live: an `admin_invoice` push (an invoice created or changed state) re-reads the list.
 */
export function ManagerInvoices() {
  const finance = useCan('revenue.read');
  const [search, setSearch] = useSearchParams();
  const asked = search.get('tab') as Tab | null;
  const tab: Tab = finance && asked && TABS.includes(asked) ? asked : 'list';
  const select = (next: Tab) =>
    setSearch(
      (prev) => {
        const params = new URLSearchParams(prev);
        if (next === 'list') params.delete('tab');
        else params.set('tab', next);
        return params;
      },
      { replace: true },
    );
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={tab === 'list' ? t.subtitle : undefined} />
      {finance && <Tabs current={tab} onSelect={select} />}
      <div
        role={finance ? 'tabpanel' : undefined}
        id={finance ? `invoices-panel-${tab}` : undefined}
        aria-labelledby={finance ? `invoices-tab-${tab}` : undefined}
      >
        {tab === 'list' ? (
          <InvoiceList exportable={finance} />
        ) : (
          <Suspense fallback={<LoadingBlock label={esManager.loading} />}>
            {tab === 'revenue' ? <RevenuePanel /> : <UnmatchedPanel />}
          </Suspense>
        )}
      </div>
    </section>
  );
}

/** Facturas' sections as tabs (arrow keys, Home and End move between them). */
function Tabs({ current, onSelect }: { current: Tab; onSelect: (tab: Tab) => void }) {
  const buttons = useRef<(HTMLButtonElement | null)[]>([]);
  const index = TABS.indexOf(current);
  function onKeyDown(event: KeyboardEvent) {
    const last = TABS.length - 1;
    const moves: Record<string, number> = {
      ArrowRight: index === last ? 0 : index + 1,
      ArrowLeft: index === 0 ? last : index - 1,
      Home: 0,
      End: last,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    onSelect(TABS[next] ?? 'list');
    buttons.current[next]?.focus();
  }
  return (
    <div
      role="tablist"
      aria-label={b.tabsLabel}
      className="mb-5 flex flex-wrap gap-2 border-b border-slate-800 pb-3"
      onKeyDown={onKeyDown}
    >
      {TABS.map((tab, i) => (
        <button
          key={tab}
          ref={(el) => {
            buttons.current[i] = el;
          }}
          type="button"
          role="tab"
          id={`invoices-tab-${tab}`}
          aria-selected={tab === current}
          aria-controls={`invoices-panel-${tab}`}
          tabIndex={tab === current ? 0 : -1}
          onClick={() => onSelect(tab)}
          className={`rounded-lg px-3 py-1.5 text-sm font-medium transition ${
            tab === current
              ? 'bg-emerald-500/15 text-emerald-300'
              : 'text-slate-300 hover:bg-white/5 hover:text-white'
          }`}
        >
          {b.tabs[tab]}
        </button>
      ))}
    </div>
  );
}

function InvoiceList({ exportable }: { exportable: boolean }) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, update] = useListParams();
  const list = useQuery(invoicesQuery(params));
  useAdminPush((m) => {
    if (m.type === 'admin_invoice') void queryClient.invalidateQueries({ queryKey: invoiceKeys.all });
  });
  return (
    <>
      <div className="mb-4 flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <SearchBox
          value={params.q ?? ''}
          onSearch={(q) => update({ q })}
          placeholder={t.searchPlaceholder}
          label={t.search}
        />
        <div className="flex flex-wrap items-center gap-3">
          <FilterSelect
            label={t.stateFilter}
            value={params.state ?? ''}
            onChange={(state) => update({ state })}
            options={[
              { value: '', label: t.all },
              ...InvoiceStatus.options.map((s) => ({ value: s, label: esCustomers.states[s] ?? s })),
            ]}
          />
          <FilterSelect
            label={t.gatewayFilter}
            value={params.gateway ?? ''}
            onChange={(gateway) => update({ gateway })}
            options={[
              { value: '', label: t.all },
              ...Object.entries(esCustomers.gateways).map(([value, label]) => ({ value, label })),
            ]}
          />
          {exportable && <ExportButton filters={params} />}
        </div>
      </div>
      <ListView
        query={list}
        page={params.page}
        onPage={(page) => update({ page })}
        label={t.tableLabel}
        columns={invoiceColumns}
        rowKey={(i) => i.id}
        empty={t.empty}
        onRowClick={(i) => void navigate(`/manager/dashboard/invoices/${i.id}`)}
      />
    </>
  );
}

/** 'Exportar CSV': every invoice matching the list's filters, saved under the server's file name. */
function ExportButton({ filters }: { filters: ListParams }) {
  const download = useMutation({
    mutationFn: () => exportInvoicesCsv({ q: filters.q, state: filters.state, gateway: filters.gateway }),
    onSuccess: ({ fileName, blob }) => saveBlob(fileName, blob),
    onError: (error) => toast.error(errorMessage(error, b.exportError)),
  });
  return (
    <button
      type="button"
      className={ui.buttonSecondary}
      title={b.exportTitle}
      disabled={download.isPending}
      onClick={() => download.mutate()}
    >
      {download.isPending ? (
        <Spinner className="size-4" />
      ) : (
        <FileDown className="size-4" aria-hidden="true" />
      )}
      {download.isPending ? b.exporting : b.exportCsv}
    </button>
  );
}
