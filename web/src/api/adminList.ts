/** What every list of the manager console shares: its page size and how its query string is built. */

/** Rows per page of the console's lists. */
export const PAGE_SIZE = 25;

/** `?a=1&b=…` in the given key order, undefined and empty values left out ('' when nothing is left). */
export function listSearch(params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== '') query.set(key, String(value));
  const text = query.toString();
  return text ? `?${text}` : '';
}
