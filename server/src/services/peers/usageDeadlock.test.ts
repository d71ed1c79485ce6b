/**
 * bench:fleet at 1,000,000 peers (issue 33): an agent's report and a statement updating many peers
 * at once met in a deadlock, and PostgreSQL aborted one of them. Both sides are fixed: the
 * scheduler's bulk switch-offs skip the rows another transaction holds (never waiting, so never in a
 * cycle), and a report that is a victim anyway runs again. A report's batch that is the victim
 * must run again: before, its readings were dropped (a key's final reading, never sent again, for
 * good). The deadlock is made on purpose: another transaction holds the peer's row, the report
 * (holding its server's report lock) waits for it, then that transaction asks for the report lock.
 * The report waited first, so PostgreSQL's check (deadlock_timeout after the wait began) finds the
 * cycle from the report's side and aborts the report. PostgreSQL only: PGlite has one connection.
 */
import { eq, inArray, sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerUsageHourly, peers } from '../../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { recordStats } from './usage.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('a report picked as a deadlock victim', () => {
  let t: TestApp;
  let other: pg.Client;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    other = new pg.Client({ connectionString: (t.database as { url?: string }).url });
    await other.connect();
  });
  afterAll(async () => {
    await other.end();
    await t.close();
  });

  it("the scheduler's expiry skips a peer whose row a report holds, and takes it at its next pass", async () => {
    const owner = await managerToken(t);
    const server = await createServer(t, owner, 'Salta');
    const plan = await createPlan(t);
    const c = await createCustomer(t);
    const held = await grantPeer(t, owner, {
      username: c.username,
      plan: plan.id,
      server: server.id,
      name: 'A',
    });
    const free = await grantPeer(t, owner, {
      username: c.username,
      plan: plan.id,
      server: server.id,
      name: 'B',
    });
    await t.ctx.db
      .update(peers)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(inArray(peers.id, [held.id, free.id]));
    // A report holds one peer's row (data_used) for the length of its transaction.
    await other.query('begin');
    await other.query('select 1 from peers where id = $1 for update', [held.id]);
    let done = false;
    const pass = t.ctx.peers.disableExpired().finally(() => (done = true));
    // Before: the pass waited for that row (a lock wait, the half of a deadlock).
    for (let i = 0; !done && i < 400; i++) {
      const { rowCount } = await other.query(
        `select 1 from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
      );
      expect(rowCount).toBe(0);
      await new Promise((r) => setTimeout(r, 25));
    }
    expect(await pass).toBe(1);
    await other.query('commit');
    expect(await t.ctx.peers.disableExpired()).toBe(1);
    const rows = await t.ctx.db
      .select({ id: peers.id, active: peers.active })
      .from(peers)
      .where(inArray(peers.id, [held.id, free.id]));
    expect(rows.every((r) => !r.active)).toBe(true);
  });

  it('runs again and counts its readings once', async () => {
    const owner = await managerToken(t);
    const server = await createServer(t, owner, 'Cerrojo');
    const plan = await createPlan(t);
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: plan.id, server: server.id });
    // With a data allowance, the report also updates the peer's row (data_used).
    await t.ctx.db
      .update(peers)
      .set({ dataAllowance: 10 ** 10 })
      .where(eq(peers.id, peer.id));

    // Another transaction holds the peer's row (as a bulk update of peers would).
    await other.query('begin');
    await other.query('select 1 from peers where id = $1 for update', [peer.id]);

    const report = recordStats(t.ctx.db, server.id, [
      { public_key: peer.publicKey, rx_bytes: 1000, tx_bytes: 500, latest_handshake: 0, endpoint: null },
    ]);
    // The report holds its server's lock and waits for the peer's row.
    const waiting = async () =>
      (
        await other.query(
          `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
             and wait_event_type = 'Lock' and wait_event = 'transactionid'`,
        )
      ).rowCount;
    let n = await waiting();
    for (let i = 0; n === 0 && i < 400; i++) {
      await new Promise((r) => setTimeout(r, 25));
      n = await waiting();
    }
    expect(n).toBe(1);
    // Now the cycle: this transaction asks for the lock the report holds.
    await other.query('select pg_advisory_xact_lock(724101, $1)', [server.id]);
    await other.query('commit');
    await report;

    const [row] = await t.ctx.db
      .select({
        rx: sql<number>`sum(${peerUsageHourly.rxBytes})::bigint`,
        tx: sql<number>`sum(${peerUsageHourly.txBytes})::bigint`,
      })
      .from(peerUsageHourly)
      .where(eq(peerUsageHourly.peerId, peer.id));
    expect([Number(row!.rx), Number(row!.tx)]).toEqual([1000, 500]);
    const [p] = await t.ctx.db.select({ used: peers.dataUsed }).from(peers).where(eq(peers.id, peer.id));
    expect(Number(p!.used)).toBe(1500);
  });
});
