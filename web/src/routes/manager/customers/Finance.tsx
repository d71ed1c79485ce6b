/**
 * Facturas' finance tabs (owner and finance, `revenue.read`): the month-by-month revenue per gateway
 * and the payments that arrived without an open invoice. A chunk of its own, loaded when a tab opens.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import toast from 'react-hot-toast';
import { Link } from 'react-router';
import {
  billingKeys,
  resolveUnmatched,
  revenueQuery,
  unmatchedQuery,
  type RevenueTable,
  type UnmatchedParams,
  type UnmatchedPayment,
} from '../../../api/adminBilling';
import { errorMessage } from '../../../api/http';
import { useAdminPush } from '../../../api/RealtimeProvider';
import { DataTable, FilterSelect, SearchBox, type Column } from '../../../components/DataTable';
import { ui } from '../../../components/ui';
import { esManager } from '../../../i18n/es.manager';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { useCan } from '../ManagerLayout';
import { ListView, QueryView } from '../shared';
import { ReasonDialog } from './shared';

const b = esCustomers.billing;
const usd = (amount: string) => esCustomers.amount(amount, 'USD');
const gatewayName = (g: string) => esCustomers.gateways[g] ?? g;

/**
 * Money changes whenever an invoice does, and when a payment that credited nothing arrives or is
 * settled: the tabs re-read on an `admin_invoice` or `admin_payment` push.
 */
function useBillingPush() {
  const queryClient = useQueryClient();
  useAdminPush((m) => {
    if (m.type === 'admin_invoice' || m.type === 'admin_payment')
      void queryClient.invalidateQueries({ queryKey: ['manager', 'billing'] });
  });
}

// ---------------------------------------------------------------------------------------------
// Revenue

const MONTHS = [3, 6, 12, 24] as const;

/** A line of the table: one month and gateway, or the totals line under them. */
interface RevenueLine {
  key: string;
  month: string;
  gateway: string;
  paid: string;
  refunded: string;
  net: string;
  paid_count: number;
  refunded_count: number;
  total: boolean;
}

function linesOf(table: RevenueTable): RevenueLine[] {
  if (table.rows.length === 0) return [];
  const lines: RevenueLine[] = table.rows.map((r) => ({
    ...r,
    key: `${r.month}-${r.gateway}`,
    month: b.month(r.month),
    gateway: gatewayName(r.gateway),
    total: false,
  }));
  lines.push({
    key: 'total',
    month: b.total,
    gateway: b.allGateways,
    ...table.totals,
    paid_count: table.rows.reduce((n, r) => n + r.paid_count, 0),
    refunded_count: table.rows.reduce((n, r) => n + r.refunded_count, 0),
    total: true,
  });
  return lines;
}

function Money({
  amount,
  count,
  words,
}: {
  amount: string;
  count?: number;
  words?: readonly [string, string];
}) {
  return (
    <span>
      {usd(amount)}
      {count !== undefined && words && (
        <span className="block text-xs text-slate-400">{b.count(count, words[0], words[1])}</span>
      )}
    </span>
  );
}

const revenueColumns: Column<RevenueLine>[] = [
  {
    key: 'month',
    header: b.revenueColumns.month,
    cell: (l) => (l.total ? <strong>{l.month}</strong> : l.month),
  },
  { key: 'gateway', header: b.revenueColumns.gateway, cell: (l) => l.gateway },
  {
    key: 'paid',
    header: b.revenueColumns.paid,
    cell: (l) => <Money amount={l.paid} count={l.paid_count} words={b.payments} />,
    className: 'text-right tabular-nums',
  },
  {
    key: 'refunded',
    header: b.revenueColumns.refunded,
    cell: (l) => <Money amount={l.refunded} count={l.refunded_count} words={b.refunds} />,
    className: 'text-right tabular-nums',
  },
  {
    key: 'net',
    header: b.revenueColumns.net,
    cell: (l) => <strong className="font-semibold text-white">{usd(l.net)}</strong>,
    className: 'text-right tabular-nums',
  },
];

/** 'Ingresos por mes': paid, refunded and net per month (UTC) and gateway, with the totals last. */
export function RevenuePanel() {
  const [months, setMonths] = useState<number>(12);
  const revenue = useQuery(revenueQuery(months));
  useBillingPush();
  return (
    <div>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-start sm:justify-between">
        <div>
          <h2 className="text-lg font-semibold text-white">{b.revenueTitle}</h2>
          <p className="mt-1 text-sm text-slate-400">{b.revenueSubtitle}</p>
        </div>
        <FilterSelect
          label={b.monthsFilter}
          value={String(months)}
          onChange={(value) => setMonths(Number(value))}
          options={MONTHS.map((n) => ({ value: String(n), label: b.monthsOption(n) }))}
        />
      </div>
      <QueryView query={revenue}>
        {(table) => (
          <DataTable
            label={b.revenueLabel}
            columns={revenueColumns}
            rows={linesOf(table)}
            rowKey={(l) => l.key}
            rowHeader
            cardTitle={(l) => (l.total ? l.month : `${l.month} · ${l.gateway}`)}
            empty={b.revenueEmpty}
            stale={revenue.isPlaceholderData}
          />
        )}
      </QueryView>
    </div>
  );
}

