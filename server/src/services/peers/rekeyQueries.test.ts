import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  createTestDatabase,
  grantPeer,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';
import { statementLog, type LoggedStatement } from '../../../test/statementLog.ts';

/**
 * What one re-key costs the database (issue 33), counted instead of timed: `bench:latency` missed
 * its p99 on the PATCH itself, about 31 statements at 1.5–5 ms each on PGlite, six of them reads of
 * the same peer row. Every statement the app runs is recorded (test/statementLog.ts), from the
 * customer's PATCH to the `success` push after the agent's ack. Nothing runs beside it: no
 * scheduler, no Telegram, no catch-up round, an agent without heartbeats that acks when told.
 */
let t: TestApp;
let log: LoggedStatement[];
let agent: ProtocolAgent;
let push: PushClient;
let access: string;
let peerId: number;

const rekey = () =>
  t.app.inject({
    method: 'PATCH',
    url: `/api/client/accounts/peers/${peerId}`,
    headers: bearer(access),
    payload: { operation: 'regenerate' },
  });

const listing = (statements: LoggedStatement[]) =>
  statements.map((s, i) => `${i + 1}. (${s.rows} filas) ${s.sql.slice(0, 160)}`).join('\n');

beforeAll(async () => {
  const logged = statementLog(await createTestDatabase());
  log = logged.log;
  t = await createTestApp({
    database: logged.database,
    scheduler: false,
    telegram: false,
    env: { AGENT_CATCHUP_SECONDS: '3600' },
  });
  const base = await listen(t);
  const owner = await managerToken(t);
  const server = await createServer(t, owner, 'Uno');
  const plan = await createPlan(t);
  // Other customers' peers on the same server: a re-key reads none of them.
  for (let i = 0; i < 5; i++) {
    const other = await createCustomer(t);
    await grantPeer(t, owner, { username: other.username, plan: plan.id, server: server.id });
  }
  const c = await createCustomer(t);
  peerId = (await grantPeer(t, owner, { username: c.username, plan: plan.id, server: server.id })).id;
  access = (await login(t, c.username, c.password)).access;
  push = await PushClient.connect(base, access);
  agent = await ProtocolAgent.connect(base, server.token, { heartbeats: false });
  // One whole re-key first: once its success is pushed, the agent's connection has handled
  // everything before it (its queue is serial), the snapshot's ack included.
  expect((await rekey()).statusCode).toBe(200);
  await push.waitFor('success', (m) => m.peer_id === peerId);
  push.messages.length = 0;
});
afterAll(async () => {
  push.close();
  await agent.close();
  await t.close();
  await t.database.close();
});

describe('one re-key', () => {
  it('runs a bounded number of statements from the PATCH to the success push', async () => {
    agent.autoAck = false;
    const received = agent.received.length;
    log.length = 0;
    const res = await rekey();
    expect(res.statusCode).toBe(200);
    expect(res.json<{ processing: string | null }>().processing).toBe('regenerate');
    // The answer is sent and the delta is at the agent: the request's statements and the delta's.
    await agent.until(() => agent.received.slice(received).some((m) => m.type === 'delta'));
    const request = log.slice();
    agent.ack();
    await push.waitFor('success', (m) => m.peer_id === peerId);
    const acked = log.slice(request.length);
    const all = [...request, ...acked];
    const rows = all.reduce((n, s) => n + s.rows, 0);
    // The log does see the app's statements (a wrapper that recorded nothing would pass the bounds).
    expect(all.filter((s) => /^update "peers" set "public_key"/.test(s.sql))).toHaveLength(1);
    // Before issue 33's fix: 20 statements up to the delta (the peer's row read 4 times, its
    // server twice, the waiting peers and the acks as separate reads, the live and the stale
    // peers of the delta apart), 10 after the ack (the peer's row read twice more): 30
    // statements answering 19 rows. After it: 11 + 6 (the waiting peers read with their server).
    expect(request.length, listing(request)).toBeLessThanOrEqual(11);
    expect(acked.length, listing(acked)).toBeLessThanOrEqual(6);
    expect(rows, listing(all)).toBeLessThanOrEqual(11);
    // The peer's own row: locked once, read once for the answer, written back once per update.
    const peerReads = all.filter((s) => /^select "id", "customer_id"/.test(s.sql)).length;
    expect(peerReads, listing(all)).toBeLessThanOrEqual(3);
  });
});
