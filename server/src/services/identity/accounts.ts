import { eq, sql } from 'drizzle-orm';
import {
  customersMsg,
  PASSWORD_MAX,
  PASSWORD_MIN,
  USERNAME_RE,
  msg,
  type CurrentUser,
  type RegisterBody,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers } from '../../db/schema.ts';
import { getDummyHash, hashPassword, needsRehash, verifyPassword } from '../../lib/crypto.ts';
import {
  badRequest,
  conflict,
  forbidden,
  isUniqueViolation,
  notFound,
  unauthorized,
} from '../../lib/errors.ts';
import { getSiteSettings } from '../site/settings.ts';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Checks a new password against the product's rules (shared by registration and password change). */
export function checkNewPassword(password: string): void {
  if (password.length < PASSWORD_MIN)
    throw badRequest(msg.passwordTooShort, { password: msg.passwordTooShort });
  if (password.length > PASSWORD_MAX)
    throw badRequest(msg.passwordTooLong, { password: msg.passwordTooLong });
}

export function normalizeEmail(email: string): string {
  const value = email.trim();
  if (!EMAIL_RE.test(value) || value.length > 254)
    throw badRequest(msg.emailInvalid, { email: msg.emailInvalid });
  return value;
}

/**
 * Registers a customer. Validation order follows the spec: captcha (checked by the caller first),
 * then username/password presence, then format rules, then uniqueness.
 */
export async function registerCustomer(
  db: Db,
  body: RegisterBody,
): Promise<{ id: number; email: string | null }> {
  const site = await getSiteSettings(db);
  if (!site.allow_registration) throw forbidden(msg.registrationClosed);
  const username = body.username.trim();
  if (!username || !body.password) throw badRequest(msg.credentialsRequired);
  if (!USERNAME_RE.test(username)) throw badRequest(msg.usernameFormat, { username: msg.usernameFormat });
  checkNewPassword(body.password);
  let email: string | null = null;
  if (body.email !== undefined && body.email.trim() !== '') {
    if (!site.allow_email) throw badRequest(msg.emailNotAllowed, { email: msg.emailNotAllowed });
    email = normalizeEmail(body.email);
  }
  const passwordHash = await hashPassword(body.password);
  try {
    const [row] = await db
      .insert(customers)
      .values({ username, passwordHash, email })
      .returning({ id: customers.id });
    return { id: row!.id, email };
  } catch (e) {
    if (!isUniqueViolation(e)) throw e;
    const [clash] = await db
      .select({ id: customers.id })
      .from(customers)
      .where(sql`lower(${customers.username}) = lower(${username})`);
    throw conflict(clash ? msg.usernameTaken : msg.emailTaken);
  }
}

/** Checks a customer's credentials; the same answer and cost whether the user exists or not. */
export async function authenticateCustomer(db: Db, username: string, password: string): Promise<number> {
  const [row] = await db
    .select({ id: customers.id, hash: customers.passwordHash, active: customers.active })
    .from(customers)
    .where(sql`lower(${customers.username}) = lower(${username.trim()})`);
  const ok = await verifyPassword(password, row?.hash ?? (await getDummyHash()));
  if (!row || !ok) throw unauthorized(msg.invalidCredentials);
  // A manager disabled the account (issue 7): say so, and where to turn.
  if (!row.active) throw forbidden(customersMsg.loginDisabled);
  // Hashes made with older scrypt parameters are upgraded while the password is at hand.
  if (needsRehash(row.hash))
    await db
      .update(customers)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(customers.id, row.id));
  return row.id;
}

export async function getCurrentUser(db: Db, id: number): Promise<CurrentUser> {
  const [row] = await db.select().from(customers).where(eq(customers.id, id));
  if (!row) throw notFound();
  const site = await getSiteSettings(db);
  return {
    id: row.id,
    username: row.username,
    alias: row.alias,
    email: row.email,
    email_verified: row.emailVerified,
    web_settings: { allow_partys: site.allow_partys, allow_email: site.allow_email },
  };
}
