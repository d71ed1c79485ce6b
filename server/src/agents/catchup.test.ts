/**
 * A change notice can be lost: PostgreSQL drops notifications sent while the LISTEN connection is
 * reconnecting, and an instance can die between its commit and its publish. A peer disabled then
 * must still leave its server: agents are caught up after the bus listens again and periodically
 * (AGENT_CATCHUP_SECONDS).
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peers, plans } from '../db/schema.ts';
import { LISTEN_APPLICATION_NAME } from '../realtime/bus.ts';
import { recordChanges } from '../services/fleet/desiredState.ts';
import { rotateAgentToken } from '../services/fleet/servers.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

/** A server with its agent connected and one live peer on it. */
async function agentWithPeer(t: TestApp, base: string, name: string) {
  const admin = await managerToken(t);
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: `P${name}`, description: 'x', price: '1.00', validity: '30 days' })
    .returning();
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, admin),
    payload: { name, endpoint: `${name.toLowerCase()}.example:51820`, ubication: 'X' },
  });
  const { server, agent_token } = created.json<{ server: { id: number }; agent_token: string }>();
  const agent = await ProtocolAgent.connect(base, agent_token);
  const c = await createCustomer(t);
  const peer = await t.app.inject({
    method: 'POST',
    url: '/api/admin/peers',
    headers: bearer(admin),
    payload: { username: c.username, plan: plan!.id, name: 'Móvil', server: server.id },
  });
  expect(peer.statusCode).toBe(201);
  const peerId = peer.json<{ id: number }>().id;
  const [row] = await t.ctx.db.select().from(peers).where(eq(peers.id, peerId));
  await agent.until(() => agent.peers.has(row!.publicKey));
  return { admin, agent, serverId: server.id, peerId, key: row!.publicKey };
}

describe.skipIf(!onPostgres)('after the LISTEN connection drops', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    // The periodic catch-up is far away: only the re-LISTEN can catch the agent up here.
    t = await createTestApp({ scheduler: false, env: { AGENT_CATCHUP_SECONDS: '3600' } });
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('a peer disabled while the bus was not listening leaves its server once it listens again', async () => {
    const { admin, agent, peerId, key } = await agentWithPeer(t, base, 'Caida');
    const killed = await t.database.pool!.query(
      `select pg_terminate_backend(pid) from pg_stat_activity
       where application_name = $1 and datname = current_database()`,
      [LISTEN_APPLICATION_NAME],
    );
    expect(killed.rows.length).toBe(1);
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/peers/${peerId}`,
      headers: bearer(admin),
      payload: { active: false },
    });
    expect(res.statusCode).toBe(200);
    await agent.until(() => !agent.peers.has(key), 10_000);
    await agent.close();
  });
});

describe('periodic catch-up', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false, env: { AGENT_CATCHUP_SECONDS: '1' } });
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('sends an agent a change whose notice was never published', async () => {
    const { agent, serverId, peerId, key } = await agentWithPeer(t, base, 'Perdida');
    // An instance that committed this and died before publishing it.
    await t.ctx.db.transaction(async (tx) => {
      await tx.update(peers).set({ active: false }).where(eq(peers.id, peerId));
      await recordChanges(tx, [{ serverId, removeKeys: [key] }]);
    });
    await agent.until(() => !agent.peers.has(key), 10_000);
    await agent.close();
  });

  it('sends a full snapshot to an agent that leaves what it was sent unapplied', async () => {
    const { admin, agent, peerId } = await agentWithPeer(t, base, 'Muda');
    agent.autoAck = false;
    const snapshots = () => agent.received.filter((m) => m.type === 'snapshot').length;
    const before = snapshots();
    const res = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/peers/${peerId}`,
      headers: bearer(admin),
      payload: { active: false },
    });
    expect(res.statusCode).toBe(200);
    await agent.until(() => snapshots() > before, 10_000);
    await agent.close();
  });

  it('closes an agent whose token was rotated when the revocation notice was lost', async () => {
    const { agent, serverId } = await agentWithPeer(t, base, 'Rotada');
    // Rotated by an instance that died before publishing agent_revoked (or a notice LISTEN dropped):
    // the old connection carries the server's private key in every snapshot, so it must end here too.
    await rotateAgentToken(t.ctx.db, serverId);
    const code = await Promise.race([
      agent.closedWith,
      new Promise<string>((r) => setTimeout(() => r('still open after 10 s of 1 s catch-ups'), 10_000)),
    ]);
    expect(code).toBe(4401);
  });
});

describe('a rotated token between catch-ups', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    // The periodic catch-up is an hour away: only the snapshot path itself can refuse.
    t = await createTestApp({ scheduler: false, env: { AGENT_CATCHUP_SECONDS: '3600' } });
    base = await listen(t);
  });
  afterAll(async () => {
    await t.close();
  });

  it('gets no snapshot when it asks for one (resync): its connection is closed instead', async () => {
    const { agent, serverId } = await agentWithPeer(t, base, 'Pide');
    await rotateAgentToken(t.ctx.db, serverId);
    const snapshots = () =>
      agent.received.filter((m) => m.type === 'snapshot' || m.type === 'snapshot_peers').length;
    const before = snapshots();
    agent.send({ type: 'resync' });
    const code = await Promise.race([
      agent.closedWith,
      new Promise<string>((r) => setTimeout(() => r('still open after 10 s'), 10_000)),
    ]);
    expect(code).toBe(4401);
    expect(snapshots()).toBe(before);
  });
});
