import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Radio, X } from 'lucide-react';

import { allManagersQuery, auditQuery, managerKeys, type AuditEntry } from '../../api/adminManagers';
import { useListParams } from './listParams';
import { useAdminPush } from '../../api/RealtimeProvider';
import { FilterSelect, SearchBox, type Column } from '../../components/DataTable';
import { esManagers } from '../../i18n/es.manager.managers';
import { useCan } from './ManagerLayout';
import { ListView, ManagerPageHeader } from './shared';

const t = esManagers.audit;
const dateTime = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium', timeStyle: 'medium' });

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** A recorded value as the operator reads it: text as is, booleans as sí/no, nothing as 'vacío'. */
function value(v: unknown): string {
  if (v === null || v === undefined || v === '') return t.empty_value;
  if (typeof v === 'boolean') return v ? t.yes : t.no;
  if (typeof v === 'string' || typeof v === 'number') return String(v);
  return JSON.stringify(v);
}

const targetLabel = (type: string | null) => (type ? (t.targets[type] ?? type) : '—');

/**
 * `/manager/dashboard/audit`: every change made from the console, newest first, with each changed
 * field's value before and after. Filters (manager, target) and the search live in the URL, so a
 * filtered view can be linked; new entries arrive live (`admin_audit` pushes).
 */
export function ManagerAudit() {
  const list = useListParams(['manager', 'target_type', 'target_id'] as const);
  const { update, onSearch } = list;
  const filters = { q: list.q, ...list.filters, page: list.page };
  const query = useQuery(auditQuery(filters));
  const canListManagers = useCan('managers.manage');
  const managers = useQuery({ ...allManagersQuery(), enabled: canListManagers });
  const queryClient = useQueryClient();

  // The live tail: a new entry refreshes the list (the push carries only its id).
  useAdminPush((message) => {
    if (message.type === 'admin_audit') void queryClient.invalidateQueries({ queryKey: managerKeys.audit });
  });

  const columns: Column<AuditEntry>[] = [
    {
      key: 'created',
      header: t.columns.created,
      className: 'whitespace-nowrap',
      cell: (e) => <time dateTime={e.created}>{when(e.created)}</time>,
    },
    { key: 'manager', header: t.columns.manager, cell: (e) => e.manager ?? t.system },
    {
      key: 'action',
      header: t.columns.action,
      cell: (e) => (
        <div>
          <p className="text-sm text-white">{e.summary}</p>
          {e.reason && (
            <p className="mt-1 text-xs text-slate-400">
              {t.reason}: {e.reason}
            </p>
          )}
        </div>
      ),
    },
    {
      key: 'target',
      header: t.columns.target,
      cell: (e) =>
        e.target_type && e.target_id ? (
          <button
            type="button"
            className="text-left hover:underline"
            title={t.showTarget(`${targetLabel(e.target_type)} ${e.target_id}`)}
            onClick={() => update({ target_type: e.target_type ?? '', target_id: e.target_id ?? '' })}
          >
            {targetLabel(e.target_type)} {e.target_id}
          </button>
        ) : (
          targetLabel(e.target_type)
        ),
    },
    { key: 'changes', header: t.columns.changes, cell: (e) => <Changes entry={e} /> },
  ];

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle}>
        <span className="inline-flex items-center gap-1.5 text-sm text-emerald-300">
          <Radio className="size-4" aria-hidden="true" />
          {t.live}
        </span>
      </ManagerPageHeader>
      <div className="mb-4 flex flex-col flex-wrap gap-3 sm:flex-row sm:items-center">
        <SearchBox value={filters.q} onSearch={onSearch} placeholder={t.search} label={t.searchLabel} />
        {canListManagers && (
          <FilterSelect
            label={t.managerFilter}
            value={filters.manager}
            onChange={(manager) => update({ manager })}
            options={[
              { value: '', label: t.all },
              ...(managers.data?.results ?? []).map((m) => ({ value: String(m.id), label: m.username })),
            ]}
          />
        )}
        <FilterSelect
          label={t.targetFilter}
          value={filters.target_type}
          onChange={(target_type) => update({ target_type, target_id: '' })}
          options={[
            { value: '', label: t.all },
            ...Object.entries(t.targets).map(([value, label]) => ({ value, label })),
          ]}
        />
        {filters.target_id && (
          <button
            type="button"
            onClick={() => update({ target_id: '' })}
            className="inline-flex items-center gap-1 rounded-full bg-white/10 px-3 py-1 text-sm text-slate-200 hover:bg-white/15"
            aria-label={t.clearTarget}
          >
            {t.targetId}: {filters.target_id}
            <X className="size-3.5" aria-hidden="true" />
          </button>
        )}
      </div>
      <ListView
        query={query}
        page={filters.page}
        onPage={(page) => update({ page })}
        label={t.tableLabel}
        columns={columns}
        rowKey={(e) => e.id}
        empty={t.empty}
        cardTitle={(e) => `${when(e.created)} · ${e.manager ?? t.system}`}
      />
    </section>
  );
}

/**
 * Each changed field in words ("Salas: sí → no", from the server), and the change as it was
 * recorded, field codes and raw values, behind a disclosure for those who want it (issue 34).
 */
function Changes({ entry }: { entry: AuditEntry }) {
  const changes = Object.entries(entry.changes);
  const fields = Array.isArray(entry.extra?.fields) ? (entry.extra.fields as unknown[]).map(String) : [];
  if (changes.length === 0)
    return (
      <span className="text-slate-400">
        {fields.length > 0 ? `${t.fields}: ${fields.join(', ')}` : t.noChanges}
      </span>
    );
  return (
    <div className="text-xs">
      <ul className="space-y-0.5">
        {entry.details.map((line) => (
          <li key={line}>{line}</li>
        ))}
      </ul>
      <details className="mt-1">
        <summary className="cursor-pointer text-slate-400 hover:text-slate-200">{t.raw}</summary>
        <ul className="mt-1 space-y-0.5">
          <li className="font-mono text-slate-400">{entry.action}</li>
          {changes.map(([field, change]) => (
            <li key={field}>
              <span className="font-mono text-slate-400">{field}</span>:{' '}
              <span className="text-rose-200">{value(change.before)}</span>
              {' → '}
              <span className="text-emerald-200">{value(change.after)}</span>
            </li>
          ))}
        </ul>
      </details>
    </div>
  );
}
