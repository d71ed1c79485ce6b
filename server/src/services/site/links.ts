import { stat } from 'node:fs/promises';
import { inArray, sql } from 'drizzle-orm';
import { httpsUrlOf, linksMsg, supportUrlOf, type CustomerLinksPatch } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { settings } from '../../db/schema.ts';
import { ShortCache } from '../../lib/cache.ts';
import { badRequest } from '../../lib/errors.ts';
import { auditedTransaction, diffFields, type Actor } from './audit.ts';

/**
 * The links customers are given (issue 32), kept with the site switches (`settings`, text values):
 * the support link, which wins over SUPPORT_URL, and the operator's page or file for the Android
 * app. Read on every page served, so cached per database handle for a second like the switches.
 */
export interface SiteLinks {
  support_url: string | null;
  android_app_url: string | null;
}

const KEYS = ['support_url', 'android_app_url'] as const satisfies readonly (keyof SiteLinks)[];

/** Where the panel serves ANDROID_APK_FILE (a path the SPA links to, outside /api). */
export const ANDROID_APK_PATH = '/descargas/wireguard-android.apk';

const caches = new WeakMap<Db, ShortCache<SiteLinks>>();

export function getSiteLinks(db: Db): Promise<SiteLinks> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ShortCache(() => readSiteLinks(db));
    caches.set(db, cache);
  }
  return cache.get();
}

async function readSiteLinks(db: Db): Promise<SiteLinks> {
  const rows = await db
    .select()
    .from(settings)
    .where(inArray(settings.key, [...KEYS]));
  const links: SiteLinks = { support_url: null, android_app_url: null };
  for (const row of rows)
    if (typeof row.value === 'string' && (KEYS as readonly string[]).includes(row.key))
      links[row.key as keyof SiteLinks] = row.value;
  return links;
}

/** The support link in force: the console's, else SUPPORT_URL, else none. */
export async function supportUrlOfSite(db: Db, envUrl: string | undefined): Promise<string | null> {
  return (await getSiteLinks(db)).support_url ?? envUrl ?? null;
}

/**
 * A manager sets or clears links (null clears). A link that is not one a phone can open is refused
 * with the reason and nothing changes; the change is audited with its before and after. `confirm`
 * runs once the links are known to be good and before anything is written (the route asks there for
 * a fresh confirmation when the Android app's link is set).
 */
export async function saveSiteLinks(
  db: Db,
  actor: Actor,
  patch: CustomerLinksPatch,
  confirm?: (clean: Partial<SiteLinks>) => Promise<void>,
): Promise<SiteLinks> {
  const clean: Partial<SiteLinks> = {};
  if (patch.support_url !== undefined) {
    const raw = patch.support_url?.trim() ?? '';
    const value = raw === '' ? null : supportUrlOf(raw);
    if (raw !== '' && value === null)
      throw badRequest(linksMsg.supportUrl, { support_url: linksMsg.supportUrl });
    clean.support_url = value;
  }
  if (patch.android_app_url !== undefined) {
    const raw = patch.android_app_url?.trim() ?? '';
    const value = raw === '' ? null : httpsUrlOf(raw);
    if (raw !== '' && value === null)
      throw badRequest(linksMsg.androidUrl, { android_app_url: linksMsg.androidUrl });
    clean.android_app_url = value;
  }
  await confirm?.(clean);
  const before = await readSiteLinks(db);
  await auditedTransaction(db, actor, async (tx, audit) => {
    for (const [key, value] of Object.entries(clean)) {
      if (value === null) await tx.delete(settings).where(sql`${settings.key} = ${key}`);
      else
        await tx
          .insert(settings)
          .values({ key, value })
          .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: sql`now()` } });
    }
    const changes = diffFields(
      Object.fromEntries(Object.keys(clean).map((k) => [k, before[k as keyof SiteLinks]])),
      clean,
    );
    if (Object.keys(changes).length > 0)
      await audit({ action: 'settings.links', targetType: 'settings', targetId: 'links', changes });
  });
  caches.get(db)?.invalidate();
  return getSiteLinks(db);
}

/** ANDROID_APK_FILE's size in bytes, or null when unset or unreadable (checked at most every 10 s). */
const apkSizes = new Map<string, { at: number; size: number | null }>();
export async function androidApkSize(file: string | undefined): Promise<number | null> {
  if (!file) return null;
  const known = apkSizes.get(file);
  if (known && Date.now() - known.at < 10_000) return known.size;
  const size = await stat(file).then(
    (s) => (s.isFile() ? s.size : null),
    () => null,
  );
  apkSizes.set(file, { at: Date.now(), size });
  return size;
}
