import { eq, sql } from 'drizzle-orm';
import { msg, type CurrentManager } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { managers } from '../db/schema.ts';
import { getDummyHash, hashPassword, needsRehash, randomToken, verifyPassword } from '../lib/crypto.ts';
import { forbidden, notFound, unauthorized } from '../lib/errors.ts';

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

export async function getCurrentManager(db: Db, id: number): Promise<CurrentManager> {
  const [row] = await db.select().from(managers).where(eq(managers.id, id));
  if (!row) throw notFound();
  return { id: row.id, username: row.username, role: row.role };
}
