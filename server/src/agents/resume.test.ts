/**
 * Issue 33, bench:fleet's kill -9 at 1,000,000 peers: every agent of the dead instance reconnected
 * to the others and each was sent a snapshot of all its peers (10,000 each, all at once). An agent
 * that still holds the state of the revision its server last applied says so (hello `resume`) and
 * gets only what changed while it was away; any doubt (a restarted agent, another revision, a
 * rotated token) still gets a snapshot.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servers } from '../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  listen,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';

let t: TestApp;
let base: string;
let owner: string;
let planId: number;
let server: { id: number; token: string };
const username = 'reanuda';

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  owner = await managerToken(t);
  server = await createServer(t, owner, 'Reanuda');
  planId = (await createPlan(t)).id;
  await createCustomer(t, username);
  for (let i = 0; i < 3; i++)
    await grantPeer(t, owner, { username, plan: planId, server: server.id, name: `R${i}` });
});
afterAll(() => t.close());

const acked = async () =>
  (await t.ctx.db.select({ a: servers.ackedRevision }).from(servers).where(eq(servers.id, server.id)))[0]!.a;
const revision = async () =>
  (await t.ctx.db.select({ r: servers.revision }).from(servers).where(eq(servers.id, server.id)))[0]!.r;
const kinds = (a: ProtocolAgent) =>
  a.received.map((m) => m.type).filter((k) => k === 'snapshot' || k === 'snapshot_peers' || k === 'delta');
/** Connected, its snapshot applied and acked as the server records it. */
async function settled(): Promise<ProtocolAgent> {
  const a = await ProtocolAgent.connect(base, server.token);
  const r = await revision();
  for (let i = 0; i < 200 && (await acked()) !== r; i++) await new Promise((x) => setTimeout(x, 25));
  expect(await acked()).toBe(r);
  return a;
}

describe('an agent reconnecting with its state', () => {
  it('gets only the changes made while it was away, no snapshot', async () => {
    const first = await settled();
    expect(first.peers.size).toBe(3);
    await first.terminate();
    // While it is away: one more peer.
    const added = await grantPeer(t, owner, { username, plan: planId, server: server.id, name: 'R3' });
    const again = await ProtocolAgent.connect(base, server.token, { resumeFrom: first });
    await again.until(() => again.peers.has(added.publicKey));
    expect(kinds(again)).toEqual(['delta']);
    const delta = again.received.find((m) => m.type === 'delta')!;
    expect(delta.type === 'delta' && delta.upsert.map((p) => p.public_key)).toEqual([added.publicKey]);
    expect(again.peers.size).toBe(4);
    // Acked like any delta: the server knows the agent is current.
    for (let i = 0; i < 200 && (await acked()) !== (await revision()); i++)
      await new Promise((x) => setTimeout(x, 25));
    expect(await acked()).toBe(await revision());
    await again.terminate();
  });

  it('is sent nothing when nothing changed, and later changes as deltas', async () => {
    const first = await settled();
    await first.terminate();
    const again = await ProtocolAgent.connect(base, server.token, { resumeFrom: first });
    // A change after the welcome: the first message it gets is that change's delta.
    const added = await grantPeer(t, owner, { username, plan: planId, server: server.id, name: 'R4' });
    await again.until(() => again.peers.has(added.publicKey));
    expect(kinds(again)).toEqual(['delta']);
    expect(again.peers.size).toBe(first.peers.size + 1);
    await again.terminate();
  });

  it('gets a snapshot when it restarted (no resume) or names another revision', async () => {
    const first = await settled();
    await first.terminate();
    // A restarted agent: its revision from its state file, nothing held.
    const restarted = await ProtocolAgent.connect(base, server.token, {
      hello: { revision: first.revision },
    });
    expect(kinds(restarted)[0]).toBe('snapshot');
    await restarted.terminate();
    // Resuming a revision the server never recorded as applied: a snapshot too.
    const stale = await ProtocolAgent.connect(base, server.token, {
      hello: { revision: first.revision - 1, resume: true },
    });
    await stale.until(() => stale.received.some((m) => m.type === 'snapshot'));
    expect(kinds(stale)[0]).toBe('snapshot');
    expect(stale.peers.size).toBe(first.peers.size);
    await stale.terminate();
  });
});
