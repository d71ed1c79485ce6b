import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, peers } from '../../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createRoomServer,
  createTestApp,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { planCost } from '../../../test/planCost.ts';
import { PeerService } from '../peers/peers.ts';
import { RoomService } from '../rooms/rooms.ts';
import { buildDelta } from './desiredState.ts';

/**
 * What building a room join's update reads (issue 33, bench:fleet's "one room join per second at
 * 10,000 rooms"): a room with members on servers A and B, joined by a peer on C, so that C's update
 * carries two mesh links and A's and B's one each. Measured on a small fleet, then again after, by
 * SQL, 25,000 more peers on each of the four servers, every 25th in one of 250 rooms of that server
 * alone: the statements are the same and the buffers grow by a few index pages. Before, each mesh
 * link read one page of `peers` per room member of the other server (bench:fleet: 400–800 a node,
 * 2–15 ms each from the OS cache, up to four links for the joiner's server), one statement per
 * link. Each build is one statement, the site's switch included (before: the log, the relay's
 * members and the mesh links, one round trip each, and the settings when their one-second copy had
 * expired; each round trip waited behind the instance's other work, bench:fleet's build p99 25 ms).
 * A re-key's update is one statement too (before: the log and the named peer). Nothing is timed.
 */
let t: TestApp;
let admin: string;
let planId: number;
let holder: { id: number; username: string };
let rooms: RoomService;
let peerService: PeerService;
const servers: { id: number }[] = [];

/** A peer of the holder on `server`, live and free to enter a room. */
const freshPeer = (server: number) =>
  grantPeer(t, admin, { username: holder.username, plan: planId, server, name: `libre${Math.random()}` });

/**
 * 25,000 peers on `server`, written by SQL; every 25th is in one of 250 new rooms of four, all on
 * that server: room members spread over the table's pages among peers out of rooms, as in a fleet.
 */
async function fillServer(server: number, tag: string): Promise<void> {
  const ids = (
    await t.ctx.db.execute<{ id: number }>(sql`
      insert into rooms (name, owner_id, password_enc)
      select ${tag} || g, ${holder.id}, 'x' from generate_series(1, 250) g returning id`)
  ).rows
    .map((r) => Number(r.id))
    .sort((x, y) => x - y);
  await t.ctx.db.execute(sql`
    insert into peers (customer_id, server_id, room_id, name, address_index, address, public_key,
      private_key_enc, preshared_key_enc, mirror_token_enc, mirror_token_hash, active)
    select ${holder.id}, ${server},
      case when g % 25 = 0 then (${sql.raw(`array[${ids.join(',')}]`)})[(g / 25 - 1) / 4 + 1] end,
      ${tag} || g, base.i + g, '10.64.0.0'::inet + (base.i + g), md5(${tag} || g), 'x', 'x', 'x',
      md5('m' || ${tag} || g), false
    from generate_series(1, 25000) g, (select coalesce(max(address_index), 0) + 10 as i from peers) base`);
}

/** The revision of each server in `ids`. */
async function revisionsOf(ids: readonly number[]): Promise<Map<number, number>> {
  const revisions = new Map<number, number>();
  for (const id of ids) {
    const [row] = await t.ctx.db
      .execute<{ revision: number }>(sql`select revision from servers where id = ${id}`)
      .then((r) => r.rows);
    revisions.set(id, Number(row!.revision));
  }
  return revisions;
}

/**
 * What building each of `involved`'s update after `revisions` costs, every statement counted (the
 * site settings too: a fresh Db has no copy of them), for an agent that applies room deltas or not.
 */
async function buildCost(involved: readonly number[], revisions: Map<number, number>, withRooms = true) {
  let queries = 0;
  let buffers = 0;
  const perServer: number[] = [];
  let upserts = 0;
  for (const id of involved) {
    const cost = await planCost(t.database, async (db) => {
      const delta = await buildDelta(
        db,
        id,
        revisions.get(id)!,
        t.ctx.keys.encryption,
        withRooms ? { meshKey: t.ctx.keys.mesh } : undefined,
      );
      if (delta === null || delta === 'resync') throw new Error(`no delta: ${delta}`);
      upserts += delta.upsert.length;
    });
    queries += cost.queries;
    perServer.push(cost.queries);
    buffers += cost.buffers;
  }
  return { queries, buffers, meshLinks: upserts, perServer };
}

/** A join of a fresh peer on `joiner` (C unless told) into `room`; what building each involved server's update costs. */
async function joinCost(
  room: number,
  involved = servers.slice(0, 3).map((s) => s.id),
  joiner = servers[2]!.id,
) {
  const peer = await freshPeer(joiner);
  const revisions = await revisionsOf(involved);
  await rooms.addPeer(holder.id, room, peer.id);
  const cost = await buildCost(involved, revisions);
  // The joined room is left as it was, for the next measure.
  await rooms.removePeer(holder.id, room, peer.id, true);
  return cost;
}

let room: number;
let small: Awaited<ReturnType<typeof joinCost>>;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  admin = await managerToken(t);
  planId = (await createPlan(t)).id;
  for (const name of ['CostoA', 'CostoB', 'CostoC', 'CostoD'])
    servers.push(await createRoomServer(t, admin, name));
  holder = await createCustomer(t);
  await t.ctx.db.update(customers).set({ alias: 'Dueña' }).where(eq(customers.id, holder.id));
  peerService = new PeerService({ db: t.ctx.db, encryptionKey: t.ctx.keys.encryption, bus: t.ctx.bus });
  rooms = new RoomService({
    db: t.ctx.db,
    encryptionKey: t.ctx.keys.encryption,
    bus: t.ctx.bus,
    peers: peerService,
  });
  // The room joined: two members on A, one on B.
  const [a, b] = servers;
  const first = await freshPeer(a!.id);
  const created = await rooms.create(holder.id, 'Sala medida', first.id);
  room = created.id;
  await rooms.addPeer(holder.id, room, (await freshPeer(a!.id)).id);
  await rooms.addPeer(holder.id, room, (await freshPeer(b!.id)).id);
  await t.ctx.db.execute(sql`analyze`);
});
afterAll(() => t.close());

