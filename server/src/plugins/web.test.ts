/**
 * The delivery headers of issue 8 on a small build made here (a hashed asset with its precompressed
 * twins, a favicon, index.html): what a browser on metered data is told to compress, keep and
 * revalidate. The pre-rendered pages are covered by the browser journeys (web/e2e/delivery).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { plans } from '../db/schema.ts';
import { invalidatePlans } from '../services/billing/plans.ts';
import { createTestApp, setSettings, type TestApp } from '../../test/helpers.ts';

const ASSET = `console.log(${JSON.stringify('x'.repeat(4000))});`;
let t: TestApp;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vpn-web-headers-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><title>SPA</title></head><body></body></html>',
  );
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  writeFileSync(join(dir, 'assets', 'app-Ab12Cd34.js'), ASSET);
  writeFileSync(join(dir, 'assets', 'app-Ab12Cd34.js.br'), brotliCompressSync(ASSET));
  writeFileSync(join(dir, 'assets', 'app-Ab12Cd34.js.gz'), gzipSync(ASSET));
  t = await createTestApp({ env: { WEB_DIST: dir, COMPANY_NAME: 'Nube <Azul>' } });
});
afterAll(async () => {
  await t.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('static files', () => {
  it('serves a hashed asset precompressed with brotli, immutable for a year', async () => {
    const res = await t.app.inject({
      url: '/assets/app-Ab12Cd34.js',
      headers: { 'accept-encoding': 'gzip, deflate, br' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers.vary).toMatch(/accept-encoding/i);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(brotliDecompressSync(res.rawPayload).toString()).toBe(ASSET);
  });

  it('falls back to the gzip twin, then to the file itself', async () => {
    const gz = await t.app.inject({ url: '/assets/app-Ab12Cd34.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.rawPayload).toString()).toBe(ASSET);
    const plain = await t.app.inject({
      url: '/assets/app-Ab12Cd34.js',
      headers: { 'accept-encoding': 'identity' },
    });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(ASSET);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('asks for revalidation of files whose name does not change with their content', async () => {
    const res = await t.app.inject({ url: '/favicon.svg' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.headers.etag).toBeTruthy();
    const again = await t.app.inject({
      url: '/favicon.svg',
      headers: { 'if-none-match': res.headers.etag! },
    });
    expect(again.statusCode).toBe(304);
  });
});

describe('documents', () => {
  it('serves the SPA document no-cache with an ETag, answers 304 to a matching If-None-Match', async () => {
    const res = await t.app.inject({ url: '/login', headers: { 'accept-encoding': 'br' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/html/);
    expect(res.headers['cache-control']).toBe('no-cache');
    const etag = res.headers.etag;
    expect(etag).toMatch(/^W\/"/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const again = await t.app.inject({ url: '/login', headers: { 'if-none-match': etag! } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
  });

  it('carries the runtime configuration and the public settings inline, and a new ETag when they change', async () => {
    // The settings cache lives one second: a fake Date moves past it instead of a real sleep.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    const cacheExpires = () => vi.setSystemTime(Date.now() + 1000);
    await setSettings(t, { show_landing: true });
    cacheExpires();
    const before = await t.app.inject({ url: '/' });
    const boot = /<script id="vpn-boot" type="application\/json">(.*?)<\/script>/.exec(before.body);
    expect(boot).not.toBeNull();
    const data = JSON.parse(boot![1]!) as {
      config: { company_name: string };
      settings: { show_landing: boolean };
    };
    expect(data.config.company_name).toBe('Nube <Azul>');
    expect(boot![1]).not.toContain('<Azul>'); // escaped: no value can close the script element
    expect(data.settings.show_landing).toBe(true);

    await setSettings(t, { show_landing: false });
    cacheExpires();
    const after = await t.app.inject({ url: '/', headers: { 'if-none-match': before.headers.etag! } });
    expect(after.statusCode).toBe(200);
    expect(after.body).toContain('"show_landing":false');
    await setSettings(t, { show_landing: true });
    cacheExpires();
    vi.useRealTimers();
  });

  it('serves /config.json no-cache with an ETag', async () => {
    const res = await t.app.inject({ url: '/config.json' });
    expect(res.json()).toMatchObject({ company_name: 'Nube <Azul>', captcha: { provider: 'altcha' } });
    expect(res.headers['cache-control']).toBe('no-cache');
    const again = await t.app.inject({
      url: '/config.json',
      headers: { 'if-none-match': res.headers.etag! },
    });
    expect(again.statusCode).toBe(304);
  });

  it('keeps the build-time files private: index.html itself is not served raw', async () => {
    const res = await t.app.inject({ url: '/index.html' });
    expect(res.body).toContain('vpn-boot');
  });
});

describe('API answers', () => {
  it('compresses JSON of 1 KiB or more with the encoding the client prefers, leaves smaller ones alone', async () => {
    await t.ctx.db.delete(plans);
    for (let i = 0; i < 8; i++) {
      await t.ctx.db.insert(plans).values({
        name: `Plan ${i}`,
        description: 'Un plan de prueba con una descripción larga. '.repeat(3),
        price: `${5 + i}.00`,
        validity: '30 days',
      });
    }
    invalidatePlans(t.ctx.db);
    const br = await t.app.inject({ url: '/api/client/plans', headers: { 'accept-encoding': 'gzip, br' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    const json = brotliDecompressSync(br.rawPayload).toString();
    expect(json.length).toBeGreaterThan(1024);
    expect(br.rawPayload.length).toBeLessThan(json.length / 3);
    expect(JSON.parse(json)).toHaveLength(8);

    const gz = await t.app.inject({ url: '/api/client/plans', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString())).toHaveLength(8);

    const small = await t.app.inject({ url: '/api/client', headers: { 'accept-encoding': 'gzip, br' } });
    expect(small.headers['content-encoding']).toBeUndefined();
    expect(small.headers['cache-control']).toBe('no-store');
  });
});
