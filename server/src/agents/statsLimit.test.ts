/**
 * bench:fleet's kill -9 at 1,000,000 peers (issue 33): the 33 agents of the dead instance came back
 * on the others each with a full report, every connection stored its own at once, and each store
 * held a database connection for its transaction: the pool was the stats', and the customers'
 * re-keys waited (push p99 7.2 s). The instance stores a quarter of its pool's worth of reports at
 * a time, all agents together (DATABASE_POOL_SIZE 4 here: one). Counted, not timed.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as Usage from '../services/peers/usage.ts';
import { createServer, createTestApp, listen, managerToken, type TestApp } from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';

const held = vi.hoisted(() => {
  const state = {
    inFlight: 0,
    most: 0,
    stored: 0,
    gate: Promise.resolve(),
    release: () => {},
    hold() {
      state.gate = new Promise<void>((r) => (state.release = r));
    },
  };
  return state;
});

vi.mock('../services/peers/usage.ts', async (importOriginal) => {
  const real = await importOriginal<typeof Usage>();
  return {
    ...real,
    recordStats: async (...args: Parameters<typeof real.recordStats>) => {
      held.inFlight++;
      held.most = Math.max(held.most, held.inFlight);
      try {
        await held.gate;
        return await real.recordStats(...args);
      } finally {
        held.inFlight--;
        held.stored++;
      }
    },
  };
});

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { DATABASE_POOL_SIZE: '4' } });
  base = await listen(t);
});
afterAll(() => t.close());

describe("agents' stats reports on one instance", () => {
  it('are stored one at a time with a pool of 4, in turn, and all of them', async () => {
    const admin = await managerToken(t);
    const agents: ProtocolAgent[] = [];
    for (let i = 0; i < 3; i++) {
      const server = await createServer(t, admin, `Turno${i}`);
      agents.push(await ProtocolAgent.connect(base, server.token));
    }
    held.hold();
    const report = { type: 'stats', at: Date.now(), peers: [] };
    for (const a of agents) a.send(report);
    // A heartbeat after each report: its answer means the control plane has read the report.
    for (const a of agents) a.send({ type: 'heartbeat', at: Date.now() });
    for (const a of agents) await a.until(() => a.received.some((m) => m.type === 'heartbeat'));
    await new Promise((r) => setTimeout(r, 100));
    // Before: three stores at once, one per agent.
    expect(held.inFlight).toBe(1);
    expect(t.ctx.agents.statsQueued()).toBe(2);
    held.release();
    for (let i = 0; i < 200 && held.stored < 3; i++) await new Promise((r) => setTimeout(r, 25));
    expect([held.stored, held.most]).toEqual([3, 1]);
    for (const a of agents) await a.close();
  });
});
