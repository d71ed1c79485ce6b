/**
 * What issue 8 promises a customer on metered mobile data, checked in Chromium against the real build
 * and server:
 *
 * - the public pages arrive pre-rendered: with JavaScript disabled they still show their content;
 * - React takes the pre-rendered markup over without a hydration mismatch (no console error), and the
 *   page then works;
 * - the JavaScript each public route downloads stays within its budget (compressed, as sent), so a
 *   chunk that sneaks onto a public page fails CI (`PUBLIC_JS_BUDGET_KIB`);
 * - hashed files are immutable and precompressed, the documents revalidated.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { measureJourneys } from '../scripts/budget';
import { ManagerApi, registerCustomer } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const distDir = inject('distDir');
let browser: Browser;
let manager: ManagerApi;
let emailBefore: boolean;

beforeAll(async () => {
  browser = await launchChromium();
  // /password-recovery exists only while a channel can carry a reset link (issue 32): e-mail here
  // (the test server has SMTP and PUBLIC_URL; the site's e-mail switch is off by default).
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  emailBefore = (await manager.request<{ allow_email: boolean }>('GET', '/api/admin/settings')).allow_email;
  await manager.settings({ allow_email: true, allow_password_recovery: true });
});
afterAll(async () => {
  await manager?.settings({ allow_email: emailBefore });
  await browser?.close();
});

/**
 * Compressed JavaScript a public route downloads before the visitor touches it, in KiB: only the
 * boot script (`src/boot.ts`, 0.9 KiB; 1.2 KiB since it also serves the first tap on the menu and
 * "Mostrar contraseña" itself, issue 32; 0.9 KiB again once /login's early login and warm-up moved
 * to a script of /login's own, `src/bootLogin.ts`), since the application loads at the first
 * interaction (issue 28; 122–143 KiB before). /login also fetches, without running it, the bulk of the
 * application once it is idle (`data-warm`, `LOGIN_WARM_KIB` in web/size-budget.ts: ~80 KiB), so a
 * login sent at once by a password manager waits for less. Raise one only knowingly: every KiB is
 * paid by every visitor.
 */
export const PUBLIC_JS_BUDGET_KIB: Record<string, number> = {
  '/': 1.5,
  '/plans': 1.5,
  '/login': 86,
  '/register': 1.5,
  '/password-recovery': 1.5,
};

/**
 * Script files per public route: on HTTP/1.1 a browser fetches six at a time, and every further six
 * cost another round trip (300 ms on the target network). One before the first interaction (the boot
 * script, issue 28); five before that (issue 8), fifteen before the public chunk. /login has its
 * own second script (`src/bootLogin.ts`), and its warm-up comes after the page is painted, in one
 * round of six.
 */
export const PUBLIC_JS_FILES_BUDGET: Record<string, number> = {
  '/': 1,
  '/plans': 1,
  '/login': 7,
  '/register': 1,
  '/password-recovery': 1,
};

/** Each public page and something it shows that only its content has. */
const PAGES: { path: string; heading: string | RegExp; text?: string }[] = [
  { path: '/', heading: /desde Cuba/, text: 'Planes flexibles' },
  { path: '/plans', heading: 'Planes', text: 'Adquirir' },
  { path: '/login', heading: 'Iniciar sesión' },
  { path: '/register', heading: 'Crear cuenta' },
  { path: '/password-recovery', heading: 'Recuperar Contraseña' },
  { path: '/no-existe', heading: 'Página no encontrada' },
];

async function withPage<T>(
  options: Parameters<Browser['newContext']>[0],
  run: (page: Page, context: BrowserContext) => Promise<T>,
): Promise<T> {
  const context = await browser.newContext({ baseURL: baseUrl, locale: 'es-ES', ...options });
  try {
    return await run(await context.newPage(), context);
  } finally {
    await context.close();
  }
}

