/**
 * Issue 32, point 11: a full load of a dashboard page does not wait for the application to ask for
 * its own code and data. The document's first script (`src/shellBoot.ts`) puts the page's chunks and,
 * with a session in the browser, the session check and the page's data on the wire at once; the
 * application then takes those answers instead of asking again. Checked by holding the application's
 * entry script: before it has run, the page's own chunk and its API calls must already have been sent
 * (on the old build nothing was, until the entry had run and rendered "Verificando acceso"), and the
 * page shows the app's wait, not a blank screen.
 */
import type { Browser, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCustomer, uniqueName } from './api';
import { launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-arranque-e2e';
let browser: Browser;
let username: string;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  username = uniqueName('arranque');
  await registerCustomer(baseUrl, username, PASSWORD);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function rememberedTokens(): Promise<{ access: string; refresh: string }> {
  const res = await fetch(`${baseUrl}/api/client/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
    body: JSON.stringify({ username, password: PASSWORD, remember: true }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { access: string; refresh: string };
}

describe('dashboard boot', () => {
  it.each([
    [
      '/dashboard/home',
      /\/assets\/Home-[\w-]+\.js$/,
      [
        '/api/client/verify-token',
        '/api/client/advertisements',
        '/api/client/agent',
        '/api/client/accounts/peers',
      ],
      'Hola, ',
    ],
    [
      '/dashboard/peers',
      /\/assets\/Peers-[\w-]+\.js$/,
      ['/api/client/verify-token', '/api/client/accounts/peers'],
      'Peers Wireguard',
    ],
  ])(
    '%s asks for its chunk and its data before the application has run',
    async (path, chunk, apis, shown) => {
      const tokens = await rememberedTokens();
      const context = await browser.newContext({ baseURL: baseUrl, locale: 'es-ES' });
      try {
        await context.addInitScript((t) => {
          localStorage.setItem('access', t.access);
          localStorage.setItem('refresh', t.refresh);
        }, tokens);
        const page = await context.newPage();
        page.on('pageerror', (error) => pageErrors.push(error.message));
        const requested: string[] = [];
        page.on('request', (request) => requested.push(new URL(request.url()).pathname));

        // The entry script is held until the test lets it go.
        let release!: () => void;
        const released = new Promise<void>((r) => (release = r));
        let entryHeld = false;
        await page.route(/\/assets\/index-[\w-]+\.js$/, async (route: Route) => {
          entryHeld = true;
          await released;
          await route.continue();
        });

        await page.goto(path, { waitUntil: 'commit' });
        await expect.poll(() => entryHeld).toBe(true);
        // While the entry has not even arrived: the page's chunk and every call of its first view.
        await expect.poll(() => requested.some((p) => chunk.test(p)), { timeout: 15_000 }).toBe(true);
        for (const api of apis)
          await expect.poll(() => requested.includes(api), { timeout: 15_000 }).toBe(true);
        // Not a blank page meanwhile: the app's wait, drawn by the document itself.
        await page.getByRole('status').filter({ hasText: 'Cargando información...' }).waitFor();

        release();
        await page
          .getByText(shown === 'Hola, ' ? `Hola, ${username}` : shown)
          .first()
          .waitFor();
        // The application took those answers: each call went to the server once. (Not the peer list:
        // the push socket reads it again once the server has accepted it, `catchUp` in
        // `api/realtime.ts`, whenever that comes.)
        for (const api of apis.filter((a) => a !== '/api/client/accounts/peers'))
          expect(
            requested.filter((p) => p === api),
            api,
          ).toHaveLength(1);
      } finally {
        await context.close();
      }
    },
  );
});
