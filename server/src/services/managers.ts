import { eq, sql } from 'drizzle-orm';
import { msg, TOTP_REQUIRED, type CurrentManager } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { managers } from '../db/schema.ts';
import { getDummyHash, hashPassword, needsRehash, randomToken, verifyPassword } from '../lib/crypto.ts';
import { forbidden, HttpError, notFound, unauthorized } from '../lib/errors.ts';
import { clear, hit, refuseWhenFull, type RateLimitPolicy } from './rateLimit.ts';

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
 * Runs a manager login attempt under the login limits. Only failures count (a wrong password, an
 * unknown username, a wrong two-factor code), per address and per username, so a manager who signs
 * in often is never refused; once either is full, every attempt waits for its window to end. A
 * success forgets the username's failures. A missing two-factor code is a question, not a failure.
 */
export async function throttledManagerLogin<T>(
  db: Db,
  limits: Pick<RateLimitPolicy, 'loginPerIp' | 'loginPerUsername'>,
  ip: string,
  username: string,
  attempt: () => Promise<T>,
): Promise<T> {
  const keys = [
    { key: `admin-login:ip:${ip}`, limit: limits.loginPerIp },
    { key: `admin-login:user:${username.trim().toLowerCase()}`, limit: limits.loginPerUsername },
  ];
  for (const { key, limit } of keys) await refuseWhenFull(db, key, limit);
  try {
    const result = await attempt();
    await clear(db, keys[1]!.key);
    return result;
  } catch (error) {
    if (error instanceof HttpError && error.status === 401 && error.code !== TOTP_REQUIRED)
      for (const { key, limit } of keys) await hit(db, key, limit);
    throw error;
  }
}

export async function getCurrentManager(db: Db, id: number): Promise<CurrentManager> {
  const [row] = await db.select().from(managers).where(eq(managers.id, id));
  if (!row) throw notFound();
  return { id: row.id, username: row.username, role: row.role };
}