describe("a room join's update", () => {
  it('names the mesh links the join changed: C gets links to A and B, A and B one to C', async () => {
    small = await joinCost(room);
    expect(small.meshLinks).toBe(4);
    // One statement per build, whatever its links: the log, the relay's members and the mesh links
    // read together (before: 4 each, the site settings' read among them).
    expect(small.perServer).toEqual([1, 1, 1]);
  });

  it('is one statement per build whether the room spans 1, 2 or 4 servers', async () => {
    const [a, b, c, d] = servers.map((s) => s.id) as [number, number, number, number];
    // 1: a room on A alone, joined on A.
    const alone = (await rooms.create(holder.id, 'Sala sola', (await freshPeer(a)).id)).id;
    const one = await joinCost(alone, [a], a);
    // 2: a room on A, joined on B (A's and B's updates carry one link each).
    const pair = (await rooms.create(holder.id, 'Sala par', (await freshPeer(a)).id)).id;
    const two = await joinCost(pair, [a, b], b);
    // 4: a room on A, B and D, joined on C (C's update carries three links).
    const wide = (await rooms.create(holder.id, 'Sala ancha', (await freshPeer(a)).id)).id;
    await rooms.addPeer(holder.id, wide, (await freshPeer(b)).id);
    await rooms.addPeer(holder.id, wide, (await freshPeer(d)).id);
    const four = await joinCost(wide, [a, b, c, d], c);
    console.log('room join update statements (1, 2, 4 servers)', { one, two, four });
    expect([one.meshLinks, two.meshLinks, four.meshLinks]).toEqual([0, 2, 6]);
    expect(one.perServer).toEqual([1]);
    expect(two.perServer).toEqual([1, 1]);
    expect(four.perServer).toEqual([1, 1, 1, 1]);
    for (const id of [alone, pair, wide]) await rooms.delete(holder.id, id);
  });

  it('reads the same statements and a few more index pages at 100,000 more peers and 1,000 rooms on its servers', async () => {
    const db = t.ctx.db;
    for (const [i, s] of servers.entries()) await fillServer(s.id, `relleno ${i} `);
    await db.execute(sql`vacuum analyze`);
    const large = await joinCost(room);
    console.log('room join update cost (three servers)', { small, large });
    expect(large.meshLinks).toBe(small.meshLinks);
    expect(large.queries).toBe(small.queries);
    // 4,000 more room members: room_links' pages, under one buffer per 20 members (measured: 44 →
    // 133 on PGlite, 22 → 89 on PostgreSQL, the site switch's probe included). Read from peers, one
    // page per member of the other server: 40 → 12,101 before.
    expect(large.buffers).toBeLessThanOrEqual(small.buffers + 200);
    expect((await db.select().from(peers).where(eq(peers.roomId, room))).length).toBe(3);
  });
});

describe("a re-key's update", () => {
  it('is one statement, for an agent that applies room deltas and for one that does not', async () => {
    const peer = await freshPeer(servers[3]!.id);
    const revisions = await revisionsOf([servers[3]!.id]);
    await peerService.regenerate(holder.id, peer.id);
    for (const withRooms of [true, false]) {
      const cost = await buildCost([servers[3]!.id], revisions, withRooms);
      // The new key sent, the old one removed (before: the log, then the named peer).
      expect(cost.meshLinks).toBe(1);
      expect(cost.perServer).toEqual([1]);
    }
  });
});

describe('room_links', () => {
  const linked = async () =>
    (
      await t.ctx.db.execute<{ peer_id: number; room_id: number; server_id: number; address: string }>(
        sql`select peer_id, room_id, server_id, host(address) as address from room_links order by peer_id`,
      )
    ).rows;
  const members = async () =>
    (
      await t.ctx.db.execute<{ peer_id: number; room_id: number; server_id: number; address: string }>(
        sql`select id as peer_id, room_id, server_id, host(address) as address from peers
            where room_id is not null order by id`,
      )
    ).rows;

  it('follows peers whatever changes them: a move, a leave, a room or a peer deleted, SQL by hand', async () => {
    const db = t.ctx.db;
    expect(await linked()).toEqual(await members());
    const [one, two, three] = (
      await db.execute<{ id: number; room_id: number }>(
        sql`select id, room_id from peers where room_id is not null and room_id <> ${room} order by id limit 3`,
      )
    ).rows;
    await db.execute(sql`update peers set server_id = ${servers[3]!.id} where id = ${one!.id}`);
    await db.execute(sql`update peers set room_id = null where id = ${two!.id}`);
    await db.execute(sql`delete from peers where id = ${three!.id}`);
    await db.execute(sql`delete from rooms where id = (select max(room_id) from peers)`);
    // A stats write (data_used) changes nothing here.
    await db.execute(sql`update peers set data_used = data_used + 1 where room_id is not null`);
    const after = await linked();
    expect(after).toEqual(await members());
    expect(after.find((l) => Number(l.peer_id) === one!.id)?.server_id).toBe(servers[3]!.id);
    expect(after.some((l) => Number(l.peer_id) === two!.id || Number(l.peer_id) === three!.id)).toBe(false);
  });
});
