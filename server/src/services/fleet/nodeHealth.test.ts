/**
 * Issue 34 on the control plane: an agent's `node_health` (asked for in the welcome) reaches the
 * consoles that read servers as a push, in place, and Servidores' list; an agent that goes away
 * leaves its server "Sin conexión" with the time it left.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AdminServer, AgentNodeHealth } from '@vpn/contracts';
import {
  bearer,
  createServer,
  createTestApp,
  listen,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../../test/protocolAgent.ts';

let t: TestApp;
let base: string;
let admin: string;
const open: { close(): Promise<unknown> | void }[] = [];

async function listed(id: number): Promise<AdminServer> {
  const res = await t.app.inject({ method: 'GET', url: '/api/admin/servers', headers: bearer(admin) });
  return res.json<{ results: AdminServer[] }>().results.find((s) => s.id === id)!;
}

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  admin = await managerToken(t);
});
afterAll(async () => {
  for (const o of open) await o.close();
  await t.close();
});

const REPORT: AgentNodeHealth = {
  type: 'node_health',
  at: Date.now(),
  peers: 42,
  handshakes_3m: 17,
  rx_bytes: 123_456_789,
  tx_bytes: 987_654_321,
  rx_rate: 125_000,
  tx_rate: 2_500_000,
  load: [0.5, 0.4, 0.3],
  cpu: 12.5,
  memory: { total: 2_000_000_000, available: 1_500_000_000 },
};

describe('node health', () => {
  it("an agent's report is pushed to the consoles that read servers and listed in Servidores", async () => {
    const s = await createServer(t, admin, 'Salud');
    const ops = await PushClient.connect(base, await managerToken(t, 'operations'));
    const finance = await PushClient.connect(base, await managerToken(t, 'finance'));
    open.push(ops, finance);
    const agent = await ProtocolAgent.connect(base, s.token);
    open.push(agent);
    // The welcome asks for it (an older control plane does not, and the agent then sends none).
    expect(agent.received.find((m) => m.type === 'welcome')).toMatchObject({ node_health: true });
    expect((await listed(s.id)).health).toBeNull();

    agent.send(REPORT);
    const push = await ops.waitFor('admin_server_health', (m) => m.server_id === s.id);
    const { type: _type, at: _at, ...figures } = REPORT;
    expect(push.health).toMatchObject(figures);
    expect((await listed(s.id)).health).toMatchObject(figures);
    expect(finance.messages.filter((m) => m.type === 'admin_server_health')).toEqual([]);
  });

  it('an agent that disconnects leaves its server offline since then, and back online clears it', async () => {
    const s = await createServer(t, admin, 'Caida');
    expect(await listed(s.id)).toMatchObject({ agent_online: false, offline_since: null });
    const agent = await ProtocolAgent.connect(base, s.token);
    await agent.until(() => agent.received.some((m) => m.type === 'snapshot'));
    expect(await listed(s.id)).toMatchObject({ agent_online: true, offline_since: null });
    const before = Date.now();
    const console = await PushClient.connect(base, admin);
    open.push(console);
    await agent.close();
    await console.waitFor('admin_server', (m) => m.server_id === s.id);
    const after = await listed(s.id);
    expect(after.agent_online).toBe(false);
    expect(Date.parse(after.offline_since!)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(after.offline_since!)).toBeLessThanOrEqual(Date.now());
    const again = await ProtocolAgent.connect(base, s.token);
    open.push(again);
    await again.until(() => again.received.some((m) => m.type === 'snapshot'));
    expect(await listed(s.id)).toMatchObject({ agent_online: true, offline_since: null });
  });
});
