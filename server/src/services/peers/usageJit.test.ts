/**
 * bench:fleet at 1,000,000 peers on a PostgreSQL set up as docs/scale.md advises (issue 33): the
 * report statement's estimated cost crossed `jit_above_cost` (PostgreSQL's default 100,000; its
 * ten CTEs and a JSON input the planner guesses at 100 rows), so PostgreSQL compiled it with LLVM
 * at every report: ~460 ms of CPU for a statement that runs in a few, 583 µs per reading instead of
 * ~50 (pg_stat_statements: 3,756 of its 4,600 s were JIT). A report touches a few hundred rows by
 * their indexes: compiling never pays. The report's transaction turns JIT off for itself.
 *
 * Seen from PostgreSQL itself: every statement on this test's connections is explained into a
 * notice (auto_explain, as a superuser may load it) with JIT forced on for any cost
 * (`jit_above_cost = 0`); the report's plan must carry no `JIT:` section, while an ordinary
 * statement on the same connections does (the check can see JIT). PostgreSQL with JIT only:
 * PGlite has none.
 */
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../../db/schema.ts';
import type { Db } from '../../db/client.ts';
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

describe.skipIf(!onPostgres)('a stats report on PostgreSQL', () => {
  let t: TestApp;
  let pool: pg.Pool;
  let db: Db;
  let jitAvailable = false;
  const plans: string[] = [];
  beforeAll(async () => {
    t = await createTestApp({ scheduler: false });
    // Every connection explains its statements, JIT forced for any cost (startup options).
    const options = [
      'session_preload_libraries=auto_explain',
      'auto_explain.log_min_duration=0',
      'auto_explain.log_analyze=on',
      'auto_explain.log_level=notice',
      'client_min_messages=notice',
      'jit=on',
      'jit_above_cost=0',
      'jit_inline_above_cost=-1',
      'jit_optimize_above_cost=-1',
    ]
      .map((o) => `-c ${o}`)
      .join(' ');
    pool = new pg.Pool({ connectionString: (t.database as { url?: string }).url, max: 2, options });
    pool.on('connect', (client) => {
      client.on('notice', (n) => plans.push(n.message ?? ''));
    });
    db = drizzle(pool, { schema }) as unknown as Db;
    jitAvailable = (await pool.query<{ ok: boolean }>('select pg_jit_available() as ok')).rows[0]!.ok;
  });
  afterAll(async () => {
    await pool.end();
    await t.close();
  });

  it('is never compiled with JIT, whatever its estimated cost', async ({ skip }) => {
    if (!jitAvailable) skip();
    const owner = await managerToken(t);
    const server = await createServer(t, owner, 'Jit');
    const plan = await createPlan(t);
    const c = await createCustomer(t);
    const peer = await grantPeer(t, owner, { username: c.username, plan: plan.id, server: server.id });
    const [row] = (
      await pool.query<{ public_key: string }>('select public_key from peers where id = $1', [peer.id])
    ).rows;
    plans.length = 0;
    // A plain statement on the same connections is compiled: the check sees JIT when it happens.
    await pool.query('select count(*) from peers');
    const reading = {
      rx_bytes: 1000,
      tx_bytes: 100,
      latest_handshake: 1_700_000_000,
      endpoint: '198.51.100.7:4500',
    };
    await recordStats(db, server.id, [{ public_key: row!.public_key, ...reading }]);
    await recordStats(db, server.id, [{ public_key: row!.public_key, ...reading, rx_bytes: 5000 }]);
    const reports = plans.filter((p) => p.includes('jsonb_to_recordset'));
    const others = plans.filter((p) => !p.includes('jsonb_to_recordset'));
    expect(
      others.some((p) => p.includes('JIT:')),
      others.join('\n---\n'),
    ).toBe(true);
    expect(reports).toHaveLength(2);
    for (const p of reports) expect(p).not.toContain('JIT:');
    // The readings were stored (the second report's 4,000 more bytes counted).
    const [used] = (
      await pool.query<{ rx: string }>('select rx_counter::text as rx from peer_stats where peer_id = $1', [
        peer.id,
      ])
    ).rows;
    expect(used!.rx).toBe('5000');
  });
});
