/**
 * Issue 32, point 8: on a pre-rendered page the first tap works, also before the application has
 * arrived (it loads at the first interaction, `src/boot.ts`). Here the application's entry is held
 * at the network until the test lets it through, so "before the app" is certain, not a race: the
 * menu and "Mostrar contraseña" act at once (the page serves them itself), and a button that needs
 * the app is tapped again, once, when it arrives.
 */
import type { Browser, BrowserContext, Page, Route } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
/** Uncaught errors of every page, asserted empty after each test. */
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

/** A phone (390 × 844, touch) whose requests for `held` wait at the network until `release()`. */
async function phoneHolding(
  held: RegExp,
): Promise<{ context: BrowserContext; page: Page; release: () => void }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const waiting: Route[] = [];
  let released = false;
  await context.route(held, async (route) => {
    if (released) await route.continue();
    else waiting.push(route);
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const release = () => {
    released = true;
    for (const route of waiting.splice(0)) void route.continue();
  };
  return { context, page, release };
}

/** The application entry (`/assets/index-….js`, what the boot script imports) held. */
const heldPhone = () => phoneHolding(/\/assets\/index-[^/]+\.js$/);

const hydrated = (page: Page) =>
  page.evaluate(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);

describe('the first tap on a pre-rendered page', () => {
  for (const path of ['/', '/plans']) {
    it(`opens the menu on ${path} before the application has arrived`, async () => {
      const { context, page, release } = await heldPhone();
      await page.goto(path);
      const menu = page.getByRole('navigation', { name: 'Navegación principal' });
      await page.getByRole('button', { name: 'Abrir menú' }).tap();
      await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor();
      expect(await hydrated(page)).toBe(false);
      expect(await page.getByRole('button', { name: 'Cerrar menú' }).getAttribute('aria-expanded')).toBe(
        'true',
      );
      // The application takes the page over as the visitor left it, and the menu still answers.
      release();
      await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);
      expect(await menu.getByRole('link', { name: 'Iniciar sesión' }).isVisible()).toBe(true);
      await page.getByRole('button', { name: 'Cerrar menú' }).tap();
      await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor({ state: 'hidden' });
      await page.getByRole('button', { name: 'Abrir menú' }).tap();
      await menu.getByRole('link', { name: 'Planes' }).tap();
      await page.waitForURL('**/plans');
      await context.close();
    });
  }

  for (const path of ['/login', '/register']) {
    it(`shows the password on ${path} at the first tap, before the application has arrived`, async () => {
      const { context, page, release } = await heldPhone();
      await page.goto(path);
      const password = page.getByLabel('Contraseña', { exact: true });
      await password.fill('mi-clave-secreta');
      await page.getByRole('button', { name: 'Mostrar contraseña' }).first().tap();
      expect(await password.getAttribute('type')).toBe('text');
      expect(await hydrated(page)).toBe(false);
      release();
      await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);
      expect(await password.getAttribute('type')).toBe('text');
      expect(await password.inputValue()).toBe('mi-clave-secreta');
      await password.fill('otra-clave-secreta');
      expect(await password.getAttribute('type')).toBe('text');
      await page.getByRole('button', { name: 'Ocultar contraseña' }).first().tap();
      expect(await password.getAttribute('type')).toBe('password');
      await context.close();
    });
  }
});

/**
 * The boot script (`/assets/boot-….js`, the page's one file of its own) held: "before the boot
 * script has arrived" is certain, not a race.
 */
const bootHeldPhone = () => phoneHolding(/\/assets\/boot-[^/]+\.js$/);

/** The taps the page's inline capture holds for the boot script (null once it has taken them). */
const keptTaps = (page: Page) =>
  page.evaluate(() => (window as { __vpnTaps?: Event[] | null }).__vpnTaps?.length ?? null);

