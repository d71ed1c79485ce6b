import { sql, type SQL } from 'drizzle-orm';
import type { ListQuery } from '@vpn/contracts';

/** LIMIT/OFFSET of a list page (`page` starts at 1). */
export function pageOf(q: Pick<ListQuery, 'page' | 'page_size'>): { limit: number; offset: number } {
  return { limit: q.page_size, offset: (q.page - 1) * q.page_size };
}

/** `%q%` for ILIKE/LIKE on a lower()'d column, with the wildcards of the search text escaped. */
export function containsPattern(q: string): string {
  return `%${q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * `lower(col) LIKE '%q%'` — the shape the trigram indexes of migration 0005 serve (customers'
 * username/email/alias, peers' name, invoices' remote id…). Returns undefined for an empty search.
 */
export function lowerContains(column: SQL | unknown, q: string | undefined): SQL | undefined {
  if (!q) return undefined;
  return sql`lower(${column}) like ${containsPattern(q)}`;
}
