import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { auditLog, rooms, peerStats, peers, servers } from '../../db/schema.ts';
import { msgManagers, REAUTH_REQUIRED } from '@vpn/contracts';
import { encrypt } from '../../lib/crypto.ts';
import { invalidatePlans } from '../../services/billing/plans.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createPlan,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';

let t: TestApp;
let base: string;
let owner: string;
let planId: number;
const agents: ProtocolAgent[] = [];
const sockets: PushClient[] = [];

interface Created {
  server: { id: number; name: string };
  agent_token: string;
  install_command: string;
}

async function newServer(name: string, extra: Record<string, unknown> = {}): Promise<Created> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name, endpoint: `${name.toLowerCase()}.vpn.example:51820`, ubication: 'La Habana', ...extra },
  });
  expect(res.statusCode).toBe(201);
  return res.json<Created>();
}

async function peerOn(
  serverId: number,
  name = 'Teléfono',
  customer?: { id: number; username: string; password: string },
) {
  const c = customer ?? (await createCustomer(t));
  const [server] = await t.ctx.db.select().from(servers).where(eq(servers.id, serverId));
  const peer = await t.ctx.peers.provision({
    customerId: c.id,
    planId,
    name,
    server: server!,
    manualPayment: true,
  });
  return { customer: c, peer };
}

const api = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  payload?: object,
  token = owner,
  headers: Record<string, string> = bearer(token),
) => t.app.inject({ method, url, headers, ...(payload ? { payload } : {}) });
/** The same call with the manager's fresh confirmation (X-Reauth). */
const sure = async (method: 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object, token = owner) =>
  api(method, url, payload, token, await confirmed(t, token));

const detail = async (id: number) => (await api('GET', `/api/admin/servers/${id}`)).json();

async function lastAudit(action: string) {
  const [row] = await t.ctx.db.select().from(auditLog).where(eq(auditLog.action, action));
  return row;
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { PUBLIC_URL: 'https://panel.example.com' } });
  base = await listen(t);
  owner = await managerToken(t, 'owner');
  planId = (await createPlan(t, { description: 'Uno' })).id;
  invalidatePlans(t.ctx.db);
});
afterAll(async () => {
  for (const s of sockets) s.close();
  for (const a of agents) await a.close();
  await t.close();
});

describe('servers: create, rotate, list', () => {
  it('shows the install command with the token once, built from PUBLIC_URL, and never again', async () => {
    const s = await newServer('Alfa');
    // One line to paste as root: the token as the first line bash reads, then the panel's install
    // script (the token in no process's arguments: services/fleet/agentInstallScript.test.ts).
    expect(s.install_command).toBe(
      `{ echo AGENT_TOKEN='${s.agent_token}'; curl -fsSL 'https://panel.example.com/api/agent/install.sh'; } | sudo bash`,
    );
    const list = await api('GET', '/api/admin/servers?q=alf');
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(s.agent_token);
    expect(list.json().results.map((r: { name: string }) => r.name)).toEqual(['Alfa']);
    expect(list.json().count).toBe(1);
    expect(JSON.stringify((await lastAudit('server.create'))?.data)).not.toContain(s.agent_token);

    const rotated = await sure('POST', `/api/admin/servers/${s.server.id}/token`);
    expect(rotated.statusCode).toBe(200);
    const { agent_token, install_command } = rotated.json();
    expect(agent_token).not.toBe(s.agent_token);
    expect(install_command).toContain(`{ echo AGENT_TOKEN='${agent_token}';`);
    await expect(ProtocolAgent.connect(base, s.agent_token)).rejects.toThrow(/401/);
    const audit = await lastAudit('server.rotate_token');
    expect(JSON.stringify(audit?.data)).not.toContain(agent_token);
  });

  it('pages the list and refuses a bad page with a Spanish message', async () => {
    const bad = await api('GET', '/api/admin/servers?page_size=500');
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('El tamaño de página debe estar entre 1 y 100');
  });

  it('lets support read but not write servers', async () => {
    const support = await managerToken(t, 'support');
    expect((await api('GET', '/api/admin/servers', undefined, support)).statusCode).toBe(200);
    const res = await api('PATCH', '/api/admin/servers/1', { name: 'X' }, support);
    expect(res.statusCode).toBe(403);
    const finance = await managerToken(t, 'finance');
    expect((await api('GET', '/api/admin/servers', undefined, finance)).statusCode).toBe(403);
  });
});

