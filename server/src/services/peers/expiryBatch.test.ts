/**
 * bench:fleet, 10,000 peers expiring at once (issue 33): the pass read each peer again to present it
 * and published two bus events per peer (20,000 notifying commits, serialized by PostgreSQL), and
 * the other requests waited behind them (API p99 2.2 s). Counted, not timed: the statements and bus
 * events of one pass do not grow with the peers it switches off, and every owner still gets, in
 * order, its peer's new state and the reason.
 */
import { eq, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage } from '@vpn/contracts';
import { peers } from '../../db/schema.ts';
import type { BusEvent } from '../../realtime/bus.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  createTestDatabase,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { statementLog, type LoggedStatement } from '../../../test/statementLog.ts';

let t: TestApp;
let log: LoggedStatement[];
let owner: string;
let planId: number;
let serverId: number;
const events: BusEvent[] = [];

beforeAll(async () => {
  const logged = statementLog(await createTestDatabase());
  log = logged.log;
  t = await createTestApp({ database: logged.database, scheduler: false, telegram: false });
  owner = await managerToken(t);
  serverId = (await createServer(t, owner, 'Vence')).id;
  planId = (await createPlan(t)).id;
  t.ctx.bus.subscribe((e) => events.push(e));
});
afterAll(() => t.close());

/** `n` peers of `customers` customers, expired a minute ago; answers their ids and owners. */
async function expired(n: number, customers: number) {
  const owners = [];
  for (let i = 0; i < customers; i++) owners.push(await createCustomer(t));
  const made: { id: number; customerId: number }[] = [];
  for (let i = 0; i < n; i++) {
    const c = owners[i % customers]!;
    const p = await grantPeer(t, owner, {
      username: c.username,
      plan: planId,
      server: serverId,
      name: `V${i}`,
    });
    made.push({ id: p.id, customerId: c.id });
  }
  await t.ctx.db
    .update(peers)
    .set({ expiresAt: new Date(Date.now() - 60_000) })
    .where(
      inArray(
        peers.id,
        made.map((m) => m.id),
      ),
    );
  return made;
}

/** Until no bus event has arrived for 300 ms (on PostgreSQL they come back through LISTEN). */
async function quiet() {
  for (let seen = -1; seen !== events.length;) {
    seen = events.length;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** One expiry pass: its statements and the customers' messages it published. */
async function pass() {
  await quiet();
  log.length = 0;
  events.length = 0;
  const off = await t.ctx.peers.disableExpired();
  const statements = log.length;
  const collected = () =>
    events.flatMap((e) =>
      e.kind === 'users'
        ? e.pushes.map((p) => ({ userId: p.userId, message: p.message }))
        : e.kind === 'user'
          ? [{ userId: e.userId, message: e.message }]
          : [],
    );
  // Each switched-off peer's state and reason (on PostgreSQL through LISTEN, on a loaded machine late).
  for (let i = 0; collected().length < 2 * off && i < 400; i++) await new Promise((r) => setTimeout(r, 50));
  await quiet();
  const pushes = collected();
  const customerEvents = events.filter((e) => e.kind === 'users' || e.kind === 'user').length;
  return { off, statements, customerEvents, pushes };
}

describe('an expiry pass over many peers', () => {
  it('costs the same statements and one bus event for 4 peers as for 40, and tells every owner', async () => {
    const few = await expired(4, 2);
    const small = await pass();
    const many = await expired(40, 7);
    const large = await pass();

    expect([small.off, large.off]).toEqual([4, 40]);
    // Before: a read per peer and two events per peer (123 statements and 80 events for 40 peers).
    expect(large.statements).toBe(small.statements);
    expect([small.customerEvents, large.customerEvents]).toEqual([1, 1]);

    for (const [set, run] of [
      [few, small],
      [many, large],
    ] as const) {
      for (const p of set) {
        const mine = run.pushes.filter(
          (m) => m.userId === p.customerId && 'peer_id' in m.message && m.message.peer_id === p.id,
        );
        const state = run.pushes.find(
          (m) =>
            m.message.type === 'updated_peer' &&
            (m.message as Extract<PushMessage, { type: 'updated_peer' }>).peer.id === p.id,
        );
        expect(state?.userId).toBe(p.customerId);
        expect((state?.message as Extract<PushMessage, { type: 'updated_peer' }>).peer.active).toBe(false);
        expect(mine.map((m) => m.message.type)).toEqual(['info']);
        // The new state comes before the reason.
        expect(run.pushes.indexOf(state!)).toBeLessThan(run.pushes.indexOf(mine[0]!));
      }
    }
    const rows = await t.ctx.db
      .select({ active: peers.active })
      .from(peers)
      .where(eq(peers.serverId, serverId));
    expect(rows.every((r) => !r.active)).toBe(true);
  });
});
