import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { peerUsageHourly } from '../db/schema.ts';
import {
  createCustomer,
  createPlan,
  createServer,
  createTestApp,
  grantPeer,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';
import { recordStats } from '../services/peers/usage.ts';
import { profileTitle } from './mirror.ts';
import { openMirrorToken } from '../services/peers/mirrorTokens.ts';

let t: TestApp;
let owner: string;
let serverId: number;
let planId: number;

beforeAll(async () => {
  t = await createTestApp({ scheduler: false, env: { COMPANY_NAME: 'Conexión Ñandú' } });
  owner = await managerToken(t);
  serverId = (await createServer(t, owner, 'Espejo')).id;
  planId = (await createPlan(t)).id;
});
afterAll(() => t.close());

async function newPeer() {
  const c = await createCustomer(t);
  return grantPeer(t, owner, { username: c.username, plan: planId, server: serverId });
}

describe('mirror link headers for subscription-aware clients', () => {
  it('carry the period’s upload and download, no allowance, the expiry, the company name and the refresh interval', async () => {
    const p = await newPeer();
    // Traffic from before the current period (the plan was granted just now) does not count.
    await t.ctx.db
      .insert(peerUsageHourly)
      .values({ peerId: p.id, serverId, hour: new Date('2020-01-01T00:00:00Z'), rxBytes: 1e9, txBytes: 1e9 });
    await recordStats(t.ctx.db, serverId, [
      { public_key: p.publicKey, rx_bytes: 3000, tx_bytes: 7000, latest_handshake: 0, endpoint: null },
    ]);
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, p.mirrorTokenEnc)}`,
    });
    expect(res.statusCode).toBe(200);
    const expire = Math.floor(p.expiresAt!.getTime() / 1000);
    // The server receives what the customer uploads.
    expect(res.headers['subscription-userinfo']).toBe(
      `upload=3000; download=7000; total=0; expire=${expire}`,
    );
    const title = res.headers['profile-title'] as string;
    expect(title.startsWith('base64:')).toBe(true);
    expect(Buffer.from(title.slice('base64:'.length), 'base64').toString('utf8')).toBe('Conexión Ñandú');
    expect(res.headers['profile-update-interval']).toBe('24');
    // A conditional request answers 304 with the same headers.
    const again = await t.app.inject({
      method: 'GET',
      url: `/api/mirror/${openMirrorToken(t.ctx.keys.encryption, p.mirrorTokenEnc)}`,
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
    expect(again.headers['subscription-userinfo']).toBe(res.headers['subscription-userinfo']);
  });

  it('send an ASCII company name as it is', () => {
    expect(profileTitle('VPN Service')).toBe('VPN Service');
    expect(profileTitle('Señal')).toBe(`base64:${Buffer.from('Señal').toString('base64')}`);
  });
});
