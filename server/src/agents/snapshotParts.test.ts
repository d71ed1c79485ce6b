import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  listen,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent } from '../../test/protocolAgent.ts';
import { AgentConnection } from '../../../agent/src/connection.ts';
import { silentLogger } from '../../../agent/src/log.ts';

let t: TestApp;
let base: string;
let server: { id: number; token: string };
const keys: string[] = [];

beforeAll(async () => {
  // Two peers per message, so five peers make a snapshot of three parts.
  t = await createTestApp({ scheduler: false, snapshotChunkPeers: 2 });
  base = await listen(t);
  const owner = await managerToken(t);
  server = await createServer(t, owner, 'Partes');
  const plan = await createPlan(t);
  await createCustomer(t, 'partes');
  for (let i = 0; i < 5; i++) {
    const peer = await grantPeer(t, owner, {
      username: 'partes',
      plan: plan.id,
      server: server.id,
      name: `P${i}`,
    });
    keys.push(peer.publicKey);
  }
});
afterAll(async () => {
  await t.close();
});

describe('a snapshot sent in parts', () => {
  it('goes in parts, in order and with nothing between them, to an agent that assembles them', async () => {
    const agent = await ProtocolAgent.connect(base, server.token, { snapshotParts: true });
    const messages = agent.received.filter((m) => m.type === 'snapshot' || m.type === 'snapshot_peers');
    expect(messages.map((m) => [m.type, 'part' in m ? m.part : (m.parts ?? 1), m.peers.length])).toEqual([
      ['snapshot', 3, 2],
      ['snapshot_peers', 2, 2],
      ['snapshot_peers', 3, 1],
    ]);
    expect(new Set(messages.map((m) => m.revision)).size).toBe(1);
    expect([...agent.peers.keys()].sort()).toEqual([...keys].sort());
    await agent.terminate();
  });

  it('is assembled by the real agent, applied once with every peer, and acked', async () => {
    const applied: string[][] = [];
    const conn = new AgentConnection({
      url: base,
      token: server.token,
      log: silentLogger,
      handler: {
        hello: async () => ({ revision: 0, backend: 'wireguard-go' }),
        applySnapshot: async (s) => {
          applied.push(s.peers.map((p) => p.public_key));
          return s.revision;
        },
        applyDelta: async (d) => d.revision,
        collectStats: async () => null,
      },
    });
    conn.start();
    try {
      for (let i = 0; i < 100 && applied.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      expect(applied).toHaveLength(1);
      expect([...applied[0]!].sort()).toEqual([...keys].sort());
    } finally {
      await conn.stop();
    }
  });

  it('goes whole to an agent whose hello does not offer to assemble parts', async () => {
    const agent = await ProtocolAgent.connect(base, server.token);
    const snapshots = agent.received.filter((m) => m.type === 'snapshot' || m.type === 'snapshot_peers');
    expect(snapshots).toHaveLength(1);
    expect(snapshots[0]).toMatchObject({ type: 'snapshot' });
    expect(snapshots[0]!.peers).toHaveLength(5);
    expect('parts' in snapshots[0]!).toBe(false);
    await agent.terminate();
  });
});
