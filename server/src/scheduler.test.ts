import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestDatabase } from '../test/helpers.ts';
import type { Database } from './db/client.ts';
import { startScheduler } from './scheduler.ts';

let database: Database;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

it('of two instances ticking in the same period, one runs each step (issue 33)', async () => {
  const calls: string[] = [];
  const instance = (name: string) => {
    const count = (step: string) => async () => void calls.push(`${name}:${step}`);
    return new Promise<() => void>((resolve) => {
      const stop: () => void = startScheduler(
        {
          db: database.db,
          peers: { disableExpired: count('expiry'), expirePending: count('pending') } as never,
          allowances: { enforce: count('allowance') } as never,
          invoices: { deliverPending: count('invoices') } as never,
          reminders: { sendDue: count('reminders') } as never,
          sessions: { prune: count('sessions') } as never,
          concurrentUse: { clearStale: count('concurrent') } as never,
          log: { error: () => {} } as unknown as FastifyBaseLogger,
          onTick: () => resolve(stop),
        },
        60_000,
      );
    });
  };
  (await instance('a'))();
  (await instance('b'))();
  // Invoices are claimed row by row (SKIP LOCKED, billing/invoices.test.ts), so both instances
  // run that step; every other step ran once, on the first instance. Before: all of them twice.
  expect(calls.filter((c) => c.startsWith('b:'))).toEqual(['b:invoices']);
  expect(calls.filter((c) => c.startsWith('a:'))).toEqual([
    'a:expiry',
    'a:allowance',
    'a:pending',
    'a:invoices',
    'a:reminders',
    'a:concurrent',
    'a:sessions',
  ]);
});
