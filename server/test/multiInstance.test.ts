/**
 * Two control-plane instances on one PostgreSQL, as behind a load balancer: the customer's socket
 * and the agent sit on instance A, the change is made through instance B. Events must cross via
 * LISTEN/NOTIFY. (PGlite is one process by nature, so this runs only with TEST_DATABASE_URL.)
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peers, plans } from '../src/db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  createTestDatabase,
  listen,
  login,
  managerToken,
  type TestApp,
} from './helpers.ts';
import { ProtocolAgent, PushClient } from './protocolAgent.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('two instances on one PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  let closeDb: () => Promise<void>;
  beforeAll(async () => {
    const database = await createTestDatabase();
    closeDb = database.close;
    a = await createTestApp({ database, scheduler: false });
    b = await createTestApp({ database, scheduler: false });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await closeDb();
  });

  it('delivers the agent delta, the ack and the push across instances', async () => {
    const baseA = await listen(a);
    const admin = await managerToken(b);
    const [plan] = await b.ctx.db
      .insert(plans)
      .values({ name: 'P', description: 'x', price: '1.00', validity: '30 days' })
      .returning();
    const server = (
      await b.app.inject({
        method: 'POST',
        url: '/api/admin/servers',
        headers: await confirmed(b, admin),
        payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
      })
    ).json();
    const agent = await ProtocolAgent.connect(baseA, server.agent_token);
    const c = await createCustomer(b);
    const tokens = await login(b, c.username, c.password);
    const push = await PushClient.connect(baseA, tokens.access);

    // Made through B; the agent and the customer's socket are on A.
    const created = await b.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(admin),
      payload: { username: c.username, plan: plan!.id, name: 'Móvil', server: server.server.id },
    });
    expect(created.statusCode).toBe(201);
    const peerId = created.json().id as number;
    await push.waitFor('created_peer');
    const [row] = await b.ctx.db.select().from(peers).where(eq(peers.id, peerId));
    await agent.until(() => agent.peers.has(row!.publicKey));

    const res = await b.app.inject({
      method: 'PATCH',
      url: `/api/client/accounts/peers/${peerId}`,
      headers: bearer(tokens.access),
      payload: { operation: 'regenerate' },
    });
    expect(res.statusCode).toBe(200);
    const [rekeyed] = await b.ctx.db.select().from(peers).where(eq(peers.id, peerId));
    await agent.until(() => agent.peers.has(rekeyed!.publicKey) && !agent.peers.has(row!.publicKey));
    const success = await push.waitFor('success');
    expect(success.peer_id).toBe(peerId);
    push.close();
    await agent.close();
  });
});
