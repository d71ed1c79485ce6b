import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bearer,
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  login,
  managerToken,
  type TestApp,
} from '../../../test/helpers.ts';
import { recordStats } from '../../services/peers/usage.ts';

let t: TestApp;
let owner: string;
let serverId: number;
let planId: number;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t);
  serverId = (await createServer(t, owner, 'Uso')).id;
  planId = (await createPlan(t)).id;
});
afterAll(() => t.close());

async function customerWithPeer() {
  const c = await createCustomer(t);
  const peer = await grantPeer(t, owner, { username: c.username, plan: planId, server: serverId });
  return { access: (await login(t, c.username, c.password)).access, peer };
}

describe('usage the customer sees', () => {
  it('online, last handshake, the period’s traffic and 30 days of it; the list shows online', async () => {
    const { access, peer } = await customerWithPeer();
    const handshake = Math.floor(Date.now() / 1000) - 30;
    await recordStats(t.ctx.db, serverId, [
      {
        public_key: peer.publicKey,
        rx_bytes: 1500,
        tx_bytes: 90_000,
        latest_handshake: handshake,
        endpoint: null,
      },
    ]);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.id}/usage`,
      headers: bearer(access),
    });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({
      online: true,
      last_handshake: new Date(handshake * 1000).toISOString(),
      period: { upload: 1500, download: 90_000, allowance: null },
    });
    expect(body.upload).toHaveLength(30);
    expect(body.download.at(-1)).toBe(90_000);
    expect(body.days_from).toBe(new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10));
    const list = await t.app.inject({
      method: 'GET',
      url: '/api/client/accounts/peers',
      headers: bearer(access),
    });
    expect(list.json()[0].online).toBe(true);
  });

  it('a handshake older than 3 minutes is offline; another customer’s peer is not found', async () => {
    const { access, peer } = await customerWithPeer();
    await recordStats(t.ctx.db, serverId, [
      {
        public_key: peer.publicKey,
        rx_bytes: 1,
        tx_bytes: 1,
        latest_handshake: Math.floor(Date.now() / 1000) - 4 * 60,
        endpoint: null,
      },
    ]);
    const mine = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.id}/usage`,
      headers: bearer(access),
    });
    expect(mine.json().online).toBe(false);
    const other = await customerWithPeer();
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/client/accounts/peers/${peer.id}/usage`,
      headers: bearer(other.access),
    });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBeTruthy();
  });
});
