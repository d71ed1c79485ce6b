import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServerDelta, ServerSnapshot } from '@vpn/contracts';
import { customers, peers, servers } from '../../db/schema.ts';
import { encrypt } from '../../lib/crypto.ts';
import {
  createCustomer,
  createPlan,
  createRoomServer,
  createTestApp,
  grantPeer,
  listen,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent } from '../../../test/protocolAgent.ts';
import { PeerService } from '../peers/peers.ts';
import { RoomService } from '../rooms/rooms.ts';
import { invalidateSiteSettings, updateSiteSettings } from '../site/settings.ts';
import { buildDelta, buildSnapshot } from './desiredState.ts';

/**
 * Room changes as deltas (issue 33): a join, a leave, a room's deletion or a member's move to
 * another server reaches an agent that said `room_deltas` as that room's pairs, relay entry and mesh
 * links only, whatever the number of other rooms on the server; the agent's state after the deltas
 * equals a fresh snapshot's. Nothing is timed: the guard counts pairs and bytes.
 */
let t: TestApp;
let base: string;
let admin: string;
let planId: number;
let holder: number;
let a: { id: number; token: string; publicKey: string };
let b: { id: number; token: string; publicKey: string };
let c: { id: number; token: string; publicKey: string };
let rooms: RoomService;
let peerService: PeerService;
/** Rooms seeded so far, per server. */
const seeded = new Map<number, number>();
let batches = 0;
const agents: ProtocolAgent[] = [];

/** `n` more rooms of four members on `server` (A unless told), written by SQL (members switched off: no keys sent). */
async function seedRooms(n: number, server = a.id): Promise<number[]> {
  const pass = encrypt(t.ctx.keys.encryption, 'secreto1234');
  const tag = `sala delta ${++batches}`;
  const ids = (
    await t.ctx.db.execute<{ id: number }>(sql`
      insert into rooms (name, owner_id, password_enc)
      select ${tag} || '-' || g, ${holder}, ${pass} from generate_series(1, ${n}::int) g
      returning id`)
  ).rows
    .map((r) => Number(r.id))
    .sort((x, y) => x - y);
  // Addresses after every one taken so far (the API's allocator takes the next free ones after them).
  await t.ctx.db.execute(sql`
    insert into peers (customer_id, server_id, room_id, name, address_index, address, public_key,
      private_key_enc, preshared_key_enc, mirror_token_enc, mirror_token_hash, active)
    select ${holder}, ${server}, (${sql.raw(`array[${ids.join(',')}]`)})[(g - 1) / 4 + 1], 'miembro ' || g,
      base.i + g, '10.64.0.0'::inet + (base.i + g), md5(${tag} || g), 'x', 'x', 'x', md5('m' || ${tag} || g), false
    from generate_series(1, ${4 * n}::int) g, (select coalesce(max(address_index), 0) + 10 as i from peers) base`);
  seeded.set(server, (seeded.get(server) ?? 0) + n);
  return ids;
}

async function serverRow(id: number) {
  const [row] = await t.ctx.db.select().from(servers).where(eq(servers.id, id));
  return row!;
}

const snapshotOf = async (id: number): Promise<ServerSnapshot> =>
  buildSnapshot(t.ctx.db, await serverRow(id), t.ctx.keys.encryption, t.ctx.keys.mesh);

/** The delta an agent that said `room_deltas` gets for everything after `revision`. */
async function deltaAfter(id: number, revision: number): Promise<ServerDelta> {
  const d = await buildDelta(t.ctx.db, id, revision, t.ctx.keys.encryption, { meshKey: t.ctx.keys.mesh });
  if (d === null || d === 'resync') throw new Error(`no delta: ${d}`);
  return d;
}

const revisionOf = async (id: number) => (await serverRow(id)).revision;

/** Waits until a peer's change is acked by its agents (no longer busy), as a customer would. */
async function untilIdle(peerId: number): Promise<void> {
  for (let i = 0; i < 750; i++) {
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peerId));
    if (row?.pendingOperation === null) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('peer still busy');
}

/** A peer of the holder on `server`, live, free to enter a room. */
const freshPeer = (server: number) =>
  grantPeer(t, admin, { username: holderName, plan: planId, server, name: `libre${Math.random()}` });
let holderName: string;

const host = (address: string) => address.replace(/\/\d+$/, '');

