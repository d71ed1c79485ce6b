import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { InvoiceStatus } from '@vpn/contracts';
import { invoiceKeys, invoicesQuery, type AdminInvoice } from '../../../api/adminCustomers';
import { useAdminPush } from '../../../api/RealtimeProvider';
import { FilterSelect, SearchBox, type Column } from '../../../components/DataTable';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { ListView, ManagerPageHeader } from '../shared';
import { InvoiceState, useListParams } from './shared';

const t = esCustomers.invoices;

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

/**
 * `/manager/dashboard/invoices`: search (username, peer name, remote id), state and gateway filters,
 * pages. Live: an `admin_invoice` push (an invoice created or changed state) re-reads the list.
 */
export function ManagerInvoices() {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [params, update] = useListParams();
  const list = useQuery(invoicesQuery(params));
  useAdminPush((m) => {
    if (m.type === 'admin_invoice') void queryClient.invalidateQueries({ queryKey: invoiceKeys.all });
  });
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <div className="mb-4 flex flex-col gap-3 lg:flex-row lg:items-center lg:justify-between">
        <SearchBox
          value={params.q ?? ''}
          onSearch={(q) => update({ q })}
          placeholder={t.searchPlaceholder}
          label={t.search}
        />
        <div className="flex flex-wrap gap-3">
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
    </section>
  );
}
