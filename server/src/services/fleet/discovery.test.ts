/**
 * Issue 25 on the control plane: each server's snapshot carries its discovery relay (the rooms with
 * a member there, members here and elsewhere, the limits); the per-server switch and the site switch
 * in Ajustes turn it off in a new snapshot; the agents' `relay_stats` reach Servidores and /metrics.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RELAY_DEFAULTS, type AdminServer, type ServerSnapshot } from '@vpn/contracts';
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
import { ProtocolAgent } from '../../../test/protocolAgent.ts';

const METRICS = 'metrics-token-for-tests-0123';
let t: TestApp;
let base: string;
let admin: string;
let planId: number;
const servers: { id: number; token: string }[] = [];
const agents: ProtocolAgent[] = [];

const api = (method: 'GET' | 'POST' | 'PATCH', url: string, access: string, payload?: object) =>
  t.app.inject({ method, url, headers: bearer(access), payload });

const member = (alias: string, serverId: number) =>
  createMember(t, admin, { alias, plan: planId, server: serverId });

const lastSnapshot = (a: ProtocolAgent) =>
  [...a.received].reverse().find((m): m is ServerSnapshot => m.type === 'snapshot');
const host = (address: string) => address.replace(/\/\d+$/, '');

async function adminServer(id: number): Promise<AdminServer> {
  const res = await api('GET', '/api/admin/servers', admin);
  return res.json<{ results: AdminServer[] }>().results.find((s) => s.id === id)!;
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { METRICS_TOKEN: METRICS } });
  base = await listen(t);
  admin = await managerToken(t);
  planId = (await createPlan(t, { name: 'P', price: '1.00' })).id;
  for (const name of ['Uno', 'Dos']) servers.push(await createRoomServer(t, admin, name));
  for (const s of servers) agents.push(await ProtocolAgent.connect(base, s.token));
  await setSettings(t, { allow_partys: true });
});
afterAll(async () => {
  for (const a of agents) await a.close();
  await t.close();
});

describe('discovery relay', () => {
  let ana: Awaited<ReturnType<typeof member>>;
  let bea: Awaited<ReturnType<typeof member>>;
  let luis: Awaited<ReturnType<typeof member>>;
  let roomId: number;

  it('a snapshot lists each room with its members here and on other servers, and the limits', async () => {
    const [a1, a2] = agents as [ProtocolAgent, ProtocolAgent];
    expect(lastSnapshot(a1)?.relay).toEqual({
      enabled: true,
      ...RELAY_DEFAULTS,
      deny_ports: [...RELAY_DEFAULTS.deny_ports],
      rooms: [],
    });
    ana = await member('Ana', servers[0]!.id);
    bea = await member('Bea', servers[0]!.id);
    luis = await member('Luis', servers[1]!.id);
    await member('Otro', servers[0]!.id);
    const room = await api('POST', '/api/client/network/partys', ana.access, {
      name: 'LAN',
      peer: ana.peer.id,
    });
    expect(room.statusCode).toBe(201);
    roomId = room.json().id;
    for (const m of [bea, luis]) {
      const join = await api('PATCH', '/api/client/network/partys', m.access, {
        operation: 'join',
        name: 'LAN',
        password: room.json().password,
        peer: m.peer.id,
      });
      expect(join.statusCode).toBe(200);
    }
    const want1 = {
      id: roomId,
      local: [host(ana.peer.address), host(bea.peer.address)],
      remote: [host(luis.peer.address)],
    };
    const want2 = {
      id: roomId,
      local: [host(luis.peer.address)],
      remote: [host(ana.peer.address), host(bea.peer.address)],
    };
    await a1.until(() => JSON.stringify(lastSnapshot(a1)?.relay?.rooms) === JSON.stringify([want1]));
    await a2.until(() => JSON.stringify(lastSnapshot(a2)?.relay?.rooms) === JSON.stringify([want2]));
  });

  it('the per-server switch turns off only that server, in a new snapshot, and is audited', async () => {
    const [a1, a2] = agents as [ProtocolAgent, ProtocolAgent];
    const before2 = a2.received.length;
    const off = await api('PATCH', `/api/admin/servers/${servers[0]!.id}`, admin, { allow_discovery: false });
    expect(off.statusCode).toBe(200);
    expect(off.json<AdminServer>().allow_discovery).toBe(false);
    await a1.until(() => lastSnapshot(a1)?.relay?.enabled === false);
    expect(lastSnapshot(a1)?.relay?.rooms).toEqual([]);
    // The other server's relay is not this switch's business: it got nothing new.
    expect(a2.received.slice(before2).filter((m) => m.type === 'snapshot')).toEqual([]);
    const audit = await api('GET', '/api/admin/audit?action=server.update', admin);
    expect(JSON.stringify(audit.json())).toContain('allow_discovery');
    expect(
      (await api('PATCH', `/api/admin/servers/${servers[0]!.id}`, admin, { allow_discovery: 'no' }))
        .statusCode,
    ).toBe(400);
    await api('PATCH', `/api/admin/servers/${servers[0]!.id}`, admin, { allow_discovery: true });
    await a1.until(
      () => lastSnapshot(a1)?.relay?.enabled === true && lastSnapshot(a1)!.relay!.rooms.length === 1,
    );
  });

  it('the site switch in Ajustes turns it off on every server, and back on', async () => {
    const [a1, a2] = agents as [ProtocolAgent, ProtocolAgent];
    const off = await api('PATCH', '/api/admin/settings', admin, { allow_discovery: false });
    expect(off.statusCode).toBe(200);
    expect(off.json().allow_discovery).toBe(false);
    expect((await api('GET', '/api/admin/settings', admin)).json().allow_discovery).toBe(false);
    await a1.until(() => lastSnapshot(a1)?.relay?.enabled === false);
    await a2.until(() => lastSnapshot(a2)?.relay?.enabled === false);
    // The rooms themselves keep working: their pairs are still there.
    expect(lastSnapshot(a2)?.room_pairs?.length).toBeGreaterThan(0);
    const on = await api('PATCH', '/api/admin/settings', admin, { allow_discovery: true });
    expect(on.statusCode).toBe(200);
    await a1.until(() => lastSnapshot(a1)?.relay?.enabled === true);
    await a2.until(() => lastSnapshot(a2)?.relay?.enabled === true);
  });

  it("the agent's report shows in Servidores and as a metric per server", async () => {
    const [a1] = agents as [ProtocolAgent];
    expect((await adminServer(servers[0]!.id)).relay).toEqual({
      active: null,
      relayed: 0,
      dropped: 0,
      reported_at: null,
      error: null,
    });
    a1.send({ type: 'relay_stats', at: Date.now(), active: true, relayed: 1234, dropped: 56 });
    let s = await adminServer(servers[0]!.id);
    for (let i = 0; i < 100 && s.relay.active !== true; i++) {
      await new Promise((r) => setTimeout(r, 50));
      s = await adminServer(servers[0]!.id);
    }
    expect(s.relay).toMatchObject({ active: true, relayed: 1234, dropped: 56 });
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) });
    const id = servers[0]!.id;
    expect(metrics.body).toContain(`vpn_server_discovery_relay_active{server_id="${id}",server="Uno"} 1`);
    expect(metrics.body).toContain(
      `vpn_server_discovery_datagrams_total{server_id="${id}",server="Uno",outcome="relayed"} 1234`,
    );
    expect(metrics.body).toContain(
      `vpn_server_discovery_datagrams_total{server_id="${id}",server="Uno",outcome="dropped"} 56`,
    );
    // A server whose agent never reported has no relay series.
    expect(metrics.body).not.toContain(`vpn_server_discovery_relay_active{server_id="${servers[1]!.id}"`);
  });

  it('a relay nft refuses shows in Servidores with its reason and as a failing gauge, until it applies (issue 31)', async () => {
    const [a1] = agents as [ProtocolAgent];
    const id = servers[0]!.id;
    /** A report, then a heartbeat: its answer comes once the report is stored (one queue per agent). */
    const report = async (r: { active: boolean; error?: string }) => {
      const beats = a1.received.filter((m) => m.type === 'heartbeat').length;
      a1.send({ type: 'relay_stats', at: Date.now(), relayed: 0, dropped: 0, ...r });
      a1.send({ type: 'heartbeat', at: Date.now() });
      await a1.until(() => a1.received.filter((m) => m.type === 'heartbeat').length > beats);
    };
    const reason = 'nft -f - falló (1): Error: Could not process rule: Operation not supported';
    await report({ active: false, error: reason });
    expect((await adminServer(id)).relay).toMatchObject({ active: false, error: reason });
    const metrics = async () =>
      (await t.app.inject({ method: 'GET', url: '/metrics', headers: bearer(METRICS) })).body;
    expect(await metrics()).toContain(`vpn_server_discovery_relay_failing{server_id="${id}",server="Uno"} 1`);
    await report({ active: true });
    expect((await adminServer(id)).relay).toMatchObject({ active: true, error: null });
    expect(await metrics()).toContain(`vpn_server_discovery_relay_failing{server_id="${id}",server="Uno"} 0`);
  });
});
