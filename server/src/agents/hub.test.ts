import { eq, inArray } from 'drizzle-orm';
import { AGENT_MAX_MESSAGE_BYTES } from '@vpn/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerUsageHourly, peers, plans, servers } from '../db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { ProtocolAgent, PushClient } from '../../test/protocolAgent.ts';
import { BROWSER_WS_MAX_PAYLOAD } from '../routes/realtime.ts';

let t: TestApp;
let base: string;
let owner: string;

async function newServer(name: string) {
  const res = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name, endpoint: `${name.toLowerCase()}.example:51820`, ubication: 'X' },
  });
  expect(res.statusCode).toBe(201);
  return { id: res.json().server.id as number, token: res.json().agent_token as string };
}

/** What a manager sees in the server list. */
async function online(id: number): Promise<boolean> {
  const res = await t.app.inject({ method: 'GET', url: `/api/admin/servers/${id}`, headers: bearer(owner) });
  return res.json<{ agent_online: boolean }>().agent_online;
}

const settle = () => new Promise((r) => setTimeout(r, 300));

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  base = await listen(t);
  owner = await managerToken(t);
});
afterAll(async () => {
  await t.close();
});

describe('agent connections', () => {
  it('an old socket closing after its replacement connected leaves the server online', async () => {
    const s = await newServer('Reemplazo');
    const a = await ProtocolAgent.connect(base, s.token);
    expect(await online(s.id)).toBe(true);
    // A's link is dead: it will not answer the close the hub sends when B replaces it.
    a.stall();
    const b = await ProtocolAgent.connect(base, s.token);
    expect(await online(s.id)).toBe(true);
    // Only now does A's socket close on the control plane, after B said hello.
    await a.terminate();
    await settle();
    expect(await online(s.id)).toBe(true);
    await b.close();
    // Going offline is a change to wait for (the close reaches the hub, which writes it): a fixed
    // pause lost that race on a busy CI lane. Staying online above is the absence of a change.
    await expect.poll(() => online(s.id), { timeout: 10_000 }).toBe(false);
  });

  it("a connection's close does not clear what a newer one (on another instance) wrote", async () => {
    const s = await newServer('Otra');
    const a = await ProtocolAgent.connect(base, s.token);
    // Another instance's connection of the same server writes lastSeenAt after A's last write.
    await new Promise((r) => setTimeout(r, 20));
    await t.ctx.db.update(servers).set({ lastSeenAt: new Date() }).where(eq(servers.id, s.id));
    await a.close();
    await settle();
    expect(await online(s.id)).toBe(true);
  });
});

describe('message size limits by channel', () => {
  it("closes a browser's /ws socket that sends a frame over its small limit", async () => {
    const c = await createCustomer(t);
    const { access } = await login(t, c.username, c.password);
    const small = await PushClient.connect(base, access);
    // Browsers only listen: a small frame is ignored, the socket stays.
    small.send('x'.repeat(BROWSER_WS_MAX_PAYLOAD - 16));
    const big = await PushClient.connect(base, access);
    big.send('x'.repeat(64 * 1024));
    expect(await big.waitClosed()).toBe(1009);
    expect(small.closeCode).toBeNull();
    small.close();
  });

  it('closes an agent socket that sends a message over the agent limit', async () => {
    const s = await newServer('Grande');
    const agent = await ProtocolAgent.connect(base, s.token);
    agent.send(JSON.stringify({ type: 'error', message: 'x'.repeat(AGENT_MAX_MESSAGE_BYTES) }));
    expect(await agent.closedWith).toBe(1009);
  });

  it('stores every chunk of a stats report sent in several messages', async () => {
    const s = await newServer('Trozos');
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
      .returning();
    const c = await createCustomer(t);
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) {
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/admin/peers',
        headers: bearer(owner),
        payload: { username: c.username, plan: plan!.id, name: `P${i}`, server: s.id },
      });
      expect(res.statusCode).toBe(201);
      ids.push(res.json().id as number);
    }
    const agent = await ProtocolAgent.connect(base, s.token);
    const rows = await t.ctx.db.select().from(peers).where(inArray(peers.id, ids));
    const at = Date.now();
    // One report of six peers in three messages, as the agent chunks a big fleet.
    for (let i = 0; i < 6; i += 2)
      agent.send({
        type: 'stats',
        at,
        peers: rows.slice(i, i + 2).map((p, j) => ({
          public_key: p.publicKey,
          rx_bytes: 1000 * (i + j + 1),
          tx_bytes: 10 * (i + j + 1),
          latest_handshake: Math.floor(at / 1000),
          endpoint: '203.0.113.9:4500',
        })),
      });
    const usage = async () =>
      t.ctx.db.select().from(peerUsageHourly).where(eq(peerUsageHourly.serverId, s.id));
    for (let i = 0; i < 100 && (await usage()).length < 6; i++) await new Promise((r) => setTimeout(r, 50));
    const stored = await usage();
    expect(stored).toHaveLength(6);
    expect(new Set(stored.map((u) => u.peerId))).toEqual(new Set(ids));
    expect(stored.map((u) => u.rxBytes).sort((a, b) => a - b)).toEqual([1000, 2000, 3000, 4000, 5000, 6000]);
    await agent.close();
  });
});
