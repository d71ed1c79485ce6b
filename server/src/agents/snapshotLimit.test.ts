/**
 * bench:fleet at 1,000,000 peers (issue 33): 33 agents of 10,000 peers each signed in on one
 * instance at once, and it built their 33 snapshots side by side (each its server's peers as rows,
 * as the agent's peers and as text): its resident memory stayed over 500 MB after them. An
 * instance builds two at a time (SNAPSHOTS_AT_ONCE); the others wait, counted in /metrics, and
 * each agent still gets its own snapshot. Counted, not timed.
 */
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as DesiredState from '../services/fleet/desiredState.ts';
import { createServer, createTestApp, listen, managerToken, type TestApp } from '../../test/helpers.ts';
import { helloFrame } from '../../test/protocolAgent.ts';
import { SNAPSHOTS_AT_ONCE } from './hub.ts';

const held = vi.hoisted(() => {
  const state = {
    inFlight: 0,
    most: 0,
    built: 0,
    gate: Promise.resolve(),
    release: () => {},
    hold() {
      state.gate = new Promise<void>((r) => (state.release = r));
    },
  };
  return state;
});

vi.mock('../services/fleet/desiredState.ts', async (importOriginal) => {
  const real = await importOriginal<typeof DesiredState>();
  return {
    ...real,
    buildSnapshot: async (...args: Parameters<typeof real.buildSnapshot>) => {
      held.inFlight++;
      held.most = Math.max(held.most, held.inFlight);
      try {
        await held.gate;
        return await real.buildSnapshot(...args);
      } finally {
        held.inFlight--;
        held.built++;
      }
    },
  };
});

const METRICS_TOKEN = 'snapshot-limit-metrics-0123456789';
let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { METRICS_TOKEN } });
  base = await listen(t);
});
afterAll(() => t.close());

/** An agent's socket that says hello and keeps every message (ProtocolAgent waits for its snapshot). */
function signIn(token: string): { ws: WebSocket; got: { type: string; server_id?: number }[] } {
  const got: { type: string }[] = [];
  const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/agent/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  ws.on('open', () => ws.send(helloFrame()));
  ws.on('message', (data) => got.push(JSON.parse(data.toString()) as { type: string }));
  return { ws, got };
}

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`no se cumplió a tiempo: ${what}`);
}

describe('agents signing in at once on one instance', () => {
  it('get their snapshots built two at a time, the others counted as waiting, each its own', async () => {
    const admin = await managerToken(t);
    const servers = [];
    for (let i = 0; i < 5; i++) servers.push(await createServer(t, admin, `Ola${i}`));
    held.hold();
    const agents = servers.map((s) => signIn(s.token));
    // Every hello read (each agent has its welcome, and its snapshot asked for right after it).
    await until(() => agents.every((a) => a.got.some((m) => m.type === 'welcome')), 'bienvenidas');
    await until(() => held.inFlight === SNAPSHOTS_AT_ONCE, 'dos instantáneas en curso');
    const metrics = (
      await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } })
    ).body;
    // Before: five snapshots built at once, none waiting.
    expect(/^vpn_agent_snapshots_waiting (\d+)$/m.exec(metrics)?.[1]).toBe('3');
    expect(t.ctx.agents.snapshotsWaiting()).toBe(3);
    held.release();
    await until(() => agents.every((a) => a.got.some((m) => m.type === 'snapshot')), 'cada instantánea');
    expect([held.built, held.most]).toEqual([5, SNAPSHOTS_AT_ONCE]);
    expect(t.ctx.agents.snapshotsWaiting()).toBe(0);
    // Each agent got one snapshot, its own server's (the welcome names the server).
    for (const [i, a] of agents.entries()) {
      expect(a.got.filter((m) => m.type === 'snapshot')).toHaveLength(1);
      expect(a.got.find((m) => m.type === 'welcome')?.server_id).toBe(servers[i]!.id);
    }
    for (const a of agents) a.ws.close();
  });
});
