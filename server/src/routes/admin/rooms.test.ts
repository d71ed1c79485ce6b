import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { catalogMsg } from '@vpn/contracts';
import { auditLog, rooms, peers } from '../../db/schema.ts';
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

// Each test signs in several customers (memory-hard password hashing): slow on a busy machine.
vi.setConfig({ testTimeout: 90_000 });

let t: TestApp;
let base: string;
let admin: string;
let planId: number;
const servers: { id: number; token: string }[] = [];
const agents: ProtocolAgent[] = [];
const sockets: PushClient[] = [];

const api = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, token: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(token), ...(payload ? { payload } : {}) });

async function member(alias: string, serverId: number, username?: string) {
  const m = await createMember(t, admin, { alias, plan: planId, server: serverId, username });
  const push = await PushClient.connect(base, m.access);
  sockets.push(push);
  return { ...m, push };
}

/** A room of an owner on server 1 and a guest on server 2. */
async function room(name: string, ownerUsername?: string) {
  const owner = await member(`Dueño ${name}`, servers[0]!.id, ownerUsername);
  const guest = await member(`Invitado ${name}`, servers[1]!.id);
  const created = await api('POST', '/api/client/network/partys', owner.access, {
    name,
    peer: owner.peer.id,
  });
  expect(created.statusCode).toBe(201);
  const joined = await api('PATCH', '/api/client/network/partys', guest.access, {
    operation: 'join',
    name,
    password: created.json().password,
    peer: guest.peer.id,
  });
  expect(joined.statusCode).toBe(200);
  return { id: created.json().id as number, owner, guest };
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  admin = await managerToken(t);
  await setSettings(t, { allow_partys: true });
  planId = (await createPlan(t, { name: 'P', price: '1.00' })).id;
  for (const name of ['Salas1', 'Salas2']) {
    const server = await createRoomServer(t, admin, name);
    servers.push(server);
    agents.push(await ProtocolAgent.connect(base, server.token));
  }
});
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const a of agents) await a.close();
  await t.close();
});

describe('rooms in the console', () => {
  it('lists rooms with owner, member count and servers, searching name and owner', async () => {
    const r = await room('Minecraft Centro', 'sala_pepe');
    await room('Ajedrez');
    const byName = (await api('GET', '/api/admin/partys?q=minecraft', admin)).json();
    expect(byName.count).toBe(1);
    expect(byName.results[0]).toMatchObject({
      id: r.id,
      name: 'Minecraft Centro',
      owner: { id: r.owner.id, username: 'sala_pepe', alias: 'Dueño Minecraft Centro' },
      members: 2,
      servers: [
        { id: servers[0]!.id, name: 'Salas1' },
        { id: servers[1]!.id, name: 'Salas2' },
      ],
    });
    const byOwner = (await api('GET', '/api/admin/partys?q=SALA_PE', admin)).json();
    expect(byOwner.results.map((p: { id: number }) => p.id)).toEqual([r.id]);
    const paged = (await api('GET', '/api/admin/partys?page_size=1&page=2', admin)).json();
    expect(paged.count).toBeGreaterThanOrEqual(2);
    expect(paged.results).toHaveLength(1);
  });

  it('shows a room with each member: peer, customer, private address and server', async () => {
    const r = await room('Detalle');
    const detail = (await api('GET', `/api/admin/partys/${r.id}`, admin)).json();
    expect(detail.peers).toEqual([
      {
        peer: { id: r.owner.peer.id, name: 'PC' },
        customer: { id: r.owner.id, username: r.owner.username, alias: 'Dueño Detalle' },
        private_ip: r.owner.peer.address,
        server: { id: servers[0]!.id, name: 'Salas1' },
        joined: expect.any(String),
      },
      {
        peer: { id: r.guest.peer.id, name: 'PC' },
        customer: { id: r.guest.id, username: r.guest.username, alias: 'Invitado Detalle' },
        private_ip: r.guest.peer.address,
        server: { id: servers[1]!.id, name: 'Salas2' },
        joined: expect.any(String),
      },
    ]);
    expect((await api('GET', '/api/admin/partys/999999', admin)).statusCode).toBe(404);
  });

  it('deletes a room with a reason: owner and guest told live, peers freed, audited', async () => {
    const r = await room('Para borrar');
    const noReason = await api('DELETE', `/api/admin/partys/${r.id}`, admin, {});
    expect(noReason.statusCode).toBe(400);
    expect(noReason.json().fields.reason).toBe(catalogMsg.roomReasonRequired);
    expect(await t.ctx.db.select().from(rooms).where(eq(rooms.id, r.id))).toHaveLength(1);

    const auditTail = await PushClient.connect(base, admin);
    sockets.push(auditTail);
    const res = await api('DELETE', `/api/admin/partys/${r.id}`, admin, { reason: 'Nombre ofensivo' });
    expect(res.statusCode).toBe(204);
    await r.owner.push.waitFor('deleted_owner_party', (m) => m.party_id === r.id);
    await r.guest.push.waitFor('deleted_guest_party', (m) => m.party_id === r.id);
    await r.guest.push.waitFor(
      'updated_peer',
      (m) =>
        (m.peer as { id: number; party: unknown }).id === r.guest.peer.id &&
        !(m.peer as { party: unknown }).party,
    );
    const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, r.guest.peer.id));
    expect(row!.roomId).toBeNull();
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'party.delete'), eq(auditLog.targetId, String(r.id))));
    // Announced live to the consoles' audit tail once committed.
    await auditTail.waitFor('admin_audit', (m) => m.entry_id === entry!.id);
    expect(entry!.data).toMatchObject({
      reason: 'Nombre ofensivo',
      changes: { name: { before: 'Para borrar', after: null } },
    });
    expect((await api('GET', `/api/admin/partys/${r.id}`, admin)).statusCode).toBe(404);
  });

  it('lets support read rooms but not delete them', async () => {
    const r = await room('Soporte');
    const support = await managerToken(t, 'support');
    expect((await api('GET', '/api/admin/partys', support)).statusCode).toBe(200);
    const res = await api('DELETE', `/api/admin/partys/${r.id}`, support, { reason: 'Porque sí' });
    expect(res.statusCode).toBe(403);
    expect(await t.ctx.db.select().from(rooms).where(eq(rooms.id, r.id))).toHaveLength(1);
  });
});
