/**
 * bench:fleet at 1,000,000 peers (issue 33): every scrape of every instance counted every peer
 * row (1.6 s of PostgreSQL each at load 8), most of the database's CPU beside 2,400 stats readings
 * a second. The per-server counts are now read at most once per METRICS_PEER_COUNTS_SECONDS; the
 * revisions and lag stay live. Counted, not timed: statements that read `peers` per scrape.
 *
 * Then each instance still counted once per period: three instances, three full reads of `peers` a
 * minute (~1.4 s of PostgreSQL each at 1,000,000). Now one instance's scheduler counts for the
 * cluster into `server_peer_counts` (migration 0041) and every scrape reads that table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray, sql, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.ts';
import { peers } from '../../db/schema.ts';
import {
  bearer,
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
import { Telemetry } from './telemetry.ts';

let t: TestApp;
let owner: string;
let server: { id: number };
let planId: number;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t);
  server = await createServer(t, owner, 'Cuenta');
  planId = (await createPlan(t)).id;
  await createCustomer(t, 'cuenta');
});
afterAll(() => t.close());

const dialect = new PgDialect();

/** The app's database, counting the statements that read the peers table. */
function counting(db: Db) {
  const seen = { peers: 0 };
  const wrapped = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop !== 'execute' || typeof value !== 'function') return value;
      return (query: Parameters<Db['execute']>[0]) => {
        const text = dialect.sqlToQuery(query as SQL).sql;
        if (/\b(from|join) peers\b/.test(text)) seen.peers++;
        return (value as Db['execute']).call(target, query);
      };
    },
  });
  return { db: wrapped, seen };
}
const sample = (text: string, name: string, labels: string) =>
  Number(new RegExp(`^${name}\\{${labels}\\} (\\S+)$`, 'm').exec(text)?.[1]);

describe('/metrics peer counts', () => {
  it('are read once per period, whatever the scrapes; revisions at every scrape', async () => {
    let now = 1_000_000;
    const telemetry = new Telemetry({ processMetrics: false, peerCountsMaxAgeMs: 60_000, now: () => now });
    const { db, seen } = counting(t.ctx.db);
    const scrape = async () => (await telemetry.scrape(db, { agents: 0, browserSockets: 0 })).body;
    const labels = `server_id="${server.id}",server="Cuenta",state="active"`;
    const rev = `server_id="${server.id}",server="Cuenta"`;

    await grantPeer(t, owner, { username: 'cuenta', plan: planId, server: server.id, name: 'Uno' });
    let text = await scrape();
    expect(sample(text, 'vpn_server_peers', labels)).toBe(1);
    const revision = sample(text, 'vpn_server_revision', rev);

    // A second peer within the period: the count is the period's, the revision is live.
    await grantPeer(t, owner, { username: 'cuenta', plan: planId, server: server.id, name: 'Dos' });
    now += 30_000;
    text = await scrape();
    await scrape();
    expect(seen.peers).toBe(1);
    expect(sample(text, 'vpn_server_peers', labels)).toBe(1);
    expect(sample(text, 'vpn_server_revision', rev)).toBeGreaterThan(revision);

    // After the period: counted again.
    now += 31_000;
    text = await scrape();
    expect(seen.peers).toBe(2);
    expect(sample(text, 'vpn_server_peers', labels)).toBe(2);
  });
});

/** Every server's peers by state, counted apart from the app. */
async function truth(db: Db): Promise<Map<number, { active: number; disabled: number }>> {
  const result = await db.execute(sql`
    select s.id, count(p.id) filter (where p.active) as active, count(p.id) filter (where not p.active) as disabled
      from servers s left join peers p on p.server_id = s.id group by s.id`);
  const rows = (result as unknown as { rows: { id: number; active: string; disabled: string }[] }).rows;
  return new Map(rows.map((r) => [Number(r.id), { active: Number(r.active), disabled: Number(r.disabled) }]));
}

/** The active and disabled peers a scrape shows for a server. */
const shown = (text: string, id: number, name: string) => ({
  active: sample(text, 'vpn_server_peers', `server_id="${id}",server="${name}",state="active"`),
  disabled: sample(text, 'vpn_server_peers', `server_id="${id}",server="${name}",state="disabled"`),
});