describe('servers: live status', () => {
  it('pushes admin_server to consoles when an agent connects, acks and disconnects', async () => {
    const s = await newServer('Live');
    const ops = await managerToken(t, 'operations');
    const finance = await managerToken(t, 'finance');
    const console = await PushClient.connect(base, ops);
    const blind = await PushClient.connect(base, finance);
    sockets.push(console, blind);
    const agent = await ProtocolAgent.connect(base, s.agent_token);
    await console.waitFor('admin_server', (m) => m.server_id === s.server.id);
    expect((await detail(s.server.id)).agent_online).toBe(true);
    console.messages.length = 0;
    await agent.close();
    await console.waitFor('admin_server', (m) => m.server_id === s.server.id);
    expect((await detail(s.server.id)).agent_online).toBe(false);
    expect(blind.messages.filter((m) => m.type === 'admin_server')).toEqual([]);
  });

  it('coalesces a burst of acks: one push at once, one when the 2-second window ends, none per ack', async () => {
    // The window is measured on the hub's clock: Date and the hub's timer are faked for the burst, so
    // the count is exact however fast this machine runs (the sockets and the database stay real).
    const realSetTimeout = globalThis.setTimeout;
    const pause = () => new Promise((r) => realSetTimeout(r, 20));
    const console = await PushClient.connect(base, owner);
    sockets.push(console);
    const s = await newServer('Burst');
    // Its snapshot is not acknowledged yet: the hello's push is the connection's only one so far.
    const agent = await ProtocolAgent.connect(base, s.agent_token, { autoAck: false });
    agents.push(agent);
    const pushes = () =>
      console.messages.filter((m) => m.type === 'admin_server' && m.server_id === s.server.id).length;
    /** Everything published before this call has reached the console (a marker sent after it has). */
    let markers = 0;
    const delivered = async () => {
      const marker = --markers;
      await t.ctx.bus.publish({
        kind: 'managers',
        permission: 'servers.read',
        message: { type: 'admin_server', server_id: marker },
      });
      while (!console.messages.some((m) => m.type === 'admin_server' && m.server_id === marker))
        await pause();
    };
    /** The hub has handled every message the agent sent so far (it answers a heartbeat in order). */
    const handled = async () => {
      const replies = agent.received.filter((m) => m.type === 'heartbeat').length;
      agent.send({ type: 'heartbeat', at: 0 });
      while (agent.received.filter((m) => m.type === 'heartbeat').length === replies) await pause();
    };
    await handled();
    await delivered();
    const before = pushes();
    expect(before).toBeGreaterThanOrEqual(1); // the agent's hello

    try {
      // Well past the hello's window; 20 acks in a burst.
      vi.useFakeTimers({ toFake: ['Date', 'setTimeout', 'clearTimeout'], now: Date.now() + 10_000 });
      for (let i = 0; i < 20; i++) agent.ack(agent.revision);
      await handled();
      await delivered();
      expect(pushes()).toBe(before + 1);
      // The window ends: the acks that came during it make one more push, and only one.
      await vi.advanceTimersByTimeAsync(2000);
      while (pushes() < before + 2) await pause();
      await delivered();
      expect(pushes()).toBe(before + 2);
      // A quiet hub pushes nothing more.
      await vi.advanceTimersByTimeAsync(10_000);
      await delivered();
      expect(pushes()).toBe(before + 2);
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('servers: edit', () => {
  it('edits name, host, port, location, active and rooms, audited with before and after', async () => {
    const s = await newServer('Beta');
    const agent = await ProtocolAgent.connect(base, s.agent_token);
    agents.push(agent);
    const { customer, peer } = await peerOn(s.server.id);
    const tokens = await login(t, customer.username, customer.password);
    const push = await PushClient.connect(base, tokens.access);
    sockets.push(push);
    const res = await sure('PATCH', `/api/admin/servers/${s.server.id}`, {
      name: 'Beta 2',
      host: 'beta2.vpn.example',
      port: 51900,
      ubication: 'Miami',
      allow_partys: true,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Beta 2',
      endpoint: 'beta2.vpn.example:51900',
      ubication: 'Miami',
      allow_partys: true,
      peers: 1,
    });
    // The agent gets a snapshot listening on the new port; the customer's config dials the new endpoint.
    await agent.until(() =>
      agent.received.some((m) => m.type === 'snapshot' && m.interface.listen_port === 51900),
    );
    const conf = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.id}`,
      headers: bearer(tokens.access),
    });
    expect(conf.body).toContain('Endpoint = beta2.vpn.example:51900');
    const pushed = await push.waitFor('updated_peer');
    expect(JSON.stringify(pushed)).toContain('beta2.vpn.example:51900');
    const audit = await lastAudit('server.update');
    expect(audit?.data).toMatchObject({
      changes: {
        name: { before: 'Beta', after: 'Beta 2' },
        port: { before: 51820, after: 51900 },
        ubication: { before: 'La Habana', after: 'Miami' },
      },
    });
  });

  it('refuses bad values in Spanish and changes nothing', async () => {
    const s = await newServer('Gamma');
    for (const payload of [{ port: 70000 }, { host: 'no válido' }, { name: '' }, {}, { endpoint: 'x:1' }]) {
      const res = await api('PATCH', `/api/admin/servers/${s.server.id}`, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toMatch(/[a-záéíóúñ]/);
    }
    expect((await detail(s.server.id)).endpoint).toBe('gamma.vpn.example:51820');
    expect((await api('PATCH', '/api/admin/servers/999999', { name: 'X' })).statusCode).toBe(404);
  });

  it('refuses to switch rooms off while its peers are in rooms, naming them', async () => {
    const s = await newServer('Delta', { allow_partys: true });
    const { customer, peer } = await peerOn(s.server.id);
    const [room] = await t.ctx.db
      .insert(rooms)
      .values({ name: 'Sala Azul', ownerId: customer.id, passwordEnc: encrypt(t.ctx.keys.encryption, 'x') })
      .returning();
    await t.ctx.db.update(peers).set({ roomId: room!.id }).where(eq(peers.id, peer.id));
    const res = await api('PATCH', `/api/admin/servers/${s.server.id}`, { allow_partys: false });
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toContain('«Sala Azul»');
    expect((await detail(s.server.id)).allow_partys).toBe(true);
  });
});

describe('servers: delete and detail', () => {
  it('refuses to delete a server with peers (409, Spanish), deletes an empty one', async () => {
    const s = await newServer('Epsilon');
    const { peer } = await peerOn(s.server.id);
    const refused = await sure('DELETE', `/api/admin/servers/${s.server.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      'No se puede eliminar un servidor con peers (1). Drénelo antes para moverlos a otros servidores.',
    );
    await t.ctx.db.delete(peers).where(eq(peers.id, peer.id));
    const ok = await sure('DELETE', `/api/admin/servers/${s.server.id}`);
    expect(ok.statusCode).toBe(204);
    expect((await api('GET', `/api/admin/servers/${s.server.id}`)).statusCode).toBe(404);
    expect((await lastAudit('server.delete'))?.targetId).toBe(String(s.server.id));
  });

  it('lists a server’s peers paged, with owner and online state (handshake within 3 minutes)', async () => {
    const s = await newServer('Zeta');
    const a = await peerOn(s.server.id, 'uno');
    const b = await peerOn(s.server.id, 'dos');
    await t.ctx.db.insert(peerStats).values([
      { peerId: a.peer.id, serverId: s.server.id, publicKey: 'a', latestHandshake: new Date() },
      {
        peerId: b.peer.id,
        serverId: s.server.id,
        publicKey: 'b',
        latestHandshake: new Date(Date.now() - 10 * 60_000),
      },
    ]);
    const page = (await api('GET', `/api/admin/servers/${s.server.id}/peers?page_size=1`)).json();
    expect(page.count).toBe(2);
    expect(page.results).toHaveLength(1);
    expect(page.results[0]).toMatchObject({ name: 'uno', customer: a.customer.username, online: true });
    const second = (await api('GET', `/api/admin/servers/${s.server.id}/peers?page=2&page_size=1`)).json();
    expect(second.results[0]).toMatchObject({ name: 'dos', online: false });
    const found = (await api('GET', `/api/admin/servers/${s.server.id}/peers?q=DOS`)).json();
    expect(found.results.map((p: { name: string }) => p.name)).toEqual(['dos']);
    const d = await detail(s.server.id);
    expect(d).toMatchObject({ peers: 2, online_peers: 1, drain: null });
    expect(d.revision_lag).toBeGreaterThan(0); // no agent: nothing applied
  });
});

describe('servers: a stolen session cannot take a node over (issue 31)', () => {
  const refusal = { message: msgManagers.reauthRequired, code: REAUTH_REQUIRED };

  it('refuses a new server, a new agent token, another host or port and a deletion without a fresh confirmation, and changes nothing', async () => {
    const ops = await managerToken(t, 'operations');
    const s = await newServer('Kappa');
    const agent = await ProtocolAgent.connect(base, s.agent_token);
    agents.push(agent);
    const empty = await newServer('Lambda');
    const { customer, peer } = await peerOn(s.server.id);
    const conf = async () => {
      const tokens = await login(t, customer.username, customer.password);
      const res = await t.app.inject({
        method: 'GET',
        url: `/api/client/accounts/peers/${peer.id}`,
        headers: bearer(tokens.access),
      });
      return res.body;
    };
    /** What decides where tunnels end and who may act as the node. */
    const fleet = () =>
      t.ctx.db
        .select({
          id: servers.id,
          name: servers.name,
          host: servers.host,
          port: servers.port,
          publicKey: servers.publicKey,
          agentTokenHash: servers.agentTokenHash,
        })
        .from(servers)
        .orderBy(servers.id);
    const before = { fleet: await fleet(), conf: await conf() };
    const audits = async () => (await t.ctx.db.select().from(auditLog)).length;
    const auditsBefore = await audits();
    // Another manager's confirmation, or one of this manager for another session, is no confirmation.
    const otherOwner = await managerToken(t, 'owner');
    const foreign = { ...bearer(ops), 'x-reauth': (await confirmed(t, otherOwner))['x-reauth'] };
    const attempts: [string, 'POST' | 'PATCH' | 'DELETE', string, object | undefined][] = [
      [
        'add a server',
        'POST',
        '/api/admin/servers',
        { name: 'Intruso', endpoint: 'evil.example:51820', ubication: 'X' },
      ],
      ['rotate the agent token', 'POST', `/api/admin/servers/${s.server.id}/token`, undefined],
      ['another host', 'PATCH', `/api/admin/servers/${s.server.id}`, { host: 'evil.example' }],
      ['another port', 'PATCH', `/api/admin/servers/${s.server.id}`, { port: 51999 }],
      [
        'a rename with another host',
        'PATCH',
        `/api/admin/servers/${s.server.id}`,
        { name: 'Kappa 2', host: 'evil.example' },
      ],
      ['the same host, named', 'PATCH', `/api/admin/servers/${s.server.id}`, { host: 'kappa.vpn.example' }],
      ['delete', 'DELETE', `/api/admin/servers/${empty.server.id}`, undefined],
    ];
    for (const [what, method, url, payload] of attempts) {
      for (const [who, headers] of [
        ['owner', bearer(owner)],
        ['operations', bearer(ops)],
        ['operations with a confirmation of another manager', foreign],
      ] as const) {
        const res = await api(method, url, payload, undefined, headers);
        expect(res.statusCode, `${what} (${who})`).toBe(403);
        expect(res.json(), `${what} (${who})`).toEqual(refusal);
      }
    }
    expect(await fleet()).toEqual(before.fleet);
    expect(await conf()).toBe(before.conf);
    expect(await audits()).toBe(auditsBefore);
    // The node's agent token still works: a second connection with it is accepted.
    agents.push(await ProtocolAgent.connect(base, s.agent_token));

    // With the manager's password given again, each goes through.
    const added = await sure(
      'POST',
      '/api/admin/servers',
      { name: 'Mu', endpoint: 'mu.vpn.example:51820', ubication: 'X' },
      ops,
    );
    expect(added.statusCode).toBe(201);
    const rotated = await sure('POST', `/api/admin/servers/${s.server.id}/token`, undefined, ops);
    expect(rotated.statusCode).toBe(200);
    await expect(ProtocolAgent.connect(base, s.agent_token)).rejects.toThrow(/401/);
    const moved = await sure(
      'PATCH',
      `/api/admin/servers/${s.server.id}`,
      { host: 'kappa2.vpn.example', port: 51821 },
      ops,
    );
    expect(moved.statusCode).toBe(200);
    expect(await conf()).toContain('Endpoint = kappa2.vpn.example:51821');
    expect((await sure('DELETE', `/api/admin/servers/${empty.server.id}`, undefined, ops)).statusCode).toBe(
      204,
    );
  });

  it('renames, relocates, switches and drains with the session alone', async () => {
    const ops = await managerToken(t, 'operations');
    const s = await newServer('Nu');
    const { peer } = await peerOn(s.server.id);
    const res = await api(
      'PATCH',
      `/api/admin/servers/${s.server.id}`,
      { name: 'Nu 2', ubication: 'Santiago', allow_partys: true, allow_discovery: false, active: false },
      ops,
    );
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      name: 'Nu 2',
      ubication: 'Santiago',
      allow_partys: true,
      allow_discovery: false,
      active: false,
      endpoint: 'nu.vpn.example:51820',
    });
    expect((await api('PATCH', `/api/admin/servers/${s.server.id}`, { active: true }, ops)).statusCode).toBe(
      200,
    );
    const drain = await api(
      'POST',
      `/api/admin/servers/${s.server.id}/drain`,
      { reason: 'mantenimiento' },
      ops,
    );
    expect(drain.statusCode).toBe(202);
    // The peer leaves for one of the other (already confirmed) servers.
    await vi.waitFor(
      async () => {
        const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peer.id));
        expect(row!.serverId).not.toBe(s.server.id);
      },
      { timeout: 30_000, interval: 50 },
    );
  });
});
