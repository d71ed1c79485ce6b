import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { peers } from '../../db/schema.ts';
import {
  bearer,
  createMember,
  createPlan,
  createRoomServer,
  createTestApp,
  listen,
  managerToken,
  setSettings,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';

let t: TestApp;
let base: string;
let admin: string;
let planId: number;
let rooms1: { id: number; token: string; publicKey: string };
let rooms2: { id: number; token: string; publicKey: string };
let noRooms: { id: number };
const agents: ProtocolAgent[] = [];
const sockets: PushClient[] = [];

async function member(alias: string | null, serverId: number) {
  const m = await createMember(t, admin, { alias, plan: planId, server: serverId });
  const push = await PushClient.connect(base, m.access);
  sockets.push(push);
  return { ...m, push };
}

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, access: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(access), payload });

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  admin = await managerToken(t);
  planId = (await createPlan(t, { name: 'P', price: '1.00' })).id;
  rooms1 = await createRoomServer(t, admin, 'Salas1');
  rooms2 = await createRoomServer(t, admin, 'Salas2');
  noRooms = await createRoomServer(t, admin, 'SinSalas', false);
  for (const s of [rooms1, rooms2]) agents.push(await ProtocolAgent.connect(base, s.token));
});
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const a of agents) await a.close();
  await t.close();
});
beforeEach(() => setSettings(t, { allow_partys: true }));

const snapshotOf = (a: ProtocolAgent) =>
  [...a.received].reverse().find((m) => m.type === 'snapshot') as
    | {
        peers: { public_key: string; allowed_ips: string[]; endpoint?: string }[];
        room_pairs?: [string, string][];
      }
    | undefined;