/** What an agent enforces: its peers (key → addresses), room pairs and relay rooms. */
const stateOf = (s: {
  peers: Iterable<{ public_key: string; allowed_ips: string[] }>;
  pairs: Iterable<string>;
  relay: Iterable<{ id: number; local: string[]; remote: string[] }>;
}) => ({
  peers: Object.fromEntries([...s.peers].map((p) => [p.public_key, [...p.allowed_ips].sort()])),
  pairs: [...s.pairs].sort(),
  relay: [...s.relay].sort((x, y) => x.id - y.id),
});
const snapshotState = (s: ServerSnapshot) =>
  stateOf({
    peers: s.peers,
    pairs: (s.room_pairs ?? []).map(([x, y]) => `${x}>${y}`),
    relay: s.relay?.rooms ?? [],
  });
const agentState = (g: ProtocolAgent) =>
  stateOf({ peers: g.peers.values(), pairs: g.roomPairs, relay: g.relayRooms.values() });

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  admin = await managerToken(t);
  planId = (await createPlan(t, { name: 'P', price: '1.00' })).id;
  a = await createRoomServer(t, admin, 'DeltaA');
  b = await createRoomServer(t, admin, 'DeltaB');
  c = await createRoomServer(t, admin, 'DeltaC');
  const owner = await createCustomer(t);
  holder = owner.id;
  holderName = owner.username;
  await t.ctx.db.update(customers).set({ alias: 'Dueña' }).where(eq(customers.id, holder));
  peerService = new PeerService({ db: t.ctx.db, encryptionKey: t.ctx.keys.encryption, bus: t.ctx.bus });
  rooms = new RoomService({
    db: t.ctx.db,
    encryptionKey: t.ctx.keys.encryption,
    bus: t.ctx.bus,
    peers: peerService,
  });
});
afterAll(async () => {
  for (const g of agents) await g.close();
  await t.close();
});

describe('a room join at N rooms on the server', () => {
  const measured: { rooms: number; pairs: number; bytes: number; snapshotBytes: number }[] = [];

  it.each([10, 1000])('sends that room only, at %i rooms', async (n) => {
    const ids = await seedRooms(n - (seeded.get(a.id) ?? 0));
    const room = ids.at(-1)!;
    const peer = await freshPeer(a.id);
    const before = await revisionOf(a.id);
    await rooms.addPeer(holder, room, peer.id);
    const delta = await deltaAfter(a.id, before);
    const mates = (await t.ctx.db.select().from(peers).where(eq(peers.roomId, room))).map((m) =>
      host(m.address),
    );
    expect(mates).toHaveLength(5);
    // The new member with each of the four others, both ways; nothing of the other rooms.
    expect(delta.room_pairs_add).toHaveLength(8);
    for (const [x, y] of delta.room_pairs_add!) expect(mates).toEqual(expect.arrayContaining([x, y]));
    expect(delta.room_pairs_remove).toEqual([]);
    expect(delta.relay_rooms).toEqual([
      { id: room, local: expect.arrayContaining(mates) as unknown, remote: [] },
    ]);
    // No peer and no mesh link to write: the whole room is here, the joiner's keys do not change.
    expect(delta.upsert).toEqual([]);
    expect(delta.remove).toEqual([]);
    const snapshot = await snapshotOf(a.id);
    measured.push({
      rooms: n,
      pairs: delta.room_pairs_add!.length,
      bytes: JSON.stringify(delta).length,
      snapshotBytes: JSON.stringify(snapshot).length,
    });
    // Before issue 33 the join was that snapshot: every pair of every room on the server.
    expect(snapshot.room_pairs!.length).toBeGreaterThanOrEqual(12 * n);
  });

  it('costs the same bytes at 1,000 rooms as at 10; the snapshot it replaces grows with the rooms', () => {
    const [small, large] = measured as [(typeof measured)[0], (typeof measured)[0]];
    console.log('room join deltas', measured);
    expect(large.pairs).toBe(small.pairs);
    // Same shape; only the numbers' digits (addresses, revisions, ids) may differ.
    expect(Math.abs(large.bytes - small.bytes)).toBeLessThan(64);
    expect(large.snapshotBytes).toBeGreaterThan(50 * small.snapshotBytes);
  });
});

