import { useQuery } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { customersQuery, type AdminCustomer } from '../../../api/adminCustomers';
import { FilterSelect, SearchBox, type Column } from '../../../components/DataTable';
import { esCustomers } from '../../../i18n/es.manager.customers';
import { ListView, ManagerPageHeader, StateBadge } from '../shared';
import { useListParams } from './shared';

const t = esCustomers.customers;

const columns: Column<AdminCustomer>[] = [
  {
    key: 'username',
    header: t.columns.username,
    cell: (c) => <span className="font-medium">{c.username}</span>,
  },
  {
    key: 'email',
    header: t.columns.email,
    cell: (c) =>
      c.email ? (
        <span>
          {c.email}{' '}
          <span className="text-xs text-slate-400">({c.email_verified ? t.verified : t.unverified})</span>
        </span>
      ) : (
        '—'
      ),
  },
  { key: 'alias', header: t.columns.alias, cell: (c) => c.alias ?? '—' },
  { key: 'peers', header: t.columns.peers, cell: (c) => t.peersCount(c.live_peers, c.peers) },
  {
    key: 'state',
    header: t.columns.state,
    cell: (c) => <StateBadge ok={!c.disabled}>{c.disabled ? t.disabled : t.active}</StateBadge>,
  },
  { key: 'created', header: t.columns.created, cell: (c) => esCustomers.dateTime(c.created) },
];

/** `/manager/dashboard/customers`: search by username, e-mail or alias; filter by state; pages. */
export function ManagerCustomers() {
  const navigate = useNavigate();
  const [params, update] = useListParams();
  const list = useQuery(customersQuery(params));
  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      <div className="mb-4 flex flex-col gap-3 sm:flex-row sm:items-center sm:justify-between">
        <SearchBox
          value={params.q ?? ''}
          onSearch={(q) => update({ q })}
          placeholder={t.searchPlaceholder}
          label={t.search}
        />
        <FilterSelect
          label={t.stateFilter}
          value={params.state ?? ''}
          onChange={(state) => update({ state })}
          options={[
            { value: '', label: t.states.all },
            { value: 'active', label: t.states.active },
            { value: 'disabled', label: t.states.disabled },
          ]}
        />
      </div>
      <ListView
        query={list}
        page={params.page}
        onPage={(page) => update({ page })}
        label={t.tableLabel}
        columns={columns}
        rowKey={(c) => c.id}
        empty={t.empty}
        onRowClick={(c) => void navigate(`/manager/dashboard/customers/${c.id}`)}
      />
    </section>
  );
}
