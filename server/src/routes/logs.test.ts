import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  managerToken,
  type TestApp,
} from '../../test/helpers.ts';

const lines: string[] = [];
let t: TestApp;
beforeAll(async () => {
  const logStream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  t = await createTestApp({ scheduler: false, logStream });
});
afterAll(() => t.close());

describe('request logs', () => {
  it('never carry a mirror token, an access token or a websocket token, at any level', async () => {
    const admin = await managerToken(t);
    const server = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, admin),
      payload: { name: 'Uno', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
    });
    const customer = await createCustomer(t);
    const [plan] = await t.ctx.db
      .insert(plans)
      .values({ name: 'Mensual', description: 'Uno', price: '3.00', validity: '30 days' })
      .returning();
    const planId = plan!.id;
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/peers',
      headers: bearer(admin),
      payload: { username: customer.username, plan: planId, name: 'movil', server: server.json().id },
    });
    expect(created.statusCode).toBe(201);
    const mirror = new URL(created.json().mirror_link as string, 'http://x').pathname;
    const token = mirror.split('/').pop()!;
    expect(token).toHaveLength(43);
    expect((await t.app.inject({ method: 'GET', url: mirror })).statusCode).toBe(200);
    await t.app.inject({ method: 'GET', url: `/ws?token=${admin}` });

    const log = lines.join('');
    expect(log).toContain('/api/mirror/[redactado]');
    expect(log).not.toContain(token);
    expect(log).not.toContain(admin);
  });
});