describe("a room member's move at N rooms on the server", () => {
  const measured: { rooms: number; pairs: number; bytes: number; snapshotBytes: number }[] = [];

  it.each([10, 1000])(
    "sends its room only, to the old, the new and the other members' servers, at %i rooms",
    async (n) => {
      // Room `room` on the crowded server C (four members, among n rooms), one member on E, and
      // the mover, which goes from D to C and back. D and E are new: their mesh links to C carry
      // this room's mates only (a link carries every room the two servers share).
      const d = await createRoomServer(t, admin, `DeltaD${n}`);
      const e = await createRoomServer(t, admin, `DeltaE${n}`);
      const ids = await seedRooms(n - (seeded.get(c.id) ?? 0), c.id);
      const room = ids.at(-1)!;
      const far = await freshPeer(e.id);
      await rooms.addPeer(holder, room, far.id);
      const mover = await freshPeer(d.id);
      await rooms.addPeer(holder, room, mover.id);
      const addresses = (await t.ctx.db.select().from(peers).where(eq(peers.roomId, room))).map((m) =>
        host(m.address),
      );
      expect(addresses).toHaveLength(6);
      const me = host(mover.address);
      let pairs = 0;
      let bytes = 0;
      for (const [from, to] of [
        [d, c],
        [c, d],
      ] as const) {
        const involved = [c, d, e];
        const revisions = await Promise.all(involved.map((s) => revisionOf(s.id)));
        await peerService.adminChangeServer(mover.id, to.id);
        const deltas = await Promise.all(involved.map((s, i) => deltaAfter(s.id, revisions[i]!)));
        for (const [i, delta] of deltas.entries()) {
          const server = involved[i]!;
          // That room only: its relay entry, its members' pairs, mesh links carrying its members.
          for (const r of delta.relay_rooms!) expect(r.id).toBe(room);
          for (const id of delta.relay_rooms_remove!) expect(id).toBe(room);
          for (const [x, y] of [...delta.room_pairs_add!, ...delta.room_pairs_remove!]) {
            expect(addresses).toEqual(expect.arrayContaining([x, y]));
            expect([x, y]).toContain(me);
          }
          for (const p of delta.upsert)
            if (p.public_key !== mover.publicKey)
              for (const ip of p.allowed_ips) expect(addresses).toContain(ip.replace(/\/32$/, ''));
          // The mover's own key leaves the old server and reaches the new one.
          if (server === from) expect(delta.remove).toContain(mover.publicKey);
          if (server === to) expect(delta.upsert.map((p) => p.public_key)).toContain(mover.publicKey);
          pairs += delta.room_pairs_add!.length + delta.room_pairs_remove!.length;
          bytes += JSON.stringify(delta).length;
        }
        // On D the mover's pairs with its five mates come and go (both ways); on C only those with
        // the member on E (C's members already allowed the mover as a mate); none on E.
        const [onC, onD, onE] = deltas;
        expect(onD!.room_pairs_add!.length + onD!.room_pairs_remove!.length).toBe(10);
        expect(onC!.room_pairs_add!.length + onC!.room_pairs_remove!.length).toBe(2);
        expect(onE!.room_pairs_add!.length + onE!.room_pairs_remove!.length).toBe(0);
        // E's link to C carries C's mates, the mover among them while it is there.
        const link = onE!.upsert.find((p) => p.public_key === c.publicKey);
        expect(link?.allowed_ips).toHaveLength(to === c ? 5 : 4);
      }
      const snapshot = await snapshotOf(c.id);
      measured.push({ rooms: n, pairs, bytes, snapshotBytes: JSON.stringify(snapshot).length });
      // Before, each of these moves sent C, D and E that snapshot: every pair of every room there.
      expect(snapshot.room_pairs!.length).toBeGreaterThanOrEqual(12 * n);
    },
  );

  it('costs the same at 1,000 rooms as at 10; the snapshot it replaces grows with the rooms', () => {
    const [small, large] = measured as [(typeof measured)[0], (typeof measured)[0]];
    console.log('room member move deltas (there and back, three servers)', measured);
    expect(large.pairs).toBe(small.pairs);
    expect(Math.abs(large.bytes - small.bytes)).toBeLessThan(160);
    expect(large.snapshotBytes).toBeGreaterThan(50 * small.snapshotBytes);
  });
});

describe("a room delta and the relay's switches", () => {
  it('carries no relay entry while the site or the server relays nothing; a malformed site switch reads as its default', async () => {
    const [room] = await seedRooms(1);
    const joinDelta = async () => {
      const peer = await freshPeer(a.id);
      const before = await revisionOf(a.id);
      await rooms.addPeer(holder, room!, peer.id);
      const delta = await deltaAfter(a.id, before);
      await rooms.removePeer(holder, room!, peer.id, true);
      return delta;
    };
    const relayed = (d: ServerDelta) => ({
      rooms: d.relay_rooms!.map((r) => r.id),
      removed: d.relay_rooms_remove,
    });
    expect(relayed(await joinDelta())).toEqual({ rooms: [room], removed: [] });
    // Written without the switch's full change (which would send a snapshot instead).
    await updateSiteSettings(t.ctx.db, { allow_discovery: false });
    const siteOff = await joinDelta();
    expect(relayed(siteOff)).toEqual({ rooms: [], removed: [] });
    expect(siteOff.room_pairs_add).toHaveLength(8);
    await t.ctx.db.execute(sql`update settings set value = '"no"'::jsonb where key = 'allow_discovery'`);
    invalidateSiteSettings(t.ctx.db);
    expect(relayed(await joinDelta())).toEqual({ rooms: [room], removed: [] });
    await updateSiteSettings(t.ctx.db, { allow_discovery: true });
    await t.ctx.db.update(servers).set({ allowDiscovery: false }).where(eq(servers.id, a.id));
    expect(relayed(await joinDelta())).toEqual({ rooms: [], removed: [] });
    await t.ctx.db.update(servers).set({ allowDiscovery: true }).where(eq(servers.id, a.id));
  });
});

