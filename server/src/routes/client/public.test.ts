import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { plans } from '../../db/schema.ts';
import { invalidatePlans } from '../../services/billing/plans.ts';
import { createTestApp, setSettings, type TestApp } from '../../../test/helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());
beforeEach(async () => {
  await setSettings(t, { maintenance: false });
  await t.ctx.db.delete(plans);
  invalidatePlans(t.ctx.db);
});

describe('GET /api/client', () => {
  it('answers the seven public settings without a token', async () => {
    await setSettings(t, { allow_email: true, show_landing: false });
    const res = await t.app.inject({ method: 'GET', url: '/api/client' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      maintenance: false,
      allow_registration: true,
      // The switch is on, but neither mail (no SMTP_URL here) nor a Telegram bot can carry a link.
      allow_password_recovery: false,
      show_landing: false,
      allow_payments_qvapay: false,
      allow_email: true,
      allow_payments_remesita: false,
    });
    await setSettings(t, { allow_email: false, show_landing: true });
  });

  it('still answers during maintenance, saying so', async () => {
    await setSettings(t, { maintenance: true });
    const res = await t.app.inject({ method: 'GET', url: '/api/client' });
    expect(res.statusCode).toBe(200);
    expect(res.json().maintenance).toBe(true);
  });
});

describe('GET /api/client/status', () => {
  it('reports maintenance off and on', async () => {
    expect((await t.app.inject({ method: 'GET', url: '/api/client/status' })).json()).toEqual({
      maintenance: false,
    });
    await setSettings(t, { maintenance: true });
    const res = await t.app.inject({ method: 'GET', url: '/api/client/status' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ maintenance: true });
  });
});

