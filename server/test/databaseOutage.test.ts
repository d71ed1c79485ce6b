/**
 * PostgreSQL lost and back, without restarting the control plane: a TCP proxy in front of the
 * shared test server stands for the database host (cutting it does not stop the server other
 * tests use). While it is cut, API requests answer 503 with the maintenance code the SPA turns
 * into its maintenance page; once it is back, the same instance answers again.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Proxy } from './tcpProxy.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { msg } from '@vpn/contracts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { invalidatePlans } from '../src/services/billing/plans.ts';
import { invalidateSiteSettings } from '../src/services/site/settings.ts';
import {
  bearer,
  confirmed,
  createTestApp,
  createTestDatabase,
  managerToken,
  type TestApp,
} from './helpers.ts';

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL connection lost', () => {
  let direct: Database & { url?: string };
  let database: Database;
  let proxy: Proxy;
  let t: TestApp;
  let owner: string;
  const dist = mkdtempSync(join(tmpdir(), 'vpn-outage-web-'));

  beforeAll(async () => {
    writeFileSync(
      join(dist, 'index.html'),
      '<!doctype html><html><head><title>SPA</title></head><body></body></html>',
    );
    direct = await createTestDatabase();
    const url = new URL(direct.url!);
    proxy = new Proxy({ host: url.hostname, port: Number(url.port || 5432) });
    await proxy.start();
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    database = await openDatabase({ databaseUrl: url.toString(), poolSize: 3 });
    t = await createTestApp({ database, scheduler: false, env: { WEB_DIST: dist } });
    owner = await managerToken(t);
  });
  afterAll(async () => {
    await t?.close();
    await database?.close();
    await direct?.close();
    rmSync(dist, { recursive: true, force: true });
  });

  const customers = () => t.app.inject({ url: '/api/admin/customers', headers: bearer(owner) });

  it('answers 503 (maintenance) while the database is unreachable and recovers by itself', async () => {
    expect((await customers()).statusCode).toBe(200);

    await proxy.cut();
    for (let i = 0; i < 3; i++) {
      const res = await customers();
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ message: msg.maintenance, code: 'maintenance' });
      expect(res.headers['retry-after']).toBe('5');
    }

    // A page opened in the browser (its settings no longer cached): a plain maintenance page.
    invalidateSiteSettings(t.ctx.db);
    invalidatePlans(t.ctx.db);
    const page = await t.app.inject({ url: '/plans', headers: { accept: 'text/html' } });
    expect(page.statusCode).toBe(503);
    expect(page.headers['content-type']).toMatch(/text\/html/);
    expect(page.body).toContain(msg.maintenance);

    await proxy.restore();
    expect((await t.app.inject({ url: '/plans', headers: { accept: 'text/html' } })).statusCode).toBe(200);
    const back = await customers();
    expect(back.statusCode).toBe(200);
    // Writes too, on the same instance.
    const created = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, owner),
      payload: { name: 'Tras el corte', endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' },
    });
    expect(created.statusCode).toBe(201);
  });
});
