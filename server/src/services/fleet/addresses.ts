import { sql } from 'drizzle-orm';
import { msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers } from '../../db/schema.ts';
import { HttpError } from '../../lib/errors.ts';

/**
 * The fleet-wide address pool (architecture decision 4): every peer gets one address for life,
 * whatever server it sits on. Index 0 is the network, 1 the servers' own tunnel address
 * (the same on every server: clients only ever talk to their own), the last one is broadcast.
 */
export const POOL_BASE = (10 << 24) | (64 << 16); // 10.64.0.0
export const POOL_PREFIX = 10;
export const POOL_SIZE = 2 ** (32 - POOL_PREFIX);
export const FIRST_PEER_INDEX = 2;
export const SERVER_TUNNEL_ADDRESS = `${ipv4FromIndex(1)}/${POOL_PREFIX}`;
export const POOL_CIDR = `${ipv4FromIndex(0)}/${POOL_PREFIX}`;

export function ipv4FromIndex(index: number): string {
  const n = (POOL_BASE + index) >>> 0;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/**
 * The next free address index. Usually one past the highest (an index lookup); once the pool's
 * end is reached, the lowest gap left by deleted peers. The unique index on address_index is what
 * guarantees no duplicates under concurrency: callers retry on a unique violation.
 */
export async function nextAddressIndex(db: Db): Promise<number> {
  const [top] = await db.select({ max: sql<number | null>`max(${peers.addressIndex})` }).from(peers);
  const next = (top?.max ?? FIRST_PEER_INDEX - 1) + 1;
  if (next < POOL_SIZE - 1) return next;
  const result = await db.execute(sql`
    select candidate as free from (
      select ${FIRST_PEER_INDEX}::int as candidate
      union all
      select address_index + 1 from ${peers}
    ) c
    where candidate < ${POOL_SIZE - 1}
      and not exists (select 1 from ${peers} p where p.address_index = c.candidate)
    order by candidate limit 1`);
  const [gap] = (result as unknown as { rows: { free: number }[] }).rows;
  if (!gap) throw new HttpError(503, msg.poolExhausted, 'pool_exhausted');
  return Number(gap.free);
}
