/**
 * bench:fleet at 1,000,000 peers (issue 33): every scrape of every instance counted every peer
 * row (1.6 s of PostgreSQL each at load 8), most of the database's CPU beside 2,400 stats readings
 * a second. The per-server counts are now read at most once per METRICS_PEER_COUNTS_SECONDS; the
 * revisions and lag stay live. Counted, not timed: statements that read `peers` per scrape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
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