describe('pre-rendered public pages', () => {
  it('show their content with JavaScript disabled', async () => {
    await withPage({ javaScriptEnabled: false }, async (page) => {
      for (const { path, heading, text } of PAGES) {
        await page.goto(path);
        await expect
          .soft(page.getByRole('heading', { level: 1 }).first().textContent(), path)
          .resolves.toMatch(heading);
        if (text) expect.soft(await page.getByText(text).count(), `${path}: ${text}`).toBeGreaterThan(0);
        expect(await page.title(), path).toMatch(/^VPN Service - /);
      }
      // The plans are the server's current plans, not the build's.
      const plans = (await (await fetch(`${baseUrl}/api/client/plans`)).json()) as { name: string }[];
      await page.goto('/plans');
      for (const plan of plans) await page.getByRole('heading', { name: plan.name }).waitFor();
    });
  });

  it('hydrate without a mismatch or any console error, and then work', async () => {
    await withPage({}, async (page) => {
      const problems: string[] = [];
      page.on('console', (message) => {
        // The not-found page is answered 404 on purpose; Chromium logs every 4xx document.
        if (message.type() === 'error' && !message.text().includes('404 (Not Found)'))
          problems.push(`${page.url()}: ${message.text()}`);
      });
      page.on('pageerror', (error) => problems.push(`${page.url()}: ${error.message}`));
      // The application takes a page over when the visitor starts using it (the pointer over it).
      const takeOver = async () => {
        await page.mouse.move(5, 5);
        await page.mouse.move(40, 40);
        await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);
      };
      for (const { path, heading } of PAGES) {
        await page.goto(path, { waitUntil: 'networkidle' });
        await takeOver();
        await expect(page.getByRole('heading', { level: 1 }).first().textContent()).resolves.toMatch(heading);
      }
      // Hydrated: the password toggle of the login form answers.
      await page.goto('/login', { waitUntil: 'networkidle' });
      await takeOver();
      const password = page.getByLabel('Contraseña', { exact: true });
      await expect(password.getAttribute('type')).resolves.toBe('password');
      await page.getByRole('button', { name: /Mostrar contraseña/ }).click();
      await expect.poll(() => password.getAttribute('type')).toBe('text');
      expect(problems).toEqual([]);
    });
  });

  it('send a visitor who opens /maintenance while maintenance is off to the home page', async () => {
    const res = await fetch(`${baseUrl}/maintenance`, { redirect: 'manual' });
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('/');
  });
});

