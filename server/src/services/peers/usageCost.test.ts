/**
 * bench:fleet (issue 33): PostgreSQL's CPU per stats reading, with every page in shared_buffers.
 * A report's statement (ten CTEs) was parsed, analysed and planned anew for every report: ~1.5 ms
 * of ~14 ms for a 250-reading report. It now runs as a named prepared statement, planned once on a
 * connection and then run from that generic plan. Counted on the connection's own
 * `pg_prepared_statements` (a pool of one connection: every report on the same session), never
 * timed. PostgreSQL only: PGlite has no named statements (the name is ignored there).
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../db/client.ts';
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

describe.skipIf(!onPostgres)('a report’s statement on PostgreSQL', () => {
  let t: TestApp;
  let one: Database;
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    one = await openDatabase({ databaseUrl: (t.database as { url?: string }).url, poolSize: 1 });
  });
  afterAll(async () => {
    await one.close();
    await t.close();
  });

  it('is planned once on a connection, then runs its generic plan (issue 33)', async () => {
    const owner = await managerToken(t);
    const server = await createServer(t, owner, 'Costo');
    const plan = await createPlan(t);
    const keys: string[] = [];
    for (let i = 0; i < 4; i++) {
      const c = await createCustomer(t);
      keys.push(
        (await grantPeer(t, owner, { username: c.username, plan: plan.id, name: 'P', server: server.id }))
          .publicKey,
      );
    }
    const at = new Date(Date.UTC(2026, 10, 24, 10));
    const reports = 12;
    const last = new Map<string, number>();
    for (let r = 1; r <= reports; r++) {
      // Reports of different sizes and peers: the statement's text is the same for all of them.
      const stats = keys.slice(0, 1 + (r % keys.length)).map((k) => ({
        public_key: k,
        rx_bytes: 1000 * r,
        tx_bytes: 100 * r,
        latest_handshake: Math.floor(at.getTime() / 1000),
        endpoint: '198.51.100.7:4500',
      }));
      for (const s of stats) last.set(s.public_key, s.rx_bytes);
      await recordStats(one.db, server.id, stats, at);
    }
    const { rows } = await one.db.execute<{ statement: string; generic: number; custom: number }>(
      sql`select statement, generic_plans::int as generic, custom_plans::int as custom
        from pg_prepared_statements where not from_sql`,
    );
    const report = rows.filter((r) => r.statement.includes('jsonb_to_recordset'));
    // One statement for every report (before: none, each report's statement parsed and planned).
    expect(report).toHaveLength(1);
    expect(report[0]!.generic + report[0]!.custom).toBe(reports);
    // Planned once: every report ran the generic plan.
    expect(report[0]!.custom).toBe(0);
    expect(report[0]!.generic).toBe(reports);
    // What was stored is as before: the last report's counters, the hour's sum of the deltas.
    const { rows: totals } = await one.db.execute<{ rx: string }>(
      sql`select sum(rx_bytes)::text as rx from peer_usage_hourly where server_id = ${server.id}`,
    );
    expect(Number(totals[0]!.rx)).toBe([...last.values()].reduce((a, b) => a + b, 0));
  });

  it('runs unprepared when its prepared statement is gone (a pooler that does not keep them)', async () => {
    // PgBouncer before 1.21 in transaction mode: the next server connection does not have it.
    const owner = await managerToken(t);
    const server = await createServer(t, owner, 'Agrupador');
    const plan = await createPlan(t);
    const c = await createCustomer(t);
    const p = await grantPeer(t, owner, {
      username: c.username,
      plan: plan.id,
      name: 'P',
      server: server.id,
    });
    const lone = await openDatabase({ databaseUrl: (t.database as { url?: string }).url, poolSize: 1 });
    try {
      const at = new Date(Date.UTC(2026, 10, 24, 11));
      const stat = (rx: number) => ({
        public_key: p.publicKey,
        rx_bytes: rx,
        tx_bytes: 10,
        latest_handshake: Math.floor(at.getTime() / 1000),
        endpoint: '198.51.100.7:4500',
      });
      await recordStats(lone.db, server.id, [stat(1000)], at);
      // node-postgres still takes it for prepared on this connection: the next Bind fails (26000).
      await lone.db.execute(sql`deallocate all`);
      await recordStats(lone.db, server.id, [stat(3000)], at);
      await recordStats(lone.db, server.id, [stat(3500)], at);
      const { rows } = await lone.db.execute<{ rx: string }>(
        sql`select sum(rx_bytes)::text as rx from peer_usage_hourly where peer_id = ${p.id}`,
      );
      expect(Number(rows[0]!.rx)).toBe(3500);
      const prepared = await lone.db.execute(sql`select 1 from pg_prepared_statements where not from_sql`);
      expect(prepared.rows).toHaveLength(0);
    } finally {
      await lone.close();
    }
  });
});
