import { asc, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../db/client.ts';
import { customers, serverChanges } from '../../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { planCost } from '../../../test/planCost.ts';
import { AllowanceService } from '../peers/allowance.ts';
import { PeerService } from '../peers/peers.ts';
import { RoomService } from '../rooms/rooms.ts';
import { buildDelta, roomLinks } from './desiredState.ts';

/**
 * Scale guards (issue 33): what a hot path reads, in buffers and statements, must not grow with
 * rows it does not need. Each path is measured on a small fleet; then, by SQL, the customers grow
 * to 100,000, the peers that expired long ago (off, with a data allowance far from used) to
 * 20,000, the live peers with an allowance far from used to 20,000 and the rooms nobody is changing
 * to 10,000; each path is measured again. Nothing is timed.
 */
let t: TestApp;
let owner: string;
let serverId: number;
let planId: number;
let after = 0;

const service = (db: Db) => {
  const peers = new PeerService({ db, encryptionKey: t.ctx.keys.encryption, bus: t.ctx.bus });
  return {
    peers,
    rooms: new RoomService({ db, encryptionKey: t.ctx.keys.encryption, bus: t.ctx.bus, peers }),
    allowances: new AllowanceService({
      db,
      mailer: t.ctx.mailer,
      companyName: 'Escala',
      log: t.app.log,
      peers,
    }),
  };
};

const PATHS: Record<string, (db: Db) => Promise<unknown>> = {
  // Five peers changed, one of them of a customer switched off (its peer is removed by key).
  delta: (db) => buildDelta(db, serverId, after, t.ctx.keys.encryption),
  // The expiry scan: due peers only, not every peer that ever expired.
  expiry: (db) => service(db).peers.disableExpired(),
  // The 80 % notice and the switch-off at 100 %: peers past 80 % only, not every limited peer.
  allowance: (db) => service(db).allowances.enforce(),
  // Every ack settles rooms: the waiting ones only, not every room.
  settle: (db) => service(db).rooms.settle(),
};

const small: Record<string, { buffers: number; queries: number }> = {};

async function grow(): Promise<void> {
  const db = t.ctx.db;
  await db.execute(sql`
    insert into customers (username, password_hash, active)
    select 'scale_' || g, 'x', g % 2 = 0 from generate_series(1, 100000) g`);
  const [{ id: holder } = { id: 0 }] = (
    await db.execute<{ id: number }>(sql`select min(id) as id from customers where username like 'scale_%'`)
  ).rows;
  await db.execute(sql`
    insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
      preshared_key_enc, mirror_token_enc, mirror_token_hash, active, expires_at, data_allowance)
    select ${holder}, ${serverId}, 'viejo ' || g, 3000000 + g, '10.64.0.0'::inet + (3000000 + g),
      md5('k' || g), 'x', 'x', 'x', md5('m' || g), false, now() - interval '90 days', 1000000000
    from generate_series(1, 20000) g`);
  // Live peers with a data allowance far from used: most limited peers of a business (a third of
  // bench:fleet's million). The switch-offs at 100 % must not read them.
  await db.execute(sql`
    insert into peers (customer_id, server_id, name, address_index, address, public_key, private_key_enc,
      preshared_key_enc, mirror_token_enc, mirror_token_hash, active, expires_at, data_allowance)
    select ${holder}, ${serverId}, 'limitado ' || g, 4000000 + g, '10.64.0.0'::inet + (4000000 + g),
      md5('l' || g), 'x', 'x', 'x', md5('n' || g), true, now() + interval '30 days', 1000000000000
    from generate_series(1, 20000) g`);
  await db.execute(sql`
    insert into rooms (name, owner_id, password_enc)
    select 'sala escala ' || g, ${holder}, 'x' from generate_series(1, 10000) g`);
  await db.execute(sql`analyze`);
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t);
  serverId = (await createServer(t, owner, 'Escala')).id;
  planId = (await createPlan(t)).id;
  const owners = await Promise.all([1, 2, 3, 4, 5].map(() => createCustomer(t)));
  for (const c of owners) await grantPeer(t, owner, { username: c.username, plan: planId, server: serverId });
  await t.ctx.db.update(customers).set({ active: false }).where(eq(customers.id, owners[0]!.id));
  const [first] = await t.ctx.db
    .select({ revision: serverChanges.revision })
    .from(serverChanges)
    .where(eq(serverChanges.serverId, serverId))
    .orderBy(asc(serverChanges.revision))
    .limit(1);
  after = first!.revision - 1;
});
afterAll(() => t.close());

describe('scale guards', () => {
  it('a delta names the changed peers: four upserts and the switched-off owner’s removal', async () => {
    const result = await buildDelta(t.ctx.db, serverId, after, t.ctx.keys.encryption);
    if (result === null || result === 'resync') throw new Error('no delta');
    expect(result.upsert).toHaveLength(4);
    expect(result.remove).toHaveLength(1);
  });

  it('measures every path on the small fleet', async () => {
    for (const [name, work] of Object.entries(PATHS)) small[name] = await planCost(t.database, work);
  });

  it.each(Object.keys(PATHS))('%s reads no more with 1,000 times the unrelated rows', async (name) => {
    if (!(await t.ctx.db.execute(sql`select 1 from rooms limit 1`)).rows.length) await grow();
    const large = await planCost(t.database, PATHS[name]!);
    // Before issue 33: delta 1,245 buffers (every customer hashed for `not (… in (select …))`),
    // expiry and allowance one index entry per old peer, settle every room and every server.
    expect(large.queries, name).toBe(small[name]!.queries);
    expect(large.buffers, name).toBeLessThanOrEqual(small[name]!.buffers * 2 + 20);
  });

  it('room links are worked out room by room, not every local member against every member', () => {
    // 2,000 rooms of two members, all here: 4,000 members. Counted: reads of a member's id.
    let reads = 0;
    const members = Array.from({ length: 4000 }, (_, i) => {
      const m = { roomId: Math.floor(i / 2) + 1, address: `10.64.${i >> 8}.${i & 255}/32`, serverId: 1 };
      return Object.defineProperty(m, 'id', { get: () => (reads++, i + 1), enumerable: true }) as typeof m & {
        id: number;
      };
    });
    const { pairs } = roomLinks(1, members);
    expect(pairs).toHaveLength(4000);
    // Grouped: each member against its room's two (8,000 reads); the nested loop read 16,000,000.
    expect(reads).toBeLessThanOrEqual(4 * members.length);
  });
});