describe('a tap before the boot script has arrived', () => {
  it('opens the menu on / once, when the boot script arrives', async () => {
    const { context, page, release } = await bootHeldPhone();
    // The document is there and painted; its module script (the boot) is not.
    await page.goto('/', { waitUntil: 'commit' });
    const open = page.getByRole('button', { name: 'Abrir menú' });
    await open.tap();
    expect(await keptTaps(page)).toBe(1);
    release();
    const menu = page.getByRole('navigation', { name: 'Navegación principal' });
    await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor();
    expect(await keptTaps(page)).toBeNull();
    // The tap also counts as using the page: the application comes, and finds the menu open
    // (served once: a second flip would have closed it).
    await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);
    expect(await page.getByRole('button', { name: 'Cerrar menú' }).getAttribute('aria-expanded')).toBe(
      'true',
    );
    expect(await menu.getByRole('link', { name: 'Iniciar sesión' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Cerrar menú' }).tap();
    await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor({ state: 'hidden' });
    await context.close();
  });

  it('shows the password on /login once, when the boot script arrives', async () => {
    const { context, page, release } = await bootHeldPhone();
    await page.goto('/login', { waitUntil: 'commit' });
    const password = page.getByLabel('Contraseña', { exact: true });
    await password.fill('mi-clave-secreta');
    await page.getByRole('button', { name: 'Mostrar contraseña' }).tap();
    expect(await keptTaps(page)).toBe(1);
    release();
    await page.getByRole('button', { name: 'Ocultar contraseña' }).waitFor();
    expect(await password.getAttribute('type')).toBe('text');
    await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true);
    expect(await password.getAttribute('type')).toBe('text');
    expect(await password.inputValue()).toBe('mi-clave-secreta');
    await page.getByRole('button', { name: 'Ocultar contraseña' }).tap();
    expect(await password.getAttribute('type')).toBe('password');
    await context.close();
  });
});

/**
 * The same on a slow mobile network instead of a held download (Chromium's own throttling: 400 kbit/s
 * down, 400 ms of latency, so the ~130 KiB application takes seconds): a tap once the page's own
 * small script has run (DOMContentLoaded) acts at once and counts once, neither lost nor applied
 * again when the application takes over. (A tap before that script itself has arrived is kept by
 * the page's inline capture: the tests above.)
 */
async function throttledPhone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 390, height: 844 },
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 400,
    downloadThroughput: (400 * 1024) / 8,
    uploadThroughput: (400 * 1024) / 8,
  });
  return { context, page };
}

describe('the first tap on a slow network', () => {
  it('opens the menu on / at the first tap and keeps it open once the application has arrived', async () => {
    const { context, page } = await throttledPhone();
    await page.goto('/', { waitUntil: 'domcontentloaded' });
    const open = page.getByRole('button', { name: 'Abrir menú' });
    await open.waitFor();
    await open.tap();
    const menu = page.getByRole('navigation', { name: 'Navegación principal' });
    await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor();
    // The tap came before the application: it is on its way, not here yet.
    expect(await hydrated(page)).toBe(false);
    await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true, null, {
      timeout: 60_000,
    });
    // Counted once: a replay would have closed it again.
    expect(await menu.getByRole('link', { name: 'Iniciar sesión' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Cerrar menú' }).tap();
    await menu.getByRole('link', { name: 'Iniciar sesión' }).waitFor({ state: 'hidden' });
    await context.close();
  });

  it('shows the password on /login at the first tap and keeps it shown once the application has arrived', async () => {
    const { context, page } = await throttledPhone();
    await page.goto('/login', { waitUntil: 'domcontentloaded' });
    const password = page.getByLabel('Contraseña', { exact: true });
    await password.waitFor();
    await page.getByRole('button', { name: 'Mostrar contraseña' }).first().tap();
    expect(await password.getAttribute('type')).toBe('text');
    expect(await hydrated(page)).toBe(false);
    await page.waitForFunction(() => (window as { __vpnHydrated?: boolean }).__vpnHydrated === true, null, {
      timeout: 60_000,
    });
    expect(await password.getAttribute('type')).toBe('text');
    await page.getByRole('button', { name: 'Ocultar contraseña' }).first().tap();
    expect(await password.getAttribute('type')).toBe('password');
    await context.close();
  });
});