// ---------------------------------------------------------------------------------------------
// Payments without an open invoice

/** 'Pagos sin factura abierta': the gateway's reference, amount and reason; 'Marcar resuelto'. */
export function UnmatchedPanel() {
  const queryClient = useQueryClient();
  const canWrite = useCan('invoices.write');
  const [params, setParams] = useState<UnmatchedParams>({ q: '', resolved: 'false', page: 1 });
  const [resolving, setResolving] = useState<UnmatchedPayment | null>(null);
  const list = useQuery(unmatchedQuery(params));
  useBillingPush();
  const resolve = useMutation({
    mutationFn: ({ id, reason }: { id: number; reason: string }) => resolveUnmatched(id, reason),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: billingKeys.unmatchedAll });
      setResolving(null);
      toast.success(b.resolved);
    },
  });
  const c = b.unmatchedColumns;
  const columns: Column<UnmatchedPayment>[] = [
    { key: 'created', header: c.created, cell: (p) => esCustomers.dateTime(p.created) },
    { key: 'reference', header: c.reference, cell: (p) => <code className="break-all">{p.reference}</code> },
    { key: 'gateway', header: c.gateway, cell: (p) => gatewayName(p.gateway) },
    {
      key: 'amount',
      header: c.amount,
      cell: (p) => (p.amount ? esCustomers.amount(p.amount, p.currency ?? 'USD') : '—'),
      className: 'text-right tabular-nums',
    },
    {
      key: 'invoice',
      header: c.invoice,
      cell: (p) =>
        p.invoice_id ? (
          <Link className={ui.link} to={`/manager/dashboard/invoices/${encodeURIComponent(p.invoice_id)}`}>
            {b.openInvoice}
          </Link>
        ) : (
          '—'
        ),
    },
    { key: 'reason', header: c.reason, cell: (p) => p.reason ?? p.gateway_status },
    {
      key: 'state',
      header: c.state,
      cell: (p) =>
        p.resolved ? (
          b.resolvedOn(esCustomers.dateTime(p.resolved))
        ) : canWrite ? (
          <button
            type="button"
            className={ui.buttonSecondary}
            aria-label={b.resolveLabel(p.reference)}
            onClick={() => setResolving(p)}
          >
            {b.resolve}
          </button>
        ) : (
          b.pending
        ),
    },
  ];
  return (
    <div>
      <div className="mb-4">
        <h2 className="text-lg font-semibold text-white">{b.unmatchedTitle}</h2>
        <p className="mt-1 max-w-3xl text-sm text-slate-400">{b.unmatchedSubtitle}</p>
      </div>
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <SearchBox
          value={params.q}
          onSearch={(q) => setParams((p) => ({ ...p, q, page: 1 }))}
          placeholder={b.searchReference}
          label={b.searchReferenceLabel}
        />
        <FilterSelect
          label={b.resolvedFilter}
          value={params.resolved || 'all'}
          onChange={(value) =>
            setParams((p) => ({
              ...p,
              resolved: value === 'all' ? '' : (value as 'true' | 'false'),
              page: 1,
            }))
          }
          options={[
            { value: 'false', label: b.resolvedOptions.false },
            { value: 'true', label: b.resolvedOptions.true },
            { value: 'all', label: b.resolvedOptions.all },
          ]}
        />
      </div>
      <ListView
        query={list}
        page={params.page}
        onPage={(page) => setParams((p) => ({ ...p, page }))}
        label={b.unmatchedLabel}
        columns={columns}
        rowKey={(p) => p.id}
        cardTitle={(p) => `${gatewayName(p.gateway)} · ${p.reference}`}
        empty={b.unmatchedEmpty}
      />
      <ReasonDialog
        open={resolving !== null}
        onOpenChange={(open) => {
          if (!open) {
            setResolving(null);
            resolve.reset();
          }
        }}
        title={b.resolveTitle}
        description={
          resolving
            ? b.resolveDescription(
                resolving.reference,
                resolving.amount ? esCustomers.amount(resolving.amount, resolving.currency ?? 'USD') : '—',
              )
            : ''
        }
        submitLabel={b.resolve}
        required
        busy={resolve.isPending}
        error={resolve.error ? errorMessage(resolve.error, esManager.requestError) : null}
        onSubmit={(reason) => resolving && resolve.mutate({ id: resolving.id, reason: reason ?? '' })}
      />
    </div>
  );
}
