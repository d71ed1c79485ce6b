/**
 * Issue 34: an agent's past outages stay on Resumen's series (the charts shade each), not only the
 * one going on now. A protocol agent connects, goes away and comes back; an agent whose instance
 * died (nothing closed its connection, only a stale last sighting is left) is recorded at its
 * next hello, from when it was last seen.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MetricsSeries } from '@vpn/contracts';
import { serverOutages, servers } from '../../db/schema.ts';
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

const today = () => new Date().toISOString().slice(0, 10);
async function outagesOf(id: number, from = today(), to = today()) {
  const res = await t.app.inject({
    method: 'GET',
    url: `/api/admin/metrics/series?from=${from}&to=${to}`,
    headers: bearer(admin),
  });
  expect(res.statusCode).toBe(200);
  return res.json<MetricsSeries>().servers.find((s) => s.id === id)!.outages;
}
async function connected(token: string) {
  const agent = await ProtocolAgent.connect(base, token);
  open.push(agent);
  await agent.until(() => agent.received.some((m) => m.type === 'snapshot'));
  return agent;
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

describe('outage history', () => {
  it('an agent that went away and came back leaves one closed outage, from its close to its hello', async () => {
    const s = await createServer(t, admin, 'Madrid');
    const first = await connected(s.token);
    expect(await outagesOf(s.id)).toEqual([]);
    const console = await PushClient.connect(base, admin);
    open.push(console);
    const closing = Date.now();
    await first.close();
    await console.waitFor('admin_server', (m) => m.server_id === s.id);
    const closed = Date.now();
    // While away: one outage, ongoing (to null), from when the connection closed.
    const during = await outagesOf(s.id);
    expect(during).toHaveLength(1);
    expect(during![0]!.to).toBeNull();
    expect(Date.parse(during![0]!.from)).toBeGreaterThanOrEqual(closing - 1000);
    expect(Date.parse(during![0]!.from)).toBeLessThanOrEqual(closed);

    await new Promise((r) => setTimeout(r, 50));
    const reconnecting = Date.now();
    await connected(s.token);
    const back = Date.now();
    const after = await outagesOf(s.id);
    expect(after).toEqual([{ from: during![0]!.from, to: expect.any(String) }]);
    expect(Date.parse(after![0]!.to!)).toBeGreaterThanOrEqual(reconnecting - 1000);
    expect(Date.parse(after![0]!.to!)).toBeLessThanOrEqual(back);
    // Outside the range asked for, it is not listed.
    expect(await outagesOf(s.id, '2020-01-01', '2020-01-02')).toEqual([]);
  });

  it('an agent whose instance died is recorded at its next hello, from when it was last seen', async () => {
    const s = await createServer(t, admin, 'Lisboa');
    const agent = await connected(s.token);
    const console = await PushClient.connect(base, admin);
    open.push(console);
    await agent.close();
    await console.waitFor('admin_server', (m) => m.server_id === s.id);
    // What an instance that died under its agent leaves instead: a last sighting ten minutes old
    // and no outage (its close handler never ran), set here as it would be.
    const lastSeen = new Date(Date.now() - 10 * 60_000);
    lastSeen.setMilliseconds(0);
    await t.ctx.db.update(servers).set({ lastSeenAt: lastSeen }).where(eq(servers.id, s.id));
    await t.ctx.db.delete(serverOutages).where(eq(serverOutages.serverId, s.id));
    expect(await outagesOf(s.id)).toEqual([]);

    const reconnecting = Date.now();
    await connected(s.token);
    const after = await outagesOf(s.id);
    expect(after).toHaveLength(1);
    expect(after![0]!.from).toBe(lastSeen.toISOString());
    expect(Date.parse(after![0]!.to!)).toBeGreaterThanOrEqual(reconnecting - 1000);
    expect(Date.parse(after![0]!.to!)).toBeLessThanOrEqual(Date.now());
  });
});
