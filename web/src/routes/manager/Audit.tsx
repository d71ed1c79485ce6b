import { useInfiniteQuery } from '@tanstack/react-query';
import { AUDIT_PAGE_SIZE, adminKeys, fetchAudit } from '../../api/admin';
import type { AuditEntry } from '../../api/admin';
import { ErrorPanel } from '../../components/ErrorPanel';
import { LoadingBlock } from '../../components/LoadingScreen';
import { Spinner } from '../../components/Spinner';
import { ui } from '../../components/ui';
import { esManager } from '../../i18n/es.manager';
import { ManagerPageHeader, tableClass, tdClass, thClass } from './shared';

const t = esManager.audit;
const dateTime = new Intl.DateTimeFormat('es-ES', { dateStyle: 'medium', timeStyle: 'short' });

function when(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

/** `/manager/dashboard/audit`: the audit log, newest first, 'Cargar más' for older entries. */
export function ManagerAudit() {
  const audit = useInfiniteQuery({
    queryKey: adminKeys.audit,
    queryFn: ({ pageParam, signal }) => fetchAudit(pageParam, signal),
    initialPageParam: null as number | null,
    getNextPageParam: (last: AuditEntry[]) =>
      last.length < AUDIT_PAGE_SIZE ? undefined : (last[last.length - 1]?.id ?? undefined),
  });

  let body;
  if (audit.isPending) body = <LoadingBlock label={esManager.loading} />;
  else if (audit.isError)
    body = <ErrorPanel message={esManager.loadError} onRetry={() => void audit.refetch()} />;
  else {
    const entries = audit.data.pages.flat();
    body =
      entries.length === 0 ? (
        <p className={`${ui.card} p-8 text-center text-slate-300`}>{t.empty}</p>
      ) : (
        <>
          <AuditTable entries={entries} />
          {audit.hasNextPage && (
            <div className="mt-4 flex justify-center">
              <button
                type="button"
                className={ui.buttonSecondary}
                disabled={audit.isFetchingNextPage}
                onClick={() => void audit.fetchNextPage()}
              >
                {audit.isFetchingNextPage && <Spinner className="size-4" />}
                {t.loadMore}
              </button>
            </div>
          )}
        </>
      );
  }

  return (
    <section>
      <ManagerPageHeader title={t.title} subtitle={t.subtitle} />
      {body}
    </section>
  );
}

function AuditTable({ entries }: { entries: AuditEntry[] }) {
  const c = t.columns;
  return (
    <div className={`${ui.card} overflow-x-auto`}>
      <table className={tableClass} aria-label={t.tableLabel}>
        <thead className="border-b border-slate-800">
          <tr>
            {[c.created, c.manager, c.action, c.target, c.fields, c.ip].map((label) => (
              <th key={label} scope="col" className={thClass}>
                {label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td className={`${tdClass} whitespace-nowrap`}>{when(entry.created)}</td>
              <td className={tdClass}>{entry.manager ?? '—'}</td>
              <td className={`${tdClass} font-mono text-xs`}>{entry.action}</td>
              <td className={tdClass}>{entry.target ?? '—'}</td>
              <td className={tdClass}>{entry.fields.length > 0 ? entry.fields.join(', ') : '—'}</td>
              <td className={`${tdClass} font-mono text-xs`}>{entry.ip ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