describe('maintenance', () => {
  it('answers 503 with a Spanish message on the rest of the client API', async () => {
    await setSettings(t, { maintenance: true });
    for (const [method, url] of [
      ['GET', '/api/client/plans'],
      ['POST', '/api/client/login'],
      ['PUT', '/api/client/register'],
      ['GET', '/api/client/verify-token'],
      ['GET', '/api/client/captcha'],
    ] as const) {
      const res = await t.app.inject({ method, url, payload: method === 'GET' ? undefined : {} });
      expect(res.statusCode, url).toBe(503);
      expect(res.json().message).toBe('El servicio está en mantenimiento. Por favor, inténtalo más tarde.');
    }
  });

  it('leaves the manager API reachable so operators can switch it off', async () => {
    await setSettings(t, { maintenance: true });
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/login',
      payload: { username: 'x', password: 'y' },
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/client/plans', () => {
  it('lists active plans in order with validity as N days HH:MM:SS and price in USD', async () => {
    await t.ctx.db.insert(plans).values([
      { name: 'Anual', description: 'Uno. Dos', price: '28.00', validity: '365 days', sortOrder: 2 },
      { name: 'Mensual', description: 'Tres', price: '3.50', validity: '30 days 12:00:00', sortOrder: 1 },
      { name: 'Retirado', description: 'X', price: '1.00', validity: '1 day', active: false },
    ]);
    invalidatePlans(t.ctx.db);
    const res = await t.app.inject({ method: 'GET', url: '/api/client/plans' });
    expect(res.statusCode).toBe(200);
    const body = res.json<{ name: string; price: number; validity: string; description: string }[]>();
    expect(body.map((p) => p.name)).toEqual(['Mensual', 'Anual']);
    expect(body[0]).toMatchObject({ price: 3.5, validity: '30 days 12:00:00', description: 'Tres' });
    expect(body[1]).toMatchObject({ price: 28, validity: '365 days 00:00:00' });
  });

  it('answers an empty list when nothing is on sale', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/client/plans' });
    expect(res.json()).toEqual([]);
  });
});

describe('GET /config.json', () => {
  it('serves the runtime config the SPA needs, not baked into the build', async () => {
    const custom = await createTestApp({
      database: t.database,
      env: { COMPANY_NAME: 'CubaNet VPN', SUPPORT_URL: 'https://t.me/soporte' },
    });
    const res = await custom.app.inject({ method: 'GET', url: '/config.json' });
    expect(res.json()).toEqual({
      company_name: 'CubaNet VPN',
      support_url: 'https://t.me/soporte',
      public_url: null,
      captcha: { provider: 'altcha', challenge_url: '/api/client/captcha' },
      android: { app_url: null, apk: null },
    });
    await custom.app.close();
  });

  it('names the Turnstile site key when that provider is chosen', async () => {
    const custom = await createTestApp({
      database: t.database,
      env: { CAPTCHA_PROVIDER: 'turnstile', TURNSTILE_SITE_KEY: 'site-123', TURNSTILE_SECRET_KEY: 'secret' },
    });
    const res = await custom.app.inject({ method: 'GET', url: '/config.json' });
    expect(res.json().captcha).toEqual({ provider: 'turnstile', site_key: 'site-123' });
    expect(JSON.stringify(res.json())).not.toContain('secret');
    await custom.app.close();
  });
});

describe('unknown API paths and malformed input', () => {
  it('answers JSON 404 in Spanish for an unknown API path', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/client/nada' });
    expect(res.statusCode).toBe(404);
    expect(res.json().message).toBe('Recurso no encontrado');
    const res2 = await t.app.inject({ method: 'GET', url: '/api/nada' });
    expect(res2.statusCode).toBe(404);
    expect(res2.json().message).toBe('Recurso no encontrado');
  });

  it('answers 400, never 5xx, to broken JSON, wrong types and huge bodies', async () => {
    const bad = [
      { payload: '{"username":', headers: { 'content-type': 'application/json' } },
      {
        payload: JSON.stringify({ username: 5, password: [] }),
        headers: { 'content-type': 'application/json' },
      },
      {
        payload: JSON.stringify({ username: 'a'.repeat(5000), password: 'x' }),
        headers: { 'content-type': 'application/json' },
      },
      { payload: '"texto"', headers: { 'content-type': 'application/json' } },
      { payload: 'x'.repeat(100_000), headers: { 'content-type': 'application/json' } },
      { payload: 'username=a', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
    ];
    for (const b of bad) {
      const res = await t.app.inject({ method: 'POST', url: '/api/client/login', ...b });
      expect(res.statusCode, b.payload.slice(0, 30)).toBeGreaterThanOrEqual(400);
      expect(res.statusCode).toBeLessThan(500);
      expect(typeof res.json().message).toBe('string');
    }
  });
});

describe('the SPA', () => {
  it('serves index.html at /, files as they are, and index.html for client-side routes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vpn-web-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>SPA</title>');
    writeFileSync(join(dir, 'assets', 'app.js'), 'console.log(1)');
    const web = await createTestApp({ database: t.database, env: { WEB_DIST: dir } });
    for (const url of ['/', '/login', '/dashboard/peers', '/no-existe']) {
      const res = await web.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('<title>SPA</title>');
    }
    expect((await web.app.inject({ method: 'GET', url: '/assets/app.js' })).body).toBe('console.log(1)');
    const api = await web.app.inject({ method: 'GET', url: '/api/nada' });
    expect(api.statusCode).toBe(404);
    expect(api.json().message).toBe('Recurso no encontrado');
    await web.app.close();
  });
});

describe('GET /api/docs', () => {
  it('publishes an OpenAPI document with the spec call table paths', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs' });
    const doc = res.json<{ openapi: string; paths: Record<string, Record<string, unknown>> }>();
    expect(doc.openapi).toMatch(/^3\./);
    for (const path of [
      '/api/client',
      '/api/client/plans',
      '/api/client/login',
      '/api/client/register',
      '/api/refresh-token',
      '/api/logout',
      '/api/client/verify-token',
      '/api/admin/login',
    ]) {
      expect(Object.keys(doc.paths)).toContain(path);
    }
    expect(doc.paths['/api/client/register']).toHaveProperty('put');
  });
});
