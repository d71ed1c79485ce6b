import { sql } from 'drizzle-orm';
import { peerDepartures } from '../../db/schema.ts';
import type { Db } from '../../db/client.ts';

/**
 * Where moved and re-keyed peers' keys left from, with the key each had there: the old server's last report of that
 * key (its `since` tail) is counted only if the key did leave that server (issue 31,
 * services/peers/usage.ts).
 */
export async function recordDepartures(
  tx: Db,
  fromServerId: number,
  moved: { id: number; publicKey: string }[],
) {
  if (moved.length === 0) return;
  await tx
    .insert(peerDepartures)
    .values(moved.map((m) => ({ peerId: m.id, serverId: fromServerId, publicKey: m.publicKey })))
    .onConflictDoUpdate({
      target: [peerDepartures.peerId, peerDepartures.serverId],
      set: { publicKey: sql`excluded.public_key`, leftAt: sql`now()` },
    });
}
