import { and, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { emailTokens } from '../../db/schema.ts';
import { randomToken, sha256 } from '../../lib/crypto.ts';

export type EmailTokenKind = 'verify_email' | 'reset_password';

export const EMAIL_TOKEN_TTL_MS: Record<EmailTokenKind, number> = {
  verify_email: 48 * 3600 * 1000,
  reset_password: 3600 * 1000,
};

/** Issues a one-time token (stored hashed); earlier unused tokens of the same kind stop working. */
export async function issueEmailToken(
  db: Db,
  customerId: number,
  kind: EmailTokenKind,
  email: string | null,
): Promise<string> {
  const token = randomToken(32);
  await db
    .update(emailTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(eq(emailTokens.customerId, customerId), eq(emailTokens.kind, kind), isNull(emailTokens.usedAt)),
    );
  await db.insert(emailTokens).values({
    customerId,
    kind,
    email,
    tokenHash: sha256(token),
    expiresAt: new Date(Date.now() + EMAIL_TOKEN_TTL_MS[kind]),
  });
  return token;
}

/** Spends a token once (atomically); returns its customer and e-mail, or null if unknown, used or expired. */
export async function consumeEmailToken(
  db: Db,
  token: string,
  kind: EmailTokenKind,
): Promise<{ customerId: number; email: string | null } | null> {
  if (!token || token.length > 128) return null;
  const [row] = await db
    .update(emailTokens)
    .set({ usedAt: sql`now()` })
    .where(
      and(
        eq(emailTokens.tokenHash, sha256(token)),
        eq(emailTokens.kind, kind),
        isNull(emailTokens.usedAt),
        gt(emailTokens.expiresAt, sql`now()`),
      ),
    )
    .returning({ customerId: emailTokens.customerId, email: emailTokens.email });
  return row ?? null;
}