describe('agents that apply room deltas', () => {
  it('follow a join across two servers, a leave and a deletion by deltas alone, ending where a snapshot would', async () => {
    // Seeded by SQL, which records no change: before the agents connect, so their snapshots have it.
    const [room] = await seedRooms(1);
    const ga = await ProtocolAgent.connect(base, a.token, { hello: { room_deltas: true } });
    const gb = await ProtocolAgent.connect(base, b.token, { hello: { room_deltas: true } });
    agents.push(ga, gb);
    const snapshotsAtStart = [ga, gb].map((g) => g.received.filter((m) => m.type === 'snapshot').length);
    const there = await freshPeer(b.id);
    const here = await freshPeer(a.id);
    const following: [ProtocolAgent, number][] = [
      [ga, a.id],
      [gb, b.id],
    ];
    const converged = async () => {
      for (const [g, id] of following) {
        const want = await revisionOf(id);
        await g.until(() => g.revision >= want);
        expect(agentState(g)).toEqual(snapshotState(await snapshotOf(id)));
      }
    };
    await converged();

    await rooms.addPeer(holder, room!, there.id);
    await rooms.addPeer(holder, room!, here.id);
    await converged();
    // The mesh links carry exactly the mates on the other side.
    const addresses = (await t.ctx.db.select().from(peers).where(eq(peers.roomId, room!)))
      .filter((m) => m.serverId === a.id)
      .map((m) => `${host(m.address)}/32`)
      .sort();
    expect(gb.peers.get(a.publicKey)?.allowed_ips).toEqual(addresses);
    expect(ga.peers.get(b.publicKey)?.allowed_ips).toEqual([`${host(there.address)}/32`]);

    // A member moves to the other server and back, a mate on a third server (issue 33): deltas too.
    const f = await createRoomServer(t, admin, 'DeltaF');
    const far = await freshPeer(f.id);
    await rooms.addPeer(holder, room!, far.id);
    const gf = await ProtocolAgent.connect(base, f.token, { hello: { room_deltas: true } });
    agents.push(gf);
    snapshotsAtStart.push(gf.received.filter((m) => m.type === 'snapshot').length);
    following.push([gf, f.id]);
    await converged();
    for (const to of [a.id, b.id]) {
      await peerService.adminChangeServer(there.id, to);
      await converged();
      await untilIdle(there.id);
    }
    expect(gf.peers.get(b.publicKey)?.allowed_ips).toEqual([`${host(there.address)}/32`]);

    await rooms.removePeer(holder, room!, there.id, true);
    await converged();
    expect(ga.peers.has(b.publicKey)).toBe(false);
    expect(gb.peers.has(a.publicKey)).toBe(false);

    await rooms.addPeer(holder, room!, there.id);
    await converged();
    await rooms.delete(holder, room!);
    await converged();
    expect(gb.roomPairs.size).toBe(0);
    expect([...ga.relayRooms.keys()]).not.toContain(room);
    // No snapshot was needed for any of it.
    expect(following.map(([g]) => g.received.filter((m) => m.type === 'snapshot').length)).toEqual(
      snapshotsAtStart,
    );
  });

  it('an agent that does not say room_deltas still gets each room change as a snapshot', async () => {
    await Promise.all(agents.splice(0).map((g) => g.close()));
    const [room] = await seedRooms(1);
    const old = await ProtocolAgent.connect(base, a.token);
    agents.push(old);
    const peer = await freshPeer(a.id);
    const snapshots = () => old.received.filter((m) => m.type === 'snapshot').length;
    const before = snapshots();
    await rooms.addPeer(holder, room!, peer.id);
    const want = await revisionOf(a.id);
    await old.until(() => old.revision >= want);
    expect(snapshots()).toBe(before + 1);
    expect(agentState(old)).toEqual(snapshotState(await snapshotOf(a.id)));
  });
});
