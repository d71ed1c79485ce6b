import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';

export const ADMIN_PASSWORD = 'clave-de-gestor-e2e';

/** Debian's Chromium (no browser download). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The flags docs/architecture.md asks for; also bench/lighthouse.ts's. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Debian's Chromium, headless, with the flags the architecture asks for. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_FLAGS });
}

/**
 * A desktop page in a new context of `browser` on the e2e server, in Spanish; its uncaught errors
 * are pushed to `errors` (journeys assert it stays empty).
 */
export async function openPage(browser: Browser, baseUrl: string, errors: string[]): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 900 },
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(error.message));
  return page;
}

/** Signs the first manager (`admin`) in through /manager/login and waits for the console. */
export async function signInManager(page: Page): Promise<Page> {
  await page.goto('/manager/login');
  await page.getByLabel('Usuario').fill('admin');
  await page.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/manager/dashboard');
  return page;
}
