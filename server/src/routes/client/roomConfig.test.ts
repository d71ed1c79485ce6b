/**
 * The room-only tunnel (issue 25, part 2): `GET /api/client/accounts/peers/{id}?scope=room`. The
 * files are read back here with a parser of their own, and compared with the normal `.conf` and
 * with addresses computed here, not with the renderer's constants.
 */
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
let serverA: number;
let serverB: number;
const agents: ProtocolAgent[] = [];
const sockets: PushClient[] = [];

/** A wg-quick file as sections of `key -> value` (keys may repeat in wg-quick; not in ours). */
function parseConf(text: string): { iface: Map<string, string>; peer: Map<string, string> } {
  const iface = new Map<string, string>();
  const peer = new Map<string, string>();
  let section: Map<string, string> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (line === '[Interface]') section = iface;
    else if (line === '[Peer]') section = peer;
    else {
      const at = line.indexOf('=');
      expect(at, `línea sin '=': ${line}`).toBeGreaterThan(0);
      expect(section, 'clave fuera de una sección').not.toBeNull();
      section!.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
    }
  }
  return { iface, peer };
}

const cidrs = (value: string | undefined) => (value ?? '').split(',').map((s) => s.trim());

/** Whether an IPv4 address lies in a CIDR, by plain arithmetic. */
function inCidr(address: string, cidr: string): boolean {
  const toInt = (a: string) => a.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const [net, bits] = cidr.split('/') as [string, string];
  const size = 2 ** (32 - Number(bits));
  return Math.floor(toInt(address) / size) === Math.floor(toInt(net) / size);
}

async function newServer(name: string) {
  const server = await createRoomServer(t, admin, name);
  agents.push(await ProtocolAgent.connect(base, server.token));
  return server.id;
}

async function member(alias: string, serverId: number, peerName = 'PC') {
  const m = await createMember(t, admin, { alias, plan: planId, server: serverId, name: peerName });
  const push = await PushClient.connect(base, m.access);
  sockets.push(push);
  return { ...m, push };
}

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, access: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(access), payload });
const download = (access: string, id: number, query = '') =>
  api('GET', `/api/client/accounts/peers/${id}${query}`, access);

const NOT_IN_ROOM =
  'Este peer no está en ninguna sala: la configuración solo para la Sala existe mientras el peer esté en una.';

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  admin = await managerToken(t);
  planId = (await createPlan(t, { name: 'P', price: '1.00' })).id;
  serverA = await newServer('SalaA');
  serverB = await newServer('SalaB');
});
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const a of agents) await a.close();
  await t.close();
});
beforeEach(() => setSettings(t, { allow_partys: true }));

/** A room of `owner` and `guest` (on the other server), once both customers were told it is ready. */
async function roomOf(owner: Awaited<ReturnType<typeof member>>, guest: Awaited<ReturnType<typeof member>>) {
  const name = `Sala ${owner.username}`;
  const created = await api('POST', '/api/client/network/partys', owner.access, {
    name,
    peer: owner.peer.id,
  });
  expect(created.statusCode).toBe(201);
  const room = created.json<{ id: number; password: string }>();
  const joined = await api('PATCH', '/api/client/network/partys', guest.access, {
    operation: 'join',
    name,
    password: room.password,
    peer: guest.peer.id,
  });
  expect(joined.statusCode).toBe(200);
  await guest.push.waitFor('updated_guest_party');
  return room;
}

