/**
 * Scale guard (issue 33): a server's snapshot reads its own peers, not every customer. bench:fleet
 * (1,000,000 peers, 600,000 customers, 10,000 peers a server): "is its owner active?" made
 * PostgreSQL hash every customer for each snapshot (a parallel sequential scan, 3 s under load;
 * 100 snapshots at start-up). Here a server of 6,000 live peers, each of its own owner, is measured
 * with 6,000 customers, then with its peers' owners spread over 200,000 more customers: the same snapshot, and no more
 * buffers read.
 * Nothing is timed.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servers } from '../../db/schema.ts';
import { createServer, createTestApp, managerToken, type TestApp } from '../../../test/helpers.ts';
import { planCost } from '../../../test/planCost.ts';
import { encrypt, generateWireguardKeyPair } from '../../lib/crypto.ts';
import { buildSnapshot } from './desiredState.ts';

const PEERS = 6000;
const OWNERS = PEERS;

let t: TestApp;
let serverId: number;

const snapshot = async (db = t.ctx.db) => {
  const [row] = await db.select().from(servers).where(eq(servers.id, serverId));
  return buildSnapshot(db, row!, t.ctx.keys.encryption, t.ctx.keys.mesh);
};

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  serverId = (await createServer(t, await managerToken(t), 'Arranque')).id;
  const db = t.ctx.db;
  // One owner a peer, the first one disabled by a manager (its peer is not on the interface).
  await db.execute(sql`
    insert into customers (username, password_hash, active)
    select 'dueno_' || g, 'x', g > 1 from generate_series(1, ${OWNERS}) g`);
  const [{ first } = { first: 0 }] = (
    await db.execute<{ first: number }>(
      sql`select min(id) as first from customers where username like 'dueno_%'`,
    )
  ).rows;
  // One preshared key (sealed as the panel seals them) for all: the snapshot opens each.
  const psk = encrypt(t.ctx.keys.encryption, generateWireguardKeyPair().privateKey);
  await db.execute(sql`
    insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
      preshared_key_enc, mirror_token_enc, mirror_token_hash, active, expires_at)
    select ${first} + (g % ${OWNERS}), ${serverId}, 'equipo ' || g, 100 + g, '10.64.0.0'::inet + (100 + g),
      md5('arranque' || g), 'x', ${psk}, 'x', md5('espejo' || g), true, now() + interval '30 days'
    from generate_series(1, ${PEERS}) g`);
  await db.execute(sql`analyze`);
});
afterAll(() => t.close());

describe("a server's snapshot", () => {
  it('reads no more when its peers’ owners are among 200,000 customers, and leaves out a disabled owner’s peers', async () => {
    const before = await snapshot();
    // Every peer but the disabled owner's.
    expect(before.peers).toHaveLength(PEERS - PEERS / OWNERS);
    const small = await planCost(t.database, (db) => snapshot(db));

    // 200,000 more customers (and 3 more disabled, with no peers here); this server's peers, but
    // the disabled owner's, now belong to 6,000 of them spread over the whole table, as in a real
    // business (bench:fleet: each customer's peers on random servers).
    const db = t.ctx.db;
    await db.execute(sql`
      insert into customers (username, password_hash, active)
      select 'cliente_' || g, 'x', g > 3 from generate_series(1, 200003) g`);
    const [{ base } = { base: 0 }] = (
      await db.execute<{ base: number }>(
        sql`select min(id) + 3 as base from customers where username like 'cliente_%'`,
      )
    ).rows;
    await db.execute(sql`
      update peers set customer_id = ${base} + (address_index * 7919) % 200000
      where server_id = ${serverId} and customer_id <> (select min(id) from customers where username like 'dueno_%')`);
    await db.execute(sql`analyze`);
    const after = await snapshot();
    expect(after.peers.map((p) => p.public_key)).toEqual(before.peers.map((p) => p.public_key));
    const large = await planCost(t.database, (db) => snapshot(db));
    // Before (PostgreSQL 15): 516 buffers, then 2,728: a hash join over every customer.
    const seen = JSON.stringify({ small: small.buffers, large: large.buffers });
    expect(large.queries, seen).toBe(small.queries);
    expect(large.buffers, seen).toBeLessThanOrEqual(small.buffers * 1.1 + 20);
  });
});
