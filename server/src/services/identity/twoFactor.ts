import { randomInt } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import {
  msgManagers,
  TOTP_INVALID,
  TOTP_REQUIRED,
  type TotpEnrolment,
  type TotpStatus,
} from '@vpn/contracts';
import type { Config } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import { managers } from '../../db/schema.ts';
import { decrypt, encrypt, sha256, verifyPassword } from '../../lib/crypto.ts';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors.ts';
import { base32Decode, matchTotp, newTotpSecret, otpauthUri } from '../../lib/totp.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, type Actor } from '../site/audit.ts';

export interface TwoFactorDeps {
  db: Db;
  bus: Bus;
  encryptionKey: Buffer;
  /** Shown as the account's issuer in authenticator apps (COMPANY_NAME). */
  issuer: string;
}

/** The service built from the app's context. */
export const twoFactorOf = (ctx: { db: Db; bus: Bus; keys: Keys; config: Pick<Config, 'companyName'> }) =>
  new TwoFactorService({
    db: ctx.db,
    bus: ctx.bus,
    encryptionKey: ctx.keys.encryption,
    issuer: ctx.config.companyName,
  });

export const RECOVERY_CODE_COUNT = 10;
// No 0/o, 1/l/i: codes are copied by hand from paper.
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';

/** A recovery code as printed: two groups of five readable characters. */
function newRecoveryCode(): string {
  let code = '';
  for (let i = 0; i < 10; i++) code += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/** What a typed code is compared as: lower case, no spaces or dashes. */
const normalize = (code: string) => code.replace(/[\s-]/g, '').toLowerCase();

/**
 * Two-factor sign-in of managers (TOTP, RFC 6238): enrolment with a QR code / `otpauth://` URI,
 * confirmation with a first code (which hands out ten one-time recovery codes, stored hashed), the
 * check at login, and switching it off. The shared secret is stored encrypted (AES-256-GCM).
 */
export class TwoFactorService {
  constructor(private readonly deps: TwoFactorDeps) {}

  private async row(id: number) {
    const [row] = await this.deps.db
      .select({
        username: managers.username,
        secret: managers.totpSecretEnc,
        enabledAt: managers.totpEnabledAt,
        codes: managers.recoveryCodes,
        passwordHash: managers.passwordHash,
      })
      .from(managers)
      .where(eq(managers.id, id));
    if (!row) throw notFound(msgManagers.notFound);
    return row;
  }

  async status(id: number): Promise<TotpStatus> {
    const row = await this.row(id);
    return { enabled: row.enabledAt !== null, recovery_codes_left: row.enabledAt ? row.codes.length : 0 };
  }

  /**
   * Starts (or restarts) an enrolment: a new secret, kept encrypted but not required until a code
   * confirms the manager's app has it. Refused while two-factor is on (that secret stays).
   */
  async start(id: number): Promise<TotpEnrolment> {
    const row = await this.row(id);
    if (row.enabledAt) throw conflict(msgManagers.totpAlreadyEnabled);
    const secret = newTotpSecret();
    await this.deps.db
      .update(managers)
      .set({ totpSecretEnc: encrypt(this.deps.encryptionKey, secret), totpLastStep: null, recoveryCodes: [] })
      .where(and(eq(managers.id, id), isNull(managers.totpEnabledAt)));
    return { secret, uri: otpauthUri(this.deps.issuer, row.username, secret) };
  }

  /** Turns two-factor on with a first code from the app; returns the recovery codes (shown once). */
  async confirm(actor: Actor, code: string): Promise<string[]> {
    const row = await this.row(actor.id);
    if (row.enabledAt) throw conflict(msgManagers.totpAlreadyEnabled);
    if (!row.secret) throw conflict(msgManagers.totpNotStarted);
    const step = matchTotp(this.key(row.secret), normalize(code), Date.now());
    if (step === null) throw badRequest(msgManagers.totpInvalid);
    const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
      const done = await tx
        .update(managers)
        .set({
          totpEnabledAt: sql`now()`,
          totpLastStep: step,
          recoveryCodes: codes.map((c) => sha256(normalize(c))),
        })
        .where(and(eq(managers.id, actor.id), isNull(managers.totpEnabledAt)))
        .returning({ id: managers.id });
      if (done.length === 0) throw conflict(msgManagers.totpAlreadyEnabled);
      await audit({
        action: 'manager.totp_enable',
        targetType: 'manager',
        targetId: actor.id,
        changes: { totp_enabled: { before: false, after: true } },
      });
    });
    return codes;
  }

  /**
   * Switches two-factor off for oneself, proven with a current code, a recovery code or the password
   * (null: already proven by a fresh confirmation that took a code, plugins/reauth.ts).
   */
  async disable(actor: Actor, proof: { code?: string; password?: string } | null): Promise<void> {
    const row = await this.row(actor.id);
    if (!row.enabledAt) throw conflict(msgManagers.totpNotEnabled);
    if (!proof) {
      // Proven by the confirmation.
    } else if (proof.code) {
      if (!(await this.consume(actor.id, proof.code))) throw badRequest(msgManagers.totpInvalid);
    } else if (!(await verifyPassword(proof.password ?? '', row.passwordHash))) {
      throw badRequest(msgManagers.wrongPassword);
    }
    await this.clear(actor, actor.id, 'manager.totp_disable');
  }

  /** Whether the manager signs in with two-factor. */
  async enabled(id: number): Promise<boolean> {
    return (await this.row(id)).enabledAt !== null;
  }

  /** Checks (and spends) a current code or a recovery code of the manager. */
  async checkCode(id: number, code: string): Promise<boolean> {
    return this.consume(id, code);
  }

  /** An owner resets another manager's two-factor (lost phone): they sign in with the password alone. */
  async reset(actor: Actor, id: number): Promise<void> {
    const row = await this.row(id);
    if (!row.enabledAt && !row.secret) throw conflict(msgManagers.totpNotEnabled);
    await this.clear(actor, id, 'manager.totp_reset');
  }

  private async clear(actor: Actor, id: number, action: string): Promise<void> {
    await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
      const [before] = await tx
        .select({ enabledAt: managers.totpEnabledAt })
        .from(managers)
        .where(eq(managers.id, id))
        .for('update');
      if (!before) throw notFound(msgManagers.notFound);
      await tx
        .update(managers)
        .set({ totpSecretEnc: null, totpEnabledAt: null, totpLastStep: null, recoveryCodes: [] })
        .where(eq(managers.id, id));
      await audit({
        action,
        targetType: 'manager',
        targetId: id,
        changes: { totp_enabled: { before: before.enabledAt !== null, after: false } },
      });
    });
  }

  /**
   * The login's second factor: nothing to do without two-factor; otherwise a TOTP code of a step not
   * used before, or an unused recovery code (spent here). Throws 401 `totp_required` when the code is
   * missing and 401 `totp_invalid` when it is wrong or replayed.
   */
  async checkAtLogin(id: number, code: string | undefined): Promise<void> {
    const [row] = await this.deps.db
      .select({ enabledAt: managers.totpEnabledAt })
      .from(managers)
      .where(eq(managers.id, id));
    if (!row?.enabledAt) return;
    if (!code) throw new HttpError(401, msgManagers.totpRequired, TOTP_REQUIRED);
    if (!(await this.consume(id, code))) throw new HttpError(401, msgManagers.totpInvalid, TOTP_INVALID);
  }

  /**
   * Accepts a code once. A TOTP code's step must be later than the last one accepted (the update is
   * conditional, so two concurrent logins with the same code cannot both pass); a recovery code is
   * removed from the stored list in the same statement that matches it.
   */
  private async consume(id: number, code: string): Promise<boolean> {
    const clean = normalize(code);
    const db = this.deps.db;
    if (/^\d{6}$/.test(clean)) {
      const [row] = await db
        .select({ secret: managers.totpSecretEnc })
        .from(managers)
        .where(eq(managers.id, id));
      if (!row?.secret) return false;
      const step = matchTotp(this.key(row.secret), clean, Date.now());
      if (step === null) return false;
      const done = await db
        .update(managers)
        .set({ totpLastStep: step })
        .where(and(eq(managers.id, id), or(isNull(managers.totpLastStep), lt(managers.totpLastStep, step))))
        .returning({ id: managers.id });
      return done.length > 0;
    }
    if (clean.length !== 10) return false;
    const hash = sha256(clean);
    const done = await db
      .update(managers)
      .set({ recoveryCodes: sql`array_remove(${managers.recoveryCodes}, ${hash})` })
      .where(and(eq(managers.id, id), sql`${hash} = any(${managers.recoveryCodes})`))
      .returning({ id: managers.id });
    return done.length > 0;
  }

  private key(sealed: string): Buffer {
    return base32Decode(decrypt(this.deps.encryptionKey, sealed));
  }
}
