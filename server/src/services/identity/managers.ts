import { eq, sql } from 'drizzle-orm';
import { msg, TOTP_REQUIRED, type CurrentManager } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { managers } from '../../db/schema.ts';
import { getDummyHash, hashPassword, needsRehash, randomToken, verifyPassword } from '../../lib/crypto.ts';
import { forbidden, HttpError, notFound, unauthorized } from '../../lib/errors.ts';
import type { LoginThrottle } from './loginThrottle.ts';

/**
 * Creates the first manager when there is none. Returns the generated password when one had to be
 * made up (the caller prints it once), else null.
 */
export async function bootstrapManager(
  db: Db,
  username: string,
  password: string | undefined,
): Promise<{ created: boolean; generatedPassword: string | null }> {
  const [{ count } = { count: 0 }] = await db.select({ count: sql<number>`count(*)::int` }).from(managers);
  if (count > 0) return { created: false, generatedPassword: null };
  const secret = password ?? randomToken(12);
  await db
    .insert(managers)
    .values({ username, passwordHash: await hashPassword(secret), role: 'owner' })
    .onConflictDoNothing();
  return { created: true, generatedPassword: password ? null : secret };
}

export async function authenticateManager(db: Db, username: string, password: string): Promise<number> {
  const [row] = await db
    .select({ id: managers.id, hash: managers.passwordHash, active: managers.active })
    .from(managers)
    .where(sql`lower(${managers.username}) = lower(${username.trim()})`);
  const ok = await verifyPassword(password, row?.hash ?? (await getDummyHash()));
  if (!row || !ok) throw unauthorized(msg.invalidCredentials);
  if (!row.active) throw forbidden(msg.accountDisabled);
  // As for customers: a hash made with older scrypt parameters is upgraded while the password is at hand.
  if (needsRehash(row.hash))
    await db
      .update(managers)
      .set({ passwordHash: await hashPassword(password) })
      .where(eq(managers.id, row.id));
  return row.id;
}

/**
 * Runs a manager login attempt under the login limits (services/identity/loginThrottle.ts): counted
 * before the password is checked, kept only as a failure (a wrong password, an unknown username, a
 * wrong two-factor code), so a manager who signs in often is never refused and a burst of guesses
 * gets no more checks than the policy allows. A full address waits; a username past its limit needs
 * the right password *and* a solved captcha, so wrong passwords sent for it from anywhere cannot keep
 * its manager out. A success forgets the username's failures. A missing two-factor code is a
 * question, not a failure.
 */
export async function throttledManagerLogin<T>(
  throttle: LoginThrottle,
  ip: string,
  username: string,
  captchaToken: string | undefined,
  attempt: () => Promise<T>,
): Promise<T> {
  return throttle.attempt(
    ip,
    username,
    captchaToken,
    attempt,
    (error) => error instanceof HttpError && error.status === 401 && error.code !== TOTP_REQUIRED,
  );
}

export async function getCurrentManager(db: Db, id: number): Promise<CurrentManager> {
  const [row] = await db.select().from(managers).where(eq(managers.id, id));
  if (!row) throw notFound();
  return { id: row.id, username: row.username, role: row.role };
}
