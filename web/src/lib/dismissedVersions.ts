/**
 * Which client-app versions the customer has dismissed the home banner for, remembered in this
 * browser (localStorage, one list for every version): the banner of a version stays hidden once
 * dismissed and comes back for the next release.
 */
const KEY = 'dismissed_client_versions';
/** Older entries are dropped beyond this: only recent releases can still be announced. */
const KEEP = 20;

function readList(): string[] {
  try {
    const parsed: unknown = JSON.parse(window.localStorage.getItem(KEY) ?? '[]');
    return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    // Unreadable storage or a hand-edited value: nothing is dismissed.
    return [];
  }
}

export function isVersionDismissed(version: string): boolean {
  return readList().includes(version);
}

export function dismissVersion(version: string): void {
  const list = readList().filter((v) => v !== version);
  list.push(version);
  try {
    window.localStorage.setItem(KEY, JSON.stringify(list.slice(-KEEP)));
  } catch {
    /* storage unavailable: the banner is hidden for this visit only */
  }
}
