import { inArray, sql } from 'drizzle-orm';
import { ROOM_MEMBER_LIMIT, SiteSettings, type PublicSettings } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { settings } from '../../db/schema.ts';
import { ShortCache } from '../../lib/cache.ts';
import { auditedTransaction, diffFields, type Actor } from './audit.ts';
import type { Bus } from '../../realtime/bus.ts';

/** Defaults for an installation that has never saved a setting. */
export const DEFAULT_SITE_SETTINGS: SiteSettings = {
  maintenance: false,
  allow_registration: true,
  allow_password_recovery: true,
  show_landing: true,
  allow_payments_qvapay: false,
  allow_email: false,
  allow_partys: false,
  allow_payments_remesita: false,
  allow_discovery: true,
  room_member_limit: ROOM_MEMBER_LIMIT.default,
};

const KEYS = Object.keys(DEFAULT_SITE_SETTINGS) as (keyof SiteSettings)[];

const caches = new WeakMap<Db, ShortCache<SiteSettings>>();

/**
 * The site switches, read on almost every request: kept for one second per database handle
 * (another instance sees a change within a second; this one at once, see updateSiteSettings).
 */
export function getSiteSettings(db: Db): Promise<SiteSettings> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ShortCache(() => readSiteSettings(db));
    caches.set(db, cache);
  }
  return cache.get();
}

/** Reads the site settings; unknown or malformed rows fall back to the defaults. */
export async function readSiteSettings(db: Db): Promise<SiteSettings> {
  const rows = await db.select().from(settings).where(inArray(settings.key, KEYS));
  const merged: Record<string, unknown> = { ...DEFAULT_SITE_SETTINGS };
  for (const row of rows) {
    const key = row.key as keyof SiteSettings;
    // Each value of its default's kind (a switch, or a number such as the rooms' member cap).
    if (typeof row.value === typeof DEFAULT_SITE_SETTINGS[key]) merged[key] = row.value;
  }
  const parsed = SiteSettings.safeParse(merged);
  if (parsed.success) return parsed.data;
  // A number out of today's range (saved by another version): its default, the rest as saved.
  for (const issue of parsed.error.issues) {
    const key = issue.path[0] as keyof SiteSettings;
    merged[key] = DEFAULT_SITE_SETTINGS[key];
  }
  return SiteSettings.parse(merged);
}

export function toPublicSettings(s: SiteSettings): PublicSettings {
  return {
    maintenance: s.maintenance,
    allow_registration: s.allow_registration,
    allow_password_recovery: s.allow_password_recovery,
    show_landing: s.show_landing,
    allow_payments_qvapay: s.allow_payments_qvapay,
    allow_email: s.allow_email,
    allow_payments_remesita: s.allow_payments_remesita,
  };
}

export async function updateSiteSettings(db: Db, patch: Partial<SiteSettings>): Promise<void> {
  const entries = Object.entries(patch).filter(([k]) => (KEYS as string[]).includes(k));
  if (entries.length === 0) return;
  await db
    .insert(settings)
    .values(entries.map(([key, value]) => ({ key, value })))
    .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value`, updatedAt: sql`now()` } });
  caches.get(db)?.invalidate();
}

/** Drops this instance's cached switches (after a write made inside a transaction). */
export function invalidateSiteSettings(db: Db): void {
  caches.get(db)?.invalidate();
}

/** The settings of `settings.public`; the gateway switches need `settings.gateways`. */
export const PUBLIC_SWITCHES = [
  'maintenance',
  'allow_registration',
  'allow_password_recovery',
  'show_landing',
  'allow_email',
  'allow_partys',
  'allow_discovery',
  'room_member_limit',
] as const satisfies readonly (keyof SiteSettings)[];
export type PublicSwitches = Pick<SiteSettings, (typeof PUBLIC_SWITCHES)[number]>;

/** A manager changes public switches: saved with its audit entry (before/after) in one transaction. */
export async function savePublicSwitches(
  db: Db,
  bus: Bus,
  actor: Actor,
  patch: Partial<PublicSwitches>,
): Promise<SiteSettings> {
  const before = await readSiteSettings(db);
  await auditedTransaction(db, actor, async (tx, audit) => {
    await updateSiteSettings(tx, patch);
    const changes = diffFields(
      Object.fromEntries(Object.keys(patch).map((k) => [k, before[k as keyof SiteSettings]])),
      patch,
    );
    if (Object.keys(changes).length > 0)
      await audit({
        action: 'settings.update',
        targetType: 'settings',
        targetId: 'site',
        changes,
      });
  });
  invalidateSiteSettings(db);
  return getSiteSettings(db);
}
