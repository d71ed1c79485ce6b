import { useCallback } from 'react';
import { useSearchParams } from 'react-router';

export { PAGE_SIZE } from '../../api/adminList';

/**
 * A console list's search, page and filters, kept in the URL's query string so a list can be
 * linked and survives a reload. Changing the search or a filter goes back to page 1.
 */
export function useListParams<K extends string>(filterKeys: readonly K[] = []) {
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const page = Math.max(1, Math.floor(Number(params.get('page'))) || 1);
  const filters = Object.fromEntries(filterKeys.map((k) => [k, params.get(k) ?? ''])) as Record<K, string>;
  const update = useCallback(
    (patch: Record<string, string | number | undefined>) => {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev);
          if (!('page' in patch)) next.delete('page');
          for (const [key, value] of Object.entries(patch)) {
            if (value === undefined || value === '' || (key === 'page' && value === 1)) next.delete(key);
            else next.set(key, String(value));
          }
          return next;
        },
        { replace: true },
      );
    },
    [setParams],
  );
  const onSearch = useCallback((text: string) => update({ q: text }), [update]);
  const onPage = useCallback((n: number) => update({ page: n }), [update]);
  return { q, page, filters, update, onSearch, onPage };
}

/** The first message of a failed contract check (the same Spanish texts the server answers with). */
export function firstIssue(result: { success: boolean; error?: { issues: { message: string }[] } }) {
  return result.success ? null : (result.error?.issues[0]?.message ?? null);
}