describe('GET /api/client/accounts/peers/{id}?scope=room', () => {
  it('has the same keys, address and server as the .conf, but routes only the room and discovery', async () => {
    const owner = await member('Rocío', serverA, 'Móvil de Rocío');
    const guest = await member('Tomás', serverB);
    await roomOf(owner, guest);

    const full = await download(owner.access, owner.peer.id);
    const room = await download(owner.access, owner.peer.id, '?scope=room');
    expect(full.statusCode).toBe(200);
    expect(room.statusCode).toBe(200);
    expect(room.headers['cache-control']).toBe('no-store');
    // Its own file name, so an app that imports both keeps two tunnels.
    expect(room.headers['content-disposition']).toContain('filename="Movil-de-Rocio-sala.conf"');
    expect(room.headers['content-disposition']).toContain(
      "filename*=UTF-8''M%C3%B3vil%20de%20Roc%C3%ADo-sala.conf",
    );

    const f = parseConf(full.body);
    const r = parseConf(room.body);
    for (const key of ['PrivateKey', 'Address', 'MTU']) expect(r.iface.get(key)).toBe(f.iface.get(key));
    for (const key of ['PublicKey', 'PresharedKey', 'Endpoint', 'PersistentKeepalive'])
      expect(r.peer.get(key)).toBe(f.peer.get(key));
    expect(r.iface.get('Address')).toBe(`${owner.peer.address}/32`);
    expect(r.iface.get('PrivateKey')).toMatch(/^[A-Za-z0-9+/]{43}=$/);

    // Only the fleet's pool, the limited broadcast and multicast: nothing else enters the tunnel.
    const allowed = cidrs(r.peer.get('AllowedIPs'));
    expect(allowed.sort()).toEqual(['10.64.0.0/10', '224.0.0.0/4', '255.255.255.255/32']);
    expect(cidrs(f.peer.get('AllowedIPs'))).toEqual(['0.0.0.0/0', '::/0']);
    expect(allowed.some((c) => inCidr(guest.peer.address, c))).toBe(true);
    for (const outside of ['1.1.1.1', '8.8.8.8', '192.168.1.1', '198.51.100.254'])
      expect(allowed.some((c) => inCidr(outside, c))).toBe(false);
    // No DNS: the customer's own resolver stays, and no DNS server is sent through the tunnel.
    expect(f.iface.has('DNS')).toBe(true);
    expect(r.iface.has('DNS')).toBe(false);
  });

  it('stays the same file when members join and leave; the normal .conf keeps working in the room', async () => {
    const owner = await member('Iván', serverA);
    const guest = await member('Marta', serverB);
    const room = await roomOf(owner, guest);
    const before = (await download(owner.access, owner.peer.id, '?scope=room')).body;

    const third = await member('Nora', serverB);
    const joined = await api('PATCH', '/api/client/network/partys', third.access, {
      operation: 'join',
      name: `Sala ${owner.username}`,
      password: room.password,
      peer: third.peer.id,
    });
    expect(joined.statusCode).toBe(200);
    await third.push.waitFor('updated_guest_party');
    const afterJoin = await download(owner.access, owner.peer.id, '?scope=room');
    expect(afterJoin.body).toBe(before);
    // The newcomer is covered without a new download.
    expect(cidrs(parseConf(before).peer.get('AllowedIPs')).some((c) => inCidr(third.peer.address, c))).toBe(
      true,
    );

    const left = await api('PATCH', `/api/client/network/partys/${room.id}`, guest.access, {
      operation: 'leave',
      peer: guest.peer.id,
    });
    expect(left.statusCode).toBe(200);
    expect((await download(owner.access, owner.peer.id, '?scope=room')).body).toBe(before);
    expect((await download(third.access, third.peer.id, '?scope=room')).statusCode).toBe(200);

    // The full tunnel is still there for a member.
    const full = await download(owner.access, owner.peer.id);
    expect(full.statusCode).toBe(200);
    expect(cidrs(parseConf(full.body).peer.get('AllowedIPs'))).toEqual(['0.0.0.0/0', '::/0']);

    // The one who left is in no room now.
    const gone = await download(guest.access, guest.peer.id, '?scope=room');
    expect(gone.statusCode).toBe(409);
    expect(gone.json().message).toBe(NOT_IN_ROOM);
  });

  it('answers 409 for a peer in no room, with a Spanish message, and the normal .conf still downloads', async () => {
    const alone = await member('Solo', serverA);
    for (const query of ['?scope=room', '?scope=room&format=mikrotik']) {
      const res = await download(alone.access, alone.peer.id, query);
      expect(res.statusCode).toBe(409);
      expect(res.json().message).toBe(NOT_IN_ROOM);
    }
    expect((await download(alone.access, alone.peer.id)).statusCode).toBe(200);
    expect((await download(alone.access, alone.peer.id, '?scope=full')).statusCode).toBe(200);
  });

  it('answers not found for another customer’s peer, in a room or not', async () => {
    const owner = await member('Dueña', serverA);
    const guest = await member('Invitado', serverB);
    await roomOf(owner, guest);
    const stranger = await member('Ajeno', serverA);
    for (const id of [owner.peer.id, guest.peer.id]) {
      const res = await download(stranger.access, id, '?scope=room');
      expect(res.statusCode).toBe(404);
      expect(res.json().message).toBe('Peer no encontrado');
      expect(res.body).not.toContain('PrivateKey');
    }
  });

  it('refuses an inactive peer in a room like the normal download, and an unknown scope', async () => {
    const owner = await member('Inés', serverA);
    const guest = await member('Pablo', serverB);
    await roomOf(owner, guest);
    const bad = await download(owner.access, owner.peer.id, '?scope=todo');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().message).toBe('La solicitud no es válida');
    await t.ctx.db.update(peers).set({ active: false }).where(eq(peers.id, owner.peer.id));
    const res = await download(owner.access, owner.peer.id, '?scope=room');
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toBe('No se puede descargar la configuración de un peer inactivo');
  });

  it('exports a room-only MikroTik script: the pool in the main table, no default route', async () => {
    const owner = await member('Router', serverA, 'Router casa');
    const guest = await member('Amigo', serverB);
    await roomOf(owner, guest);
    const res = await download(owner.access, owner.peer.id, '?scope=room&format=mikrotik');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toContain('filename="Router-casa-sala.rsc"');
    const commands = res.body.split('\n').filter((l) => l.startsWith('/'));
    const peerLine = commands.find((l) => l.startsWith('/interface wireguard peers add'))!;
    expect(/allowed-address=(\S+)/.exec(peerLine)![1]!.split(',').sort()).toEqual([
      '10.64.0.0/10',
      '224.0.0.0/4',
      '255.255.255.255/32',
    ]);
    expect(commands).toContain(`/ip address add address=${owner.peer.address}/32 interface=wg-Router-casa`);
    expect(commands).toContain('/ip route add dst-address=10.64.0.0/10 gateway=wg-Router-casa');
    expect(res.body).not.toContain('0.0.0.0/0');
    expect(res.body).not.toContain('routing-table');
    // Same keys as the normal script.
    const normal = (await download(owner.access, owner.peer.id, '?format=mikrotik')).body;
    const key = (s: string, k: string) => new RegExp(`${k}="([^"]+)"`).exec(s)?.[1];
    for (const k of ['private-key', 'public-key', 'preshared-key']) {
      // A WireGuard key in each script first: two misses (undefined) would compare equal.
      expect(key(res.body, k), k).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(key(normal, k), k).toMatch(/^[A-Za-z0-9+/]{43}=$/);
      expect(key(res.body, k)).toBe(key(normal, k));
    }
  });
});
