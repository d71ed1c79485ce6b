import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customers, invoices, peerStats, peers, plans, serverUsageHourly } from '../../db/schema.ts';
import { hashPassword } from '../../lib/crypto.ts';
import { bearer, confirmed, createTestApp, managerToken, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
let owner: string;
let serverId: number;

const day = (offset: number) => new Date(Date.UTC(2026, 0, 10 + offset, 12)).toISOString();

beforeAll(async () => {
  t = await createTestApp({ scheduler: false });
  owner = await managerToken(t, 'owner');
  const created = await t.app.inject({
    method: 'POST',
    url: '/api/admin/servers',
    headers: await confirmed(t, owner),
    payload: { name: 'Uno', endpoint: 'uno.example:51820', ubication: 'X' },
  });
  serverId = created.json().server.id;
  const hash = await hashPassword('x-x-x-x-x');
  // Customers: 2 on Jan 10, 1 on Jan 12 (and one long before the range).
  const made = await t.ctx.db
    .insert(customers)
    .values([
      { username: 'm1', passwordHash: hash, createdAt: new Date(day(0)) },
      { username: 'm2', passwordHash: hash, createdAt: new Date(day(0)) },
      { username: 'm3', passwordHash: hash, createdAt: new Date(day(2)) },
      { username: 'm0', passwordHash: hash, createdAt: new Date(day(-100)) },
    ])
    .returning();
  const [plan] = await t.ctx.db
    .insert(plans)
    .values({ name: 'P', description: 'x', price: '5.00', validity: '30 days' })
    .returning();
  // Paid: 5.00 on Jan 10, 2 × 2.50 on Jan 12; a pending one counts nothing.
  await t.ctx.db.insert(invoices).values([
    {
      customerId: made[0]!.id,
      operation: 'new_peer',
      planId: plan!.id,
      planName: 'P',
      amount: '5.00',
      gateway: 'manual',
      status: 'paid',
      paidAt: new Date(day(0)),
    },
    {
      customerId: made[1]!.id,
      operation: 'new_peer',
      planId: plan!.id,
      planName: 'P',
      amount: '2.50',
      gateway: 'manual',
      status: 'paid',
      paidAt: new Date(day(2)),
    },
    {
      customerId: made[1]!.id,
      operation: 'new_peer',
      planId: plan!.id,
      planName: 'P',
      amount: '2.50',
      gateway: 'manual',
      status: 'paid',
      paidAt: new Date(day(2)),
    },
    {
      customerId: made[2]!.id,
      operation: 'new_peer',
      planId: plan!.id,
      planName: 'P',
      amount: '9.00',
      gateway: 'manual',
      status: 'pending',
    },
  ]);
  // Peers: one since before the range, never expiring; one created Jan 11 expiring Jan 13;
  // one created Jan 12, no expiry.
  const peer = (i: number, createdAt: string, expiresAt: string | null) => ({
    customerId: made[0]!.id,
    serverId,
    name: `p${i}`,
    addressIndex: 100 + i,
    address: `10.64.0.${100 + i}`,
    publicKey: `key-${i}`,
    privateKeyEnc: 'x',
    presharedKeyEnc: 'x',
    mirrorTokenEnc: `mirror-token-${i}`,
    mirrorTokenHash: `mirror-hash-${i}`,
    createdAt: new Date(createdAt),
    expiresAt: expiresAt ? new Date(expiresAt) : null,
  });
  const ps = await t.ctx.db
    .insert(peers)
    .values([peer(1, day(-50), null), peer(2, day(1), day(3)), peer(3, day(2), null)])
    .returning();
  await t.ctx.db
    .insert(serverUsageHourly)
    .values({ serverId, hour: new Date(day(1)), rxBytes: 1500, txBytes: 15 });
  // Online now (a handshake within 3 minutes).
  await t.ctx.db.insert(peerStats).values({
    peerId: ps[2]!.id,
    serverId,
    publicKey: 'k',
    latestHandshake: sql`now()` as unknown as Date,
  });
});
afterAll(() => t.close());

const series = (query: string, token = owner) =>
  t.app.inject({ method: 'GET', url: `/api/admin/metrics/series?${query}`, headers: bearer(token) });

describe('GET /api/admin/metrics/series', () => {
  it('gives one value per day, zero-filled, for revenue, new customers, active peers and per-server traffic', async () => {
    const res = await series('from=2026-01-09&to=2026-01-14');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.days).toEqual([
      '2026-01-09',
      '2026-01-10',
      '2026-01-11',
      '2026-01-12',
      '2026-01-13',
      '2026-01-14',
    ]);
    expect(body.revenue_usd).toEqual([0, 5, 0, 5, 0, 0]);
    expect(body.new_customers).toEqual([0, 2, 0, 1, 0, 0]);
    expect(body.active_peers).toEqual([1, 1, 2, 3, 2, 2]);
    const server = body.servers.find((s: { id: number }) => s.id === serverId);
    expect(server).toMatchObject({ name: 'Uno', peers: 3, online_peers: 1, agent_online: false });
    expect(server.rx_bytes).toEqual([0, 0, 1500, 0, 0, 0]);
    expect(server.tx_bytes).toEqual([0, 0, 15, 0, 0, 0]);
  });

  it('leaves revenue out for roles without revenue.read, in the series and the headline', async () => {
    const ops = await managerToken(t, 'operations');
    const body = (await series('from=2026-01-09&to=2026-01-14', ops)).json();
    expect(body).not.toHaveProperty('revenue_usd');
    expect(body.new_customers).toEqual([0, 2, 0, 1, 0, 0]);
    const headline = (
      await t.app.inject({ method: 'GET', url: '/api/admin/metrics', headers: bearer(ops) })
    ).json();
    expect(headline).not.toHaveProperty('revenue_usd_30d');
    expect(headline).toHaveProperty('customers');
    const finance = await managerToken(t, 'finance');
    expect((await series('from=2026-01-09&to=2026-01-10', finance)).json().revenue_usd).toEqual([0, 5]);
  });

  it('defaults to the last 30 days and refuses bad ranges in Spanish', async () => {
    expect((await series('')).json().days).toHaveLength(30);
    const cases: [string, string][] = [
      ['from=2026-01-10&to=2026-01-09', 'La fecha inicial debe ser anterior o igual a la final'],
      ['from=2024-01-01&to=2026-01-09', 'El intervalo admite como máximo 366 días'],
      ['from=2026-02-30&to=2026-03-01', 'Las fechas deben tener la forma AAAA-MM-DD'],
      ['from=ayer', 'Las fechas deben tener la forma AAAA-MM-DD'],
    ];
    for (const [query, message] of cases) {
      const res = await series(query);
      expect(res.statusCode).toBe(400);
      expect(JSON.stringify(res.json())).toContain(message);
    }
    expect((await series('from=2025-01-10&to=2026-01-10')).statusCode).toBe(200);
  });
});
