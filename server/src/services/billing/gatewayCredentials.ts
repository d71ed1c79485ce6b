import { eq, inArray, sql } from 'drizzle-orm';
import {
  QvapayCredentials,
  RemesitaCredentials,
  type CredentialSource,
  type GatewayPatch,
  type GatewaySettings,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { settings } from '../../db/schema.ts';
import { ShortCache } from '../../lib/cache.ts';
import { decrypt, encrypt } from '../../lib/crypto.ts';
import { auditedTransaction, type Actor } from '../site/audit.ts';
import type { Bus } from '../../realtime/bus.ts';
import {
  getSiteSettings,
  invalidateSiteSettings,
  readSiteSettings,
  updateSiteSettings,
} from '../site/settings.ts';

/**
 * Payment-gateway credentials saved in Ajustes: one settings row per gateway holding the
 * credentials as AES-256-GCM ciphertext (`{ enc }`), never sent back (the console only learns
 * whether they are set, and where from). Saved credentials win; without them the environment's
 * (QVAPAY_*, REMESITA_*) apply. Read through a one-second cache like the site switches, so every
 * instance uses new credentials within a second.
 */
const ROW = { qvapay: 'gateway.qvapay', remesita: 'gateway.remesita' } as const;

export interface QvapayCreds {
  appId: string;
  appSecret: string;
}
export interface RemesitaCreds {
  apiKey: string;
  apiSecret: string;
  businessId: string;
  /** Saved in Ajustes with the credentials; else REMESITA_BASE_URL applies. */
  baseUrl?: string;
}

interface Stored {
  qvapay: QvapayCreds | null;
  remesita: RemesitaCreds | null;
}

export interface GatewayCredentialsDeps {
  db: Db;
  bus: Bus;
  encryptionKey: Buffer;
  env: { qvapay: QvapayCreds | null; remesita: RemesitaCreds | null };
}

export class GatewayCredentials {
  private readonly cache: ShortCache<Stored>;

  constructor(private readonly deps: GatewayCredentialsDeps) {
    this.cache = new ShortCache(() => this.read());
  }

  /** The saved credentials (undecryptable or malformed rows count as not saved). */
  private async read(): Promise<Stored> {
    const rows = await this.deps.db
      .select()
      .from(settings)
      .where(inArray(settings.key, [ROW.qvapay, ROW.remesita]));
    const open = (key: string): unknown => {
      const value = rows.find((r) => r.key === key)?.value as { enc?: unknown } | undefined;
      if (typeof value?.enc !== 'string') return null;
      try {
        return JSON.parse(decrypt(this.deps.encryptionKey, value.enc));
      } catch {
        return null;
      }
    };
    const q = QvapayCredentials.safeParse(open(ROW.qvapay));
    const r = RemesitaCredentials.safeParse(open(ROW.remesita));
    return {
      qvapay: q.success ? { appId: q.data.app_id, appSecret: q.data.app_secret } : null,
      remesita: r.success
        ? {
            apiKey: r.data.api_key,
            apiSecret: r.data.api_secret,
            businessId: r.data.business_id,
            ...(r.data.base_url ? { baseUrl: r.data.base_url.replace(/\/+$/, '') } : {}),
          }
        : null,
    };
  }

  /** QvaPay's app id and secret in force: Ajustes, else the environment, else null. */
  async qvapay(): Promise<QvapayCreds | null> {
    return (await this.cache.get()).qvapay ?? this.deps.env.qvapay;
  }

  /** Remesita's credentials in force (and the API base saved with them, if any). */
  async remesita(): Promise<RemesitaCreds | null> {
    return (await this.cache.get()).remesita ?? this.deps.env.remesita;
  }

  async status(): Promise<GatewaySettings> {
    const stored = await this.read();
    const site = await readSiteSettings(this.deps.db);
    const source = (saved: unknown, env: unknown): CredentialSource =>
      saved ? 'console' : env ? 'env' : 'none';
    const q = source(stored.qvapay, this.deps.env.qvapay);
    const r = source(stored.remesita, this.deps.env.remesita);
    return {
      allow_payments_qvapay: site.allow_payments_qvapay,
      allow_payments_remesita: site.allow_payments_remesita,
      qvapay: { configured: q !== 'none', source: q },
      remesita: { configured: r !== 'none', source: r },
    };
  }

  /**
   * Saves switches and credentials (null forgets saved credentials) with one audit entry in the
   * same transaction. The audit says whether credentials were set, changed or removed — never them.
   */
  async update(actor: Actor, patch: GatewayPatch): Promise<GatewaySettings> {
    const before = await this.read();
    const site = await getSiteSettings(this.deps.db);
    const state = (c: unknown) => (c ? 'configurado' : 'no configurado');
    await auditedTransaction(this.deps.db, actor, async (db, audit) => {
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      const switches: { allow_payments_qvapay?: boolean; allow_payments_remesita?: boolean } = {};
      for (const key of ['allow_payments_qvapay', 'allow_payments_remesita'] as const) {
        const value = patch[key];
        if (value === undefined) continue;
        switches[key] = value;
        if (value !== site[key]) changes[key] = { before: site[key], after: value };
      }
      await updateSiteSettings(db, switches);
      for (const gateway of ['qvapay', 'remesita'] as const) {
        const value = patch[gateway];
        if (value === undefined) continue;
        if (value === null) {
          await db.delete(settings).where(eq(settings.key, ROW[gateway]));
          if (before[gateway])
            changes[`${gateway}_credentials`] = { before: state(true), after: state(false) };
          continue;
        }
        const enc = encrypt(this.deps.encryptionKey, JSON.stringify(value));
        await db
          .insert(settings)
          .values({ key: ROW[gateway], value: { enc } })
          .onConflictDoUpdate({ target: settings.key, set: { value: { enc }, updatedAt: sql`now()` } });
        changes[`${gateway}_credentials`] = {
          before: state(before[gateway]),
          after: before[gateway] ? 'configurado (datos nuevos)' : state(true),
        };
      }
      if (Object.keys(changes).length > 0)
        await audit({
          action: 'settings.gateways',
          targetType: 'settings',
          targetId: 'gateways',
          changes,
        });
    });
    this.cache.invalidate();
    invalidateSiteSettings(this.deps.db);
    return this.status();
  }
}
