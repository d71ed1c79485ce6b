import { splitValidity } from '@vpn/contracts/validity';
import { es } from '../i18n/es';

/**
 * A plan's validity in Spanish years/months/days ('1 año', '2 meses y 5 días'), using the spec's
 * constants (30-day months, 365-day years). Text that is not a validity is shown as it came.
 */
export function formatValidity(validity: string): string {
  const parts = splitValidity(validity);
  if (!parts) return validity;
  const words: string[] = [];
  if (parts.years) words.push(es.validity.year(parts.years));
  if (parts.months) words.push(es.validity.month(parts.months));
  if (parts.days) words.push(es.validity.day(parts.days));
  if (words.length === 0) return es.plans.lessThanADay;
  if (words.length === 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} ${es.validity.and} ${words[words.length - 1]}`;
}

/** '4,99 US$' (lib/money.ts: the one price format of the site and the console) */
export function formatPrice(price: number): string {
  return es.plans.price(price);
}

/** A plan description split into bullet lines at its sentence breaks ('. '). */
export function descriptionLines(description: string): string[] {
  return description
    .split('. ')
    .map((line) => line.trim().replace(/\.$/, ''))
    .filter((line) => line.length > 0);
}

const longDate = new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'long', year: 'numeric' });

/**
 * A date in Spanish long form ('5 de marzo de 2025'), from an ISO string. Text that is not a date is
 * shown as it came rather than as 'Invalid Date'.
 */
export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : longDate.format(date);
}

/**
 * A link as an absolute URL. The control plane writes mirror links from its PUBLIC_URL or the
 * request's origin; where it has neither (answers built outside a request, e.g. pushes) the link is a
 * bare path, which the WireGuard apps cannot fetch, so it is completed with the page's own origin.
 */
export function absoluteUrl(link: string, origin: string = window.location.origin): string {
  try {
    return new URL(link, origin).href;
  } catch {
    return link;
  }
}

/** Bytes in binary units, Spanish number format: 1536 → '1,5 KB'. */
export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${new Intl.NumberFormat('es-ES', { maximumFractionDigits: unit ? 1 : 0 }).format(value)} ${units[unit]}`;
}

/** A data allowance as carriers count it (1 GB = 10^9 bytes): "1 MB", "2,5 GB", "50 GB". */
export function formatDataSize(bytes: number): string {
  const fmt = (v: number) => new Intl.NumberFormat('es-ES', { maximumFractionDigits: 1 }).format(v);
  if (bytes >= 1e9) return `${fmt(bytes / 1e9)} GB`;
  if (bytes >= 1e6) return `${fmt(bytes / 1e6)} MB`;
  return `${fmt(bytes / 1e3)} KB`;
}
