import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { PAGE_SIZE } from '../../api/adminList';
import { DataTable, type DataTableProps } from '../../components/DataTable';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { esManager as t } from '../../i18n/es.manager';

/** Console pages use the dashboard's title block. */
export { PageHeader as ManagerPageHeader } from '../dashboard/PageHeader';

/** Renders 'Cargando información...', the load error with a retry, or the data. */
export function QueryView<T>({
  query,
  children,
}: {
  query: UseQueryResult<T>;
  children: (data: T) => ReactNode;
}) {
  if (query.isPending) return <LoadingBlock label={t.loading} />;
  if (query.isError) return <ErrorPanel message={t.loadError} onRetry={() => void query.refetch()} />;
  return <>{children(query.data)}</>;
}

/**
 * A console list: the query's loading and error states, then its page of rows in the shared table,
 * dimmed while the next page or search loads, with the pager under it.
 */
export function ListView<T>({
  query,
  page,
  onPage,
  ...table
}: Omit<DataTableProps<T>, 'rows' | 'stale' | 'pagination'> & {
  query: UseQueryResult<{ count: number; results: T[] }>;
  page: number;
  onPage: (page: number) => void;
}) {
  return (
    <QueryView query={query}>
      {(data) => (
        <DataTable
          {...table}
          rows={data.results}
          stale={query.isPlaceholderData}
          pagination={{ page, pageSize: PAGE_SIZE, count: data.count, onPage }}
        />
      )}
    </QueryView>
  );
}

/** An on/off switch (role="switch"), labelled by `label`. */
export function Switch({
  checked,
  label,
  disabled,
  onChange,
}: {
  checked: boolean;
  label: string;
  disabled?: boolean;
  onChange: (next: boolean) => void;
}) {
  return (
    <button
      type="button"
      role="switch"
      aria-checked={checked}
      aria-label={label}
      disabled={disabled}
      onClick={() => onChange(!checked)}
      className={`relative inline-flex h-6 w-11 shrink-0 items-center rounded-full transition disabled:cursor-not-allowed disabled:opacity-60 ${
        checked ? 'bg-emerald-500' : 'bg-slate-600'
      }`}
    >
      <span
        aria-hidden="true"
        className={`inline-block size-5 rounded-full bg-white shadow transition ${
          checked ? 'translate-x-5.5' : 'translate-x-0.5'
        }`}
      />
    </button>
  );
}

export function StateBadge({ ok, children }: { ok: boolean; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center gap-1.5 rounded-full px-2.5 py-0.5 text-xs font-semibold ${
        ok ? 'bg-emerald-500/15 text-emerald-300' : 'bg-slate-500/20 text-slate-300'
      }`}
    >
      <span
        className={`size-1.5 rounded-full ${ok ? 'bg-emerald-400' : 'bg-slate-400'}`}
        aria-hidden="true"
      />
      {children}
    </span>
  );
}