describe('/metrics peer counts for the cluster (issue 33)', () => {
  it('are read from server_peer_counts once counted; 0 for a server left empty; counted here when stale', async () => {
    let now = 5_000_000;
    const telemetry = new Telemetry({
      processMetrics: false,
      peerCountsMaxAgeMs: 60_000,
      now: () => now,
      sharedPeerCounts: true,
    });
    expect(telemetry.peerCountsEveryMs).toBe(60_000);
    const empty = await createServer(t, owner, 'Vacio');
    const moved = await grantPeer(t, owner, {
      username: 'cuenta',
      plan: planId,
      server: empty.id,
      name: 'Tres',
    });
    const { db, seen } = counting(t.ctx.db);
    const scrape = async () => (await telemetry.scrape(db, { agents: 0, browserSockets: 0 })).body;
    const check = async (text: string) => {
      const real = await truth(t.ctx.db);
      expect(shown(text, server.id, 'Cuenta')).toEqual(real.get(server.id));
      expect(shown(text, empty.id, 'Vacio')).toEqual(real.get(empty.id));
    };

    await telemetry.recordPeerCounts(t.ctx.db);
    // Scrapes over several periods of this instance's clock: the table is fresh, `peers` is not read.
    for (let i = 0; i < 4; i++) {
      now += 40_000;
      await check(await scrape());
    }
    expect(seen.peers).toBe(0);

    // The peer moves, another is switched off: the next count has them, and 0 for the server left empty.
    await t.ctx.db.update(peers).set({ serverId: server.id }).where(eq(peers.id, moved.id));
    await t.ctx.db.update(peers).set({ active: false }).where(eq(peers.id, moved.id));
    await telemetry.recordPeerCounts(t.ctx.db);
    const text = await scrape();
    await check(text);
    expect(shown(text, empty.id, 'Vacio')).toEqual({ active: 0, disabled: 0 });
    expect(seen.peers).toBe(0);

    // Three periods without a count (no scheduler left): this instance counts, once per period.
    await t.ctx.db.execute(
      sql`update server_peer_counts set counted_at = counted_at - interval '181 seconds'`,
    );
    await check(await scrape());
    await scrape();
    expect(seen.peers).toBe(1);
  });
});

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);
const TOKEN = 'metrics-token-0123456789abcdef';

describe.skipIf(!onPostgres)('three instances on one PostgreSQL', () => {
  it('count peers once per period for all of them, and all serve the same right counts', async () => {
    const database = await createTestDatabase();
    const seed = await createTestApp({ database, scheduler: false });
    const apps: TestApp[] = [];
    try {
      const admin = await managerToken(seed);
      const north = await createServer(seed, admin, 'Norte');
      const south = await createServer(seed, admin, 'Sur');
      const plan = (await createPlan(seed)).id;
      await createCustomer(seed, 'flota');
      const grant = (on: number, name: string) =>
        grantPeer(seed, admin, { username: 'flota', plan, server: on, name });
      const [n1] = [await grant(north.id, 'N1'), await grant(north.id, 'N2')];
      const [s1, s2] = [await grant(south.id, 'S1'), await grant(south.id, 'S2')];

      // Three instances with their schedulers, as in production; each one's statements logged.
      const logs: LoggedStatement[][] = [];
      for (let i = 0; i < 3; i++) {
        const logged = statementLog(database);
        logs.push(logged.log);
        apps.push(await createTestApp({ database: logged.database, env: { METRICS_TOKEN: TOKEN } }));
      }
      const counts = () =>
        logs.flat().filter((s) => /from peers where server_id is not null group by server_id/.test(s.sql))
          .length;
      const countedAt = async () => {
        const result = await seed.ctx.db.execute(
          sql`select max(counted_at)::text as at from server_peer_counts`,
        );
        return (result as unknown as { rows: { at: string | null }[] }).rows[0]?.at ?? null;
      };
      const until = async (done: () => Promise<boolean>) => {
        for (let i = 0; i < 80 && !(await done()); i++) await new Promise((r) => setTimeout(r, 100));
      };
      const scrapeAll = async () => {
        const real = await truth(seed.ctx.db);
        for (const app of apps)
          for (let i = 0; i < 5; i++) {
            const res = await app.app.inject({ url: '/metrics', headers: bearer(TOKEN) });
            expect(res.statusCode).toBe(200);
            expect(shown(res.body, north.id, 'Norte')).toEqual(real.get(north.id));
            expect(shown(res.body, south.id, 'Sur')).toEqual(real.get(south.id));
          }
      };

      // The first ticks: one instance takes the period's lease and counts.
      await until(async () => (await countedAt()) !== null);
      await scrapeAll();
      // Before: 3, one per instance.
      expect(counts()).toBe(1);

      // Peers added, switched off, moved: Sur is left without any.
      await grant(north.id, 'N3');
      await seed.ctx.db.update(peers).set({ active: false }).where(eq(peers.id, n1!.id));
      await seed.ctx.db
        .update(peers)
        .set({ serverId: north.id })
        .where(inArray(peers.id, [s1!.id, s2!.id]));
      // The next period: the lease lapses, the next tick of one instance counts again.
      const before = await countedAt();
      await seed.ctx.db.execute(sql`update rate_limits set tat = now() where key = 'scheduler:peer-counts'`);
      await until(async () => (await countedAt()) !== before);
      await scrapeAll();
      expect(counts()).toBe(2);
      const real = await truth(seed.ctx.db);
      expect(real.get(south.id)).toEqual({ active: 0, disabled: 0 });
      expect(real.get(north.id)).toEqual({ active: 4, disabled: 1 });
    } finally {
      for (const app of apps) await app.close();
      await seed.close();
      await database.close();
    }
  });
});
