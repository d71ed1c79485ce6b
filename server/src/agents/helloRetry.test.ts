/**
 * bench:fleet under load (issue 33): an instance's pool gave no connection in time for some agents'
 * snapshots, their hellos failed, and those agents stayed connected with nothing, for good (the
 * bench gave up: 'timeout: first snapshots'). A hello that fails now closes the connection (1011):
 * the agent connects again, and that hello gets its snapshot.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import type * as DesiredState from '../services/fleet/desiredState.ts';
import { createServer, createTestApp, listen, managerToken, type TestApp } from '../../test/helpers.ts';
import { helloFrame, ProtocolAgent } from '../../test/protocolAgent.ts';

const fail = vi.hoisted(() => ({ next: false }));

vi.mock('../services/fleet/desiredState.ts', async (importOriginal) => {
  const real = await importOriginal<typeof DesiredState>();
  return {
    ...real,
    buildSnapshot: async (...args: Parameters<typeof real.buildSnapshot>) => {
      if (fail.next) {
        fail.next = false;
        throw new Error('timeout exceeded when trying to connect');
      }
      return real.buildSnapshot(...args);
    },
  };
});

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
});
afterAll(() => t.close());

describe('an agent whose hello failed', () => {
  it('is disconnected, and its next hello gets the snapshot', async () => {
    const admin = await managerToken(t);
    const server = await createServer(t, admin, 'Reintento');
    fail.next = true;
    const ws = new WebSocket(`${base.replace(/^http/, 'ws')}/api/agent/ws`, {
      headers: { authorization: `Bearer ${server.token}` },
    });
    const types: string[] = [];
    ws.on('message', (data) => types.push((JSON.parse(data.toString()) as { type: string }).type));
    ws.on('open', () => ws.send(helloFrame()));
    // Before: still open 5 s later, welcomed and never sent a snapshot.
    const outcome = await Promise.race([
      new Promise<number>((r) => ws.once('close', (code) => r(code))),
      new Promise<string>((r) => setTimeout(() => r('still open'), 5000)),
    ]);
    ws.terminate();
    expect(outcome).toBe(1011);
    expect(types).not.toContain('snapshot');
    const agent = await ProtocolAgent.connect(base, server.token);
    expect(agent.received.map((m) => m.type)).toContain('snapshot');
    await agent.close();
  });
});