describe('bytes on the wire', () => {
  it('keeps the compressed JavaScript of every public route within its budget', async () => {
    const measured: Record<string, number> = {};
    const files: Record<string, number> = {};
    for (const path of Object.keys(PUBLIC_JS_BUDGET_KIB)) {
      await withPage({}, async (page) => {
        const sizes: Promise<number>[] = [];
        page.on('requestfinished', (request) => {
          if (request.resourceType() === 'script')
            sizes.push(request.sizes().then((s) => s.responseBodySize));
        });
        await page.goto(path, { waitUntil: 'networkidle' });
        const total = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
        measured[path] = Math.round((total / 1024) * 10) / 10;
        files[path] = sizes.length;
      });
    }
    console.log('JavaScript comprimido por ruta pública (KiB):', measured, 'ficheros:', files);
    for (const [path, kib] of Object.entries(measured))
      expect.soft(kib, `${path}: ${kib} KiB`).toBeLessThanOrEqual(PUBLIC_JS_BUDGET_KIB[path]!);
    for (const [path, count] of Object.entries(files))
      expect.soft(count, `${path}: ${count} ficheros`).toBeLessThanOrEqual(PUBLIC_JS_FILES_BUDGET[path]!);
  });

  it('counts in the size budget every file a cold / and a login from a cold /login fetch', async () => {
    // The budget (web/size-budget.ts, checked by the build) sums files it reads from the build; this
    // makes sure the browser fetches nothing the sums leave out.
    const costs = new Map(measureJourneys(distDir).map((c) => [c.journey, c]));
    const fetched = (page: Page) => {
      const files: string[] = [];
      page.on('requestfinished', (request) => {
        const { pathname } = new URL(request.url());
        if (pathname.startsWith('/assets/')) files.push(pathname.slice(1));
      });
      return files;
    };
    const counted = (journey: 'landingCold' | 'loginCold' | 'loginToDashboard') => [
      ...costs.get(journey)!.files.keys(),
    ];

    await withPage({}, async (page) => {
      const files = fetched(page);
      await page.goto('/', { waitUntil: 'networkidle' });
      expect(files.length).toBeGreaterThan(0);
      expect(files.filter((f) => !counted('landingCold').includes(f))).toEqual([]);
    });

    const username = `presupuesto${Date.now().toString(36)}`;
    await registerCustomer(baseUrl, username, 'clave-de-presupuesto-1');
    await withPage({}, async (page) => {
      const files = fetched(page);
      await page.goto('/login', { waitUntil: 'networkidle' });
      // Read, not used: the document's files and the warm-up (each module alone, not its imports).
      expect(files.filter((f) => !counted('loginCold').includes(f))).toEqual([]);
      await page.getByLabel('Usuario').fill(username);
      await page.getByLabel('Contraseña', { exact: true }).fill('clave-de-presupuesto-1');
      await page.getByRole('button', { name: 'Iniciar sesión' }).click();
      await page.waitForURL('**/dashboard/home');
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      await page.waitForLoadState('networkidle');
      expect(files.filter((f) => !counted('loginToDashboard').includes(f))).toEqual([]);
    });
  });

  it('loads the application only when the visitor starts using the page, and sends a form sent before', async () => {
    const username = `temprano${Date.now().toString(36)}`;
    await registerCustomer(baseUrl, username, 'clave-de-temprano-1');
    await withPage({}, async (page) => {
      const scripts: string[] = [];
      page.on('request', (request) => {
        if (request.resourceType() === 'script') scripts.push(new URL(request.url()).pathname);
      });
      const logins: boolean[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname === '/api/client/login') logins.push(true);
      });
      await page.goto('/login', { waitUntil: 'networkidle' });
      // Read-only so far: the page's two small scripts (the boot script and /login's own,
      // src/bootLogin.ts) and the warm-up it fetched once idle (the `data-warm` list), none of it
      // run: React has not taken the page over.
      const warm = await page.evaluate(
        () => document.querySelector<HTMLScriptElement>('script[data-warm]')?.dataset.warm?.split(' ') ?? [],
      );
      expect(warm.length).toBeGreaterThan(0);
      await expect.poll(() => scripts.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(warm.length + 2);
      expect(scripts.slice(0, 2).map((s) => /\/assets\/(boot|bootLogin)-/.exec(s)?.[1])).toEqual([
        'boot',
        'bootLogin',
      ]);
      expect(scripts.slice(2).sort()).toEqual([...warm].sort());
      expect(await page.evaluate(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated)).toBeFalsy();
      // A slow network from here on (the profile of issue 28): the customer types and sends the form
      // long before the application has arrived.
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false,
        latency: 300,
        downloadThroughput: (750 * 1000) / 8,
        uploadThroughput: (250 * 1000) / 8,
      });
      await page.getByLabel('Usuario').fill(username);
      await page.getByLabel('Contraseña', { exact: true }).fill('clave-de-temprano-1');
      await page.getByRole('button', { name: 'Iniciar sesión' }).click();
      // The login was sent at once, its answer kept for the app under the username, never under the
      // password (issue 31: the plain password was the key of a global until the app took it).
      const held = await page.evaluate(() => {
        const w = window as { __vpnHydrated?: boolean; __vpnEarly?: Map<string, unknown> };
        return { hydrated: w.__vpnHydrated, keys: [...(w.__vpnEarly?.keys() ?? [])] };
      });
      expect(held.hydrated).toBeFalsy();
      expect(held.keys.filter((k) => k.startsWith('POST /api/client/login'))).toHaveLength(1);
      expect(held.keys.join(' ')).not.toContain('clave-de-temprano-1');
      // Held, not sent as a plain form (which would put the password in the URL), then sent by the app.
      await page.waitForURL('**/dashboard/home', { timeout: 30_000 });
      expect(page.url()).not.toContain('clave');
      await page.getByRole('heading', { level: 1 }).first().waitFor();
      expect(scripts.length).toBeGreaterThan(warm.length + 2);
      // The boot script sent the login at once; the app took its answer instead of sending it again.
      expect(logins).toHaveLength(1);
    });
  });

  it('serves hashed files brotli-compressed and immutable, and revalidates documents', async () => {
    const html = await fetch(`${baseUrl}/`, { headers: { 'accept-encoding': 'br' } });
    expect(html.headers.get('cache-control')).toBe('no-cache');
    expect(html.headers.get('etag')).toBeTruthy();
    const script = /<script type="module" crossorigin src="([^"]+)"/.exec(await html.text())?.[1];
    expect(script).toMatch(/^\/assets\//);
    const asset = await fetch(`${baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(asset.headers.get('content-encoding')).toBe('br');
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});
