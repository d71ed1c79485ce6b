/**
 * The bus between instances (PostgreSQL LISTEN/NOTIFY) measures each notification's lag, from the
 * publish on one instance to its arrival on another (issue 33: NOTIFY lag p99 ≤ 20 ms, read by
 * bench:fleet from /metrics' vpn_bus_notify_lag_seconds). The events arrive as published, inline and
 * stored alike, without the send time they travel with. PostgreSQL only: PGlite is one process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../test/helpers.ts';
import type { Database } from '../db/client.ts';
import { BUS_CHANNEL, INLINE_PAYLOAD_BYTES, PostgresBus, notifyInTransaction, type BusEvent } from './bus.ts';

const onPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe.skipIf(!onPostgres)('the bus between instances', () => {
  let database: Database & { url?: string };
  let a: PostgresBus;
  let b: PostgresBus;
  beforeAll(async () => {
    database = await createTestDatabase();
    a = await PostgresBus.connect(database.pool!, database.url!);
    b = await PostgresBus.connect(database.pool!, database.url!);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await database.close();
  });

  /** Resolves with the first `count` events B hears. */
  function heard(count: number): Promise<BusEvent[]> {
    return new Promise((resolve) => {
      const events: BusEvent[] = [];
      const stop = b.subscribe((e) => {
        events.push(e);
        if (events.length === count) {
          stop();
          resolve(events);
        }
      });
    });
  }

  it('delivers inline and stored events as published, and measures the lag of each', async () => {
    const lags: number[] = [];
    b.onLag((s) => lags.push(s));
    const small: BusEvent = { kind: 'server', serverId: 7, revision: 42 };
    const pushes = Array.from({ length: 200 }, (_, i) => ({
      realm: 'customer' as const,
      userId: i + 1,
      message: { type: 'success' as const, message: `Listo ${'x'.repeat(40)}` },
    }));
    const big = { kind: 'users', pushes } as BusEvent;
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(INLINE_PAYLOAD_BYTES);
    const arriving = heard(2);
    const before = Date.now();
    await a.publish(small);
    await a.publish(big);
    const events = await arriving;
    const waited = (Date.now() - before) / 1000;
    // As published: no send time left in them.
    expect(events).toEqual([small, big]);
    expect(lags).toHaveLength(2);
    for (const lag of lags) {
      expect(lag).toBeGreaterThanOrEqual(0);
      expect(lag).toBeLessThanOrEqual(waited);
    }
  });

  it('reads the lag from the send time the notification carries, not from its arrival alone', async () => {
    const lags: number[] = [];
    b.onLag((s) => lags.push(s));
    const arriving = heard(1);
    // A notification published 5 s ago (an instance whose commit waited behind others that long).
    const event: BusEvent = { kind: 'acked', serverId: 3, revision: 9 };
    const late = `${JSON.stringify(event).slice(0, -1)},"sent":${Date.now() - 5000}}`;
    await database.pool!.query('select pg_notify($1, $2)', [BUS_CHANNEL, late]);
    expect(await arriving).toEqual([event]);
    expect(lags).toHaveLength(1);
    expect(lags[0]).toBeGreaterThanOrEqual(5);
    expect(lags[0]).toBeLessThan(10);
  });

  it('a notification without a send time (not sent by this code) counts no lag', async () => {
    const lags: number[] = [];
    b.onLag((s) => lags.push(s));
    const arriving = heard(1);
    const event: BusEvent = { kind: 'agent_upgrade', serverId: 4 };
    await database.pool!.query('select pg_notify($1, $2)', [BUS_CHANNEL, JSON.stringify(event)]);
    expect(await arriving).toEqual([event]);
    expect(lags).toEqual([]);
  });

  it("a transaction's event arrives when it commits, with its lag; a rolled-back one never", async () => {
    const lags: number[] = [];
    b.onLag((s) => lags.push(s));
    const arriving = heard(1);
    const dropped: BusEvent = { kind: 'agent_revoked', serverId: 11 };
    const kept: BusEvent = { kind: 'agent_revoked', serverId: 12 };
    await database.db
      .transaction(async (tx) => {
        await notifyInTransaction(tx, dropped);
        throw new Error('rollback');
      })
      .catch(() => {});
    await database.db.transaction((tx) => notifyInTransaction(tx, kept));
    expect(await arriving).toEqual([kept]);
    expect(lags).toHaveLength(1);
  });
});
