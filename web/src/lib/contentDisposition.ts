/**
 * Reading a download's file name from its `Content-Disposition` header (the console's CSV export).
 * Kept apart from `download.ts`, which the customer's dashboard loads, so customers do not pay for it.
 */

/**
 * The file name a `Content-Disposition` header gives (`filename*=UTF-8''…` preferred over
 * `filename="…"`), reduced to a bare name (no folders, no control characters); null when it names none.
 */
export function dispositionFileName(header: string | null): string | null {
  if (!header) return null;
  let name: string | null = null;
  const extended = /filename\*\s*=\s*(?:UTF-8|utf-8)''([^;]+)/.exec(header);
  if (extended?.[1]) {
    try {
      name = decodeURIComponent(extended[1].trim());
    } catch {
      name = null;
    }
  }
  if (!name) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;\s]+))/.exec(header);
    name = plain ? (plain[1]?.replace(/\\(.)/g, '$1') ?? plain[2] ?? null) : null;
  }
  if (!name) return null;
  const last = name.split(/[/\\]/).pop() ?? '';
  // Control characters (a header can carry them percent-encoded) never reach a file name.
  const bare = [...last]
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
    .join('')
    .trim();
  return bare && bare !== '.' && bare !== '..' ? bare : null;
}
