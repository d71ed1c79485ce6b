/**
 * The security headers of issue 10 as a browser receives them: the CSP and Permissions-Policy on the
 * HTML, not on the API's JSON or the mirror's text; HSTS only over https, which a plain-http request
 * cannot claim unless it comes through a proxy TRUST_PROXY trusts. The browser side (the pages and
 * the captcha working under the policy) is web/e2e/csp.e2e.test.ts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, createTestDatabase, type TestApp } from '../../test/helpers.ts';
import type { Database } from '../db/client.ts';
import { TAP_CAPTURE_HASH } from './security.ts';

let dir: string;
let database: Database;
/** Behind a proxy at 127.0.0.1 (the address `inject` comes from). */
let proxied: TestApp;
/** Reached directly: no proxy is trusted. */
let direct: TestApp;
let turnstile: TestApp;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'vpn-security-headers-'));
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><head><title>SPA</title></head><body></body></html>',
  );
  database = await createTestDatabase();
  const env = { WEB_DIST: dir };
  proxied = await createTestApp({ database, scheduler: false, env: { ...env, TRUST_PROXY: '127.0.0.1' } });
  direct = await createTestApp({ database, scheduler: false, env });
  turnstile = await createTestApp({
    database,
    scheduler: false,
    env: {
      ...env,
      CAPTCHA_PROVIDER: 'turnstile',
      TURNSTILE_SITE_KEY: 'sitio',
      TURNSTILE_SECRET_KEY: 'secreto',
    },
  });
});
afterAll(async () => {
  await Promise.all([proxied?.close(), direct?.close(), turnstile?.close()]);
  await database?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The CSP header as directive name → its sources. */
function directives(header: string | string[] | number | undefined): Map<string, string[]> {
  expect(typeof header).toBe('string');
  return new Map(
    String(header)
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .filter((d) => d[0])
      .map(([name, ...sources]) => [name!, sources]),
  );
}

describe('HTML pages', () => {
  it('carry a strict script policy that lets the ALTCHA workers run from blob: and nothing frame them', async () => {
    const res = await direct.app.inject({ url: '/login', headers: { host: 'vpn.example.com' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    const csp = directives(res.headers['content-security-policy']);
    expect(Object.fromEntries(csp)).toEqual({
      'default-src': ["'self'"],
      'script-src': ["'self'", TAP_CAPTURE_HASH],
      'style-src': ["'self'", "'unsafe-inline'"],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'"],
      'connect-src': ["'self'", 'ws://vpn.example.com'],
      'worker-src': ["'self'", 'blob:'],
      'frame-src': ["'none'"],
      'object-src': ["'none'"],
      'base-uri': ["'self'"],
      'form-action': ["'self'"],
      'frame-ancestors': ["'none'"],
    });
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['permissions-policy']).toMatch(/(^|, )camera=\(\)/);
    expect(res.headers['permissions-policy']).toMatch(/(^|, )microphone=\(\)/);
    expect(res.headers['permissions-policy']).toMatch(/(^|, )geolocation=\(\)/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('the landing and unknown paths too', async () => {
    for (const url of ['/', '/no-existe', '/dashboard/home', '/manager/login']) {
      const res = await direct.app.inject({ url });
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(directives(res.headers['content-security-policy']).get('frame-ancestors'), url).toEqual([
        "'none'",
      ]);
      expect(res.headers['permissions-policy'], url).toBeTruthy();
    }
  });

  it('with Turnstile configured, allow Cloudflare’s script and challenge frame instead of blob: workers', async () => {
    const res = await turnstile.app.inject({ url: '/register' });
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('script-src')).toEqual(["'self'", TAP_CAPTURE_HASH, 'https://challenges.cloudflare.com']);
    expect(csp.get('frame-src')).toEqual(['https://challenges.cloudflare.com']);
    expect(csp.get('worker-src')).toEqual(["'self'"]);
  });

  it('do not write a malformed Host into the policy', async () => {
    const res = await direct.app.inject({
      url: '/',
      headers: { host: "evil.example; script-src 'unsafe-inline'" },
    });
    const csp = directives(res.headers['content-security-policy']);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'", TAP_CAPTURE_HASH]);
  });
});

describe('API answers', () => {
  it('JSON carries helmet’s headers but no page policy, and still works', async () => {
    const res = await direct.app.inject({ url: '/api/client/captcha' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toHaveProperty('challenge');
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['permissions-policy']).toBeUndefined();
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('a refusal is still the Spanish JSON message', async () => {
    const res = await direct.app.inject({ url: '/api/client/agent' });
    expect(res.statusCode).toBe(401);
    expect(res.json().message).toMatch(/\S/);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });

  it('the mirror link answers a WireGuard client as before: plain text, no page policy', async () => {
    const res = await direct.app.inject({ url: '/api/mirror/desconocido' });
    expect(res.statusCode).toBe(404);
    expect(res.body).toBe('');
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.headers['content-security-policy']).toBeUndefined();
  });
});

describe('HSTS', () => {
  it('is sent over https as a trusted proxy reports it, with upgrade-insecure-requests and wss', async () => {
    const page = await proxied.app.inject({
      url: '/login',
      headers: { host: 'vpn.example.com', 'x-forwarded-proto': 'https' },
    });
    expect(page.headers['strict-transport-security']).toBe('max-age=31536000');
    const csp = directives(page.headers['content-security-policy']);
    expect(csp.has('upgrade-insecure-requests')).toBe(true);
    expect(csp.get('connect-src')).toEqual(["'self'", 'wss://vpn.example.com']);
    const api = await proxied.app.inject({
      url: '/api/client/captcha',
      headers: { 'x-forwarded-proto': 'https' },
    });
    expect(api.statusCode).toBe(200);
    expect(api.headers['strict-transport-security']).toBe('max-age=31536000');
  });

  it('is not sent over plain http', async () => {
    for (const headers of [{}, { 'x-forwarded-proto': 'http' }]) {
      const res = await proxied.app.inject({ url: '/login', headers });
      expect(res.headers['strict-transport-security']).toBeUndefined();
      expect(directives(res.headers['content-security-policy']).has('upgrade-insecure-requests')).toBe(false);
    }
  });

  it('is not sent when an untrusted client claims https', async () => {
    const res = await direct.app.inject({ url: '/login', headers: { 'x-forwarded-proto': 'https' } });
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect(directives(res.headers['content-security-policy']).has('upgrade-insecure-requests')).toBe(false);
  });
});