describe('rooms', () => {
  it('creates a room, another customer joins with name and password, and both servers link the pair', async () => {
    const owner = await member('Ana', rooms1.id);
    const guest = await member('Luis', rooms2.id);
    const created = await api('POST', '/api/client/network/partys', owner.access, {
      name: 'Counter Strike',
      peer: owner.peer.id,
    });
    expect(created.statusCode).toBe(201);
    const room = created.json();
    expect(room).toMatchObject({
      name: 'Counter Strike',
      user: 'Ana',
      peers: [{ id: owner.peer.id, user: 'Ana', private_ip: owner.peer.address }],
    });
    expect(room.password).toMatch(/^[A-Za-z0-9]{10}$/);

    const joined = await api('PATCH', '/api/client/network/partys', guest.access, {
      operation: 'join',
      name: 'counter strike',
      password: room.password,
      peer: guest.peer.id,
    });
    expect(joined.statusCode).toBe(200);
    expect(joined.json().password).toBeNull();
    expect(joined.json().peers.map((p: { user: string }) => p.user)).toEqual(['Ana', 'Luis']);

    const [a1, a2] = agents as [ProtocolAgent, ProtocolAgent];
    await a1.until(() =>
      (snapshotOf(a1)?.room_pairs ?? []).some(
        ([x, y]) => x === owner.peer.address && y === guest.peer.address,
      ),
    );
    const s1 = snapshotOf(a1)!;
    expect(s1.room_pairs).toContainEqual([guest.peer.address, owner.peer.address]);
    // The mesh link to server 2 carries exactly the guest's address.
    expect(s1.peers.find((p) => p.public_key === rooms2.publicKey)).toMatchObject({
      allowed_ips: [`${guest.peer.address}/32`],
      endpoint: 'salas2.example:51820',
    });
    await a2.until(() => snapshotOf(a2)?.peers.some((p) => p.public_key === rooms1.publicKey) ?? false);
    expect(snapshotOf(a2)!.peers.find((p) => p.public_key === rooms1.publicKey)!.allowed_ips).toEqual([
      `${owner.peer.address}/32`,
    ]);
    // Same mesh key on both sides.
    const psk1 = (
      snapshotOf(a1)!.peers.find((p) => p.public_key === rooms2.publicKey) as { preshared_key?: string }
    ).preshared_key;
    const psk2 = (
      snapshotOf(a2)!.peers.find((p) => p.public_key === rooms1.publicKey) as { preshared_key?: string }
    ).preshared_key;
    expect(psk1).toBe(psk2);

    await owner.push.waitFor('updated_owner_party');
    await guest.push.waitFor('updated_guest_party');
    const lists = (await api('GET', '/api/client/network/partys', guest.access)).json();
    expect(lists.owned_partys).toEqual([]);
    expect(lists.guest_partys[0]).toMatchObject({ name: 'Counter Strike', user: 'Ana', password: null });
    const peersOfGuest = (await api('GET', '/api/client/accounts/peers', guest.access)).json();
    expect(peersOfGuest[0].party).toEqual({ id: room.id, name: 'Counter Strike' });

    // The guest leaves: the pairs and the mesh link go away.
    const left = await api('PATCH', `/api/client/network/partys/${room.id}`, guest.access, {
      operation: 'leave',
      peer: guest.peer.id,
    });
    expect(left.statusCode).toBe(200);
    await guest.push.waitFor('deleted_guest_party');
    await a1.until(
      () =>
        (snapshotOf(a1)?.room_pairs ?? []).length === 0 &&
        !snapshotOf(a1)!.peers.some((p) => p.public_key === rooms2.publicKey),
    );
  });

  it('says in each room whether LAN games find each other there: off where the site or a member’s server turned discovery off', async () => {
    const owner = await member('Elena', rooms1.id);
    const guest = await member('Hugo', rooms2.id);
    const room = (
      await api('POST', '/api/client/network/partys', owner.access, { name: 'Descubre', peer: owner.peer.id })
    ).json();
    const alone = await member('Sola', rooms1.id);
    const aloneRoom = (
      await api('POST', '/api/client/network/partys', alone.access, { name: 'Aparte', peer: alone.peer.id })
    ).json();
    expect(room.discovery).toBe(true);
    await api('PATCH', '/api/client/network/partys', guest.access, {
      operation: 'join',
      name: 'Descubre',
      password: room.password,
      peer: guest.peer.id,
    });
    const discovery = async (who: { access: string }, list: 'owned_partys' | 'guest_partys', id: number) => {
      const lists = (await api('GET', '/api/client/network/partys', who.access)).json();
      return lists[list].find((r: { id: number }) => r.id === id).discovery as boolean;
    };
    expect(await discovery(owner, 'owned_partys', room.id)).toBe(true);
    expect(await discovery(guest, 'guest_partys', room.id)).toBe(true);

    // The site's switch: off for every room.
    await setSettings(t, { allow_discovery: false });
    try {
      expect(await discovery(owner, 'owned_partys', room.id)).toBe(false);
      expect(await discovery(guest, 'guest_partys', room.id)).toBe(false);
      expect(await discovery(alone, 'owned_partys', aloneRoom.id)).toBe(false);
    } finally {
      await setSettings(t, { allow_discovery: true });
    }

    // One server's switch: off for the rooms with a member there, on for the others.
    const off = await api('PATCH', `/api/admin/servers/${rooms2.id}`, admin, { allow_discovery: false });
    expect(off.statusCode).toBe(200);
    try {
      expect(await discovery(owner, 'owned_partys', room.id)).toBe(false);
      expect(await discovery(guest, 'guest_partys', room.id)).toBe(false);
      expect(await discovery(alone, 'owned_partys', aloneRoom.id)).toBe(true);
    } finally {
      await api('PATCH', `/api/admin/servers/${rooms2.id}`, admin, { allow_discovery: true });
    }
    expect(await discovery(owner, 'owned_partys', room.id)).toBe(true);
  });

  it('applies the spec’s rules and messages', async () => {
    const noAlias = await member(null, rooms1.id);
    expect(
      (
        await api('POST', '/api/client/network/partys', noAlias.access, { name: 'X', peer: noAlias.peer.id })
      ).json().message,
    ).toBe('Configura un alias en tu cuenta antes de usar las salas');
    const owner = await member('Pedro', rooms1.id);
    expect(
      (
        await api('POST', '/api/client/network/partys', owner.access, { name: ' ', peer: owner.peer.id })
      ).json().message,
    ).toBe('Por favor, ingrese un nombre para la sala');
    expect(
      (await api('POST', '/api/client/network/partys', owner.access, { name: 'Sin peer' })).json().message,
    ).toBe('Por favor, selecciona un peer para añadir');
    expect(
      (
        await api('PATCH', '/api/client/network/partys', owner.access, {
          operation: 'join',
          name: 'x',
          password: '',
        })
      ).json().message,
    ).toBe('Por favor, complete todos los campos');
    const wrongServer = await member('Rosa', noRooms.id);
    expect(
      (
        await api('POST', '/api/client/network/partys', wrongServer.access, {
          name: 'R',
          peer: wrongServer.peer.id,
        })
      ).json().message,
    ).toBe('El servidor del peer no permite salas. Cámbialo a uno que las permita.');

    // Five owned rooms at most, each needs a free peer.
    for (let i = 0; i < 5; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/peers',
        headers: bearer(admin),
        payload: { username: owner.username, plan: planId, name: `p${i}`, server: rooms1.id },
      });
      const created = await api('POST', '/api/client/network/partys', owner.access, {
        name: `Sala ${owner.username} ${i}`,
        peer: res.json().id,
      });
      expect(created.statusCode).toBe(201);
    }
    const sixth = await api('POST', '/api/client/network/partys', owner.access, {
      name: 'Sexta',
      peer: owner.peer.id,
    });
    expect(sixth.statusCode).toBe(400);
    expect(sixth.json().message).toBe('No se pueden crear más de 5 salas');

    const busy = (await api('GET', '/api/client/network/partys', owner.access)).json().owned_partys[0];
    const again = await api('PATCH', '/api/client/network/partys', noAlias.access, {
      operation: 'join',
      name: busy.name,
      password: 'incorrecta',
      peer: noAlias.peer.id,
    });
    expect(again.json().message).toBe('Configura un alias en tu cuenta antes de usar las salas');
    const intruder = await member('Intruso', rooms1.id);
    const wrong = await api('PATCH', '/api/client/network/partys', intruder.access, {
      operation: 'join',
      name: busy.name,
      password: 'incorrecta',
      peer: intruder.peer.id,
    });
    expect(wrong.json().message).toBe('Nombre de sala o contraseña incorrectos');
    // Someone else's room is simply not found.
    expect((await api('DELETE', `/api/client/network/partys/${busy.id}`, intruder.access)).statusCode).toBe(
      404,
    );
  });

  it('never lets concurrent creations pass the 5-room limit, nor leave a room without its peer', async () => {
    const owner = await member('Carla', rooms1.id);
    const peerIds: number[] = [];
    for (let i = 0; i < 8; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/peers',
        headers: bearer(admin),
        payload: { username: owner.username, plan: planId, name: `c${i}`, server: rooms1.id },
      });
      peerIds.push(res.json().id);
    }
    const created = await Promise.all(
      peerIds.map((peer, i) =>
        api('POST', '/api/client/network/partys', owner.access, { name: `Carla ${i}`, peer }),
      ),
    );
    expect(created.filter((r) => r.statusCode === 201)).toHaveLength(5);
    for (const refused of created.filter((r) => r.statusCode !== 201)) {
      expect(refused.statusCode).toBe(400);
      expect(refused.json().message).toBe('No se pueden crear más de 5 salas');
    }
    const listed = (await api('GET', '/api/client/network/partys', owner.access)).json();
    expect(listed.owned_partys).toHaveLength(5);
    for (const room of listed.owned_partys) expect(room.peers).toHaveLength(1);

    // Two rooms created at once with the same peer: one gets it, the other is not created at all.
    const other = await member('Diego', rooms1.id);
    const pair = await Promise.all(
      ['Diego A', 'Diego B'].map((name) =>
        api('POST', '/api/client/network/partys', other.access, { name, peer: other.peer.id }),
      ),
    );
    expect(pair.map((r) => r.statusCode).sort()).toEqual([201, 409]);
    const mine = (await api('GET', '/api/client/network/partys', other.access)).json().owned_partys;
    expect(mine).toHaveLength(1);
    expect(mine[0].peers.map((p: { id: number }) => p.id)).toEqual([other.peer.id]);
  });

  it('lets the owner regenerate the password, remove peers and delete the room; guests only remove their own', async () => {
    const owner = await member('Marta', rooms1.id);
    const guest = await member('Jose', rooms2.id);
    const room = (
      await api('POST', '/api/client/network/partys', owner.access, {
        name: 'Minecraft',
        peer: owner.peer.id,
      })
    ).json();
    await api('PATCH', '/api/client/network/partys', guest.access, {
      operation: 'join',
      name: 'Minecraft',
      password: room.password,
      peer: guest.peer.id,
    });
    const regen = await api('PATCH', `/api/client/network/partys/${room.id}`, owner.access, {
      operation: 'regenerate_password',
    });
    expect(regen.json().password).not.toBe(room.password);
    expect(
      (
        await api('PATCH', `/api/client/network/partys/${room.id}`, guest.access, {
          operation: 'regenerate_password',
        })
      ).statusCode,
    ).toBe(403);
    expect(
      (
        await api('PATCH', `/api/client/network/partys/${room.id}`, guest.access, {
          operation: 'remove_peer',
          peer: owner.peer.id,
        })
      ).json().message,
    ).toBe('Solo el administrador de la sala puede hacer esto');
    const removed = await api('PATCH', `/api/client/network/partys/${room.id}`, owner.access, {
      operation: 'remove_peer',
      peer: guest.peer.id,
    });
    expect(removed.json().peers, removed.body).toHaveLength(1);
    await guest.push.waitFor('deleted_guest_party');
    const deleted = await api('DELETE', `/api/client/network/partys/${room.id}`, owner.access);
    expect(deleted.json().message).toBe('Party eliminada');
    await owner.push.waitFor('deleted_owner_party');
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, owner.peer.id));
    expect(row!.roomId).toBeNull();
  });

  it('refuses a join or an added peer to a full room with a clear message and changes nothing; concurrent joins never pass the cap (issue 31)', async () => {
    // The operator's setting, through Ajustes' API: checked, audited, and read back.
    for (const bad of [1, 65, 2.5, 'x']) {
      const res = await api('PATCH', '/api/admin/settings', admin, { room_member_limit: bad });
      expect(res.statusCode).toBe(400);
      expect(res.json().fields).toEqual({ room_member_limit: 'Una sala admite entre 2 y 64 peers.' });
    }
    expect((await api('GET', '/api/admin/settings', admin)).json().room_member_limit).toBe(16);
    const set = await api('PATCH', '/api/admin/settings', admin, { room_member_limit: 3 });
    expect(set.statusCode, set.body).toBe(200);
    expect(set.json().room_member_limit).toBe(3);
    try {
      const owner = await member('Lena', rooms1.id);
      const room = (
        await api('POST', '/api/client/network/partys', owner.access, { name: 'Llena', peer: owner.peer.id })
      ).json();
      const join = (who: { access: string; peer: { id: number } }) =>
        api('PATCH', '/api/client/network/partys', who.access, {
          operation: 'join',
          name: 'Llena',
          password: room.password,
          peer: who.peer.id,
        });
      const guest = await member('Ivo', rooms2.id);
      expect((await join(guest)).statusCode).toBe(200);
      const second = await t.app.inject({
        method: 'POST',
        url: '/api/admin/peers',
        headers: bearer(admin),
        payload: { username: owner.username, plan: planId, name: 'l2', server: rooms1.id },
      });
      const add = (peer: number) =>
        api('PATCH', `/api/client/network/partys/${room.id}`, owner.access, { operation: 'add_peer', peer });
      expect((await add(second.json().id)).statusCode).toBe(200);
      // Full: 3 of 3.
      const full =
        'La sala está llena: admite hasta 3 peers. Pídele al administrador de la sala que libere un lugar.';
      const late = await member('Tardío', rooms1.id);
      const refused = await join(late);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().message).toBe(full);
      const third = await t.app.inject({
        method: 'POST',
        url: '/api/admin/peers',
        headers: bearer(admin),
        payload: { username: owner.username, plan: planId, name: 'l3', server: rooms1.id },
      });
      const refusedAdd = await add(third.json().id);
      expect(refusedAdd.statusCode).toBe(409);
      expect(refusedAdd.json().message).toBe(full);
      const [lateRow] = await t.ctx.db.select().from(peers).where(eq(peers.id, late.peer.id));
      const [thirdRow] = await t.ctx.db.select().from(peers).where(eq(peers.id, third.json().id));
      expect([lateRow!.roomId, thirdRow!.roomId]).toEqual([null, null]);
      const listed = (await api('GET', '/api/client/network/partys', owner.access)).json().owned_partys;
      expect(listed.find((r: { id: number }) => r.id === room.id).peers).toHaveLength(3);
      expect((await api('GET', '/api/client/network/partys', late.access)).json().guest_partys).toEqual([]);

      // A place freed: of four guests joining at once, exactly one gets it.
      await api('PATCH', `/api/client/network/partys/${room.id}`, owner.access, {
        operation: 'remove_peer',
        peer: second.json().id,
      });
      const racers = await Promise.all(['Ana', 'Bo', 'Cy', 'Di'].map((a) => member(`${a} R`, rooms1.id)));
      const raced = await Promise.all(racers.map(join));
      expect(raced.map((r) => r.statusCode).sort()).toEqual([200, 409, 409, 409]);
      const after = (await api('GET', '/api/client/network/partys', owner.access)).json().owned_partys;
      expect(after.find((r: { id: number }) => r.id === room.id).peers).toHaveLength(3);
    } finally {
      await setSettings(t, { room_member_limit: 16 });
    }
  });

  it('is closed when rooms are off', async () => {
    const c = await member('Off', rooms1.id);
    await setSettings(t, { allow_partys: false });
    const res = await api('GET', '/api/client/network/partys', c.access);
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Las salas no están habilitadas');
  });
});
