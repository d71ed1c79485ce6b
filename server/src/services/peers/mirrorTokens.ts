/**
 * Mirror tokens (issue 17, M4). The token in a mirror link opens a peer's configuration, private key
 * included, so the database keeps no usable copy of it: links are looked up by the token's SHA-256,
 * and the token itself is kept encrypted under SECRET_KEY only to show the link to its owner again.
 * A copy of the database without the key yields neither.
 */
import { like, not, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { peers } from '../../db/schema.ts';
import { decrypt, encrypt, randomToken, sha256 } from '../../lib/crypto.ts';

/** A new token, and what the database keeps of it. */
export function newMirrorToken(key: Buffer): {
  token: string;
  mirrorTokenEnc: string;
  mirrorTokenHash: string;
} {
  const token = randomToken(32);
  return { token, mirrorTokenEnc: encrypt(key, token), mirrorTokenHash: sha256(token) };
}

/** The token behind a stored value: sealed ("v1:…"), or clear when written before migration 0018. */
export function openMirrorToken(key: Buffer, stored: string): string {
  return stored.startsWith('v1:') ? decrypt(key, stored) : stored;
}

export const mirrorTokenHash = (token: string) => sha256(token);

/**
 * Encrypts the tokens migration 0018 left in clear (it could hash them, not encrypt them: the key
 * is not in the database). Runs at every start; after the first one it finds nothing.
 */
export async function sealClearMirrorTokens(db: Db, key: Buffer): Promise<number> {
  let sealed = 0;
  for (;;) {
    const rows = await db
      .select({ id: peers.id, stored: peers.mirrorTokenEnc })
      .from(peers)
      .where(not(like(peers.mirrorTokenEnc, 'v1:%')))
      .limit(1000);
    if (rows.length === 0) return sealed;
    for (const row of rows)
      await db
        .update(peers)
        .set({ mirrorTokenEnc: encrypt(key, row.stored) })
        .where(sql`${peers.id} = ${row.id} and ${peers.mirrorTokenEnc} = ${row.stored}`);
    sealed += rows.length;
  }
}
