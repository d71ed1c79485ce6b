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
 * link. Nothing is timed.
 */
let t: TestApp;
let admin: string;
let planId: number;
let holder: { id: number; username: string };
let rooms: RoomService;
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

/** A join of a fresh peer on C into `room`; what building each involved server's update costs. */
async function joinCost(room: number) {
  const peer = await freshPeer(servers[2]!.id);
  const involved = servers.slice(0, 3).map((s) => s.id);
  const revisions = new Map<number, number>();
  for (const id of involved) {
    const [row] = await t.ctx.db
      .execute<{ revision: number }>(sql`select revision from servers where id = ${id}`)
      .then((r) => r.rows);
    revisions.set(id, Number(row!.revision));
  }
  await rooms.addPeer(holder.id, room, peer.id);
  let queries = 0;
  let buffers = 0;
  const perServer: number[] = [];
  let meshLinks = 0;
  for (const id of involved) {
    const cost = await planCost(t.database, async (db) => {
      const delta = await buildDelta(db, id, revisions.get(id)!, t.ctx.keys.encryption, {
        meshKey: t.ctx.keys.mesh,
      });
      if (delta === null || delta === 'resync') throw new Error(`no delta: ${delta}`);
      meshLinks += delta.upsert.length;
    });
    // The site settings are read at most once a second (a cache): counted apart from the build.
    const own = cost.statements.filter((s) => !/from "settings"/.test(s.sql));
    queries += own.length;
    perServer.push(own.length);
    buffers += own.reduce((n, s) => n + s.buffers, 0);
  }
  // The joined room is left as it was, for the next measure.
  await rooms.removePeer(holder.id, room, peer.id, true);
  return { queries, buffers, meshLinks, perServer };
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
  const peerService = new PeerService({ db: t.ctx.db, encryptionKey: t.ctx.keys.encryption, bus: t.ctx.bus });
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
    // C's two links cost no more statements than A's one (before: one statement per link).
    expect(new Set(small.perServer).size).toBe(1);
  });

  it('reads the same statements and a few more index pages at 100,000 more peers and 1,000 rooms on its servers', async () => {
    const db = t.ctx.db;
    for (const [i, s] of servers.entries()) await fillServer(s.id, `relleno ${i} `);
    await db.execute(sql`vacuum analyze`);
    const large = await joinCost(room);
    console.log('room join update cost (three servers)', { small, large });
    expect(large.meshLinks).toBe(small.meshLinks);
    expect(large.queries).toBe(small.queries);
    // 4,000 more room members: room_links' pages, under one buffer per 20 members (measured: 36 →
    // 127). Read from peers, one page per member of the other server: 40 → 12,101 before.
    expect(large.buffers).toBeLessThanOrEqual(small.buffers + 200);
    expect((await db.select().from(peers).where(eq(peers.roomId, room))).length).toBe(3);
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
