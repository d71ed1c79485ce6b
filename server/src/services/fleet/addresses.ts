import { sql } from 'drizzle-orm';
import { msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers } from '../../db/schema.ts';
import { FIRST_PEER_INDEX, POOL_SIZE } from '../../lib/addressPool.ts';
import { HttpError } from '../../lib/errors.ts';

// The pool's arithmetic lives in lib/ (config.ts checks TRUST_PROXY against it); re-exported here
// for the services that allocate and render addresses.
export * from '../../lib/addressPool.ts';

/**
 * The next free address index. Usually one past the highest (an index lookup); once the pool's
 * end is reached, the lowest gap left by deleted peers. The unique index on address_index is what
 * guarantees no duplicates under concurrency: callers retry on a unique violation.
 */
export async function nextAddressIndex(db: Db): Promise<number> {
  const [top] = await db.select({ max: sql<number | null>`max(${peers.addressIndex})` }).from(peers);
  const next = (top?.max ?? FIRST_PEER_INDEX - 1) + 1;
  if (next < POOL_SIZE - 1) return next;
  const result = await db.execute<{ free: number }>(sql`
    select candidate as free from (
      select ${FIRST_PEER_INDEX}::int as candidate
      union all
      select address_index + 1 from ${peers}
    ) c
    where candidate < ${POOL_SIZE - 1}
      and not exists (select 1 from ${peers} p where p.address_index = c.candidate)
    order by candidate limit 1`);
  const [gap] = result.rows;
  if (!gap) throw new HttpError(503, msg.poolExhausted, 'pool_exhausted');
  return Number(gap.free);
}
