import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
/** Uncaught errors of every page, asserted empty after each journey. */
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

async function newPage(width = 1280, height = 900): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width, height },
    locale: 'es-ES',
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

/** Registers through the real form, solving the real ALTCHA proof of work. */
async function register(page: Page, username: string, password: string) {
  await page.goto('/register');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  await page.getByLabel('Confirmar contraseña').fill(password);
  // The captcha solves itself (ALTCHA's automatic mode, issue 32): nothing to tick.
  await page.getByText('Verificado', { exact: true }).waitFor({ timeout: 30_000 });
  await page.getByRole('button', { name: 'Registrarse' }).click();
  await page.getByRole('heading', { name: 'Registro Completado' }).waitFor();
}

async function login(page: Page, username: string, password: string, remember: boolean) {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  if (remember) await page.getByLabel('Recordarme').check();
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
}

const uniqueName = (prefix: string) =>
  `${prefix}${Date.now().toString(36)}${Math.floor(Math.random() * 1000)}`;

describe('customer journeys', () => {
  it('landing → plans → register (real captcha) → login → dashboard → logout', async () => {
    const page = await newPage();
    await page.goto('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    expect(await page.title()).toBe('VPN Service - Bienvenido');

    await page.getByRole('link', { name: 'Ver planes' }).first().click();
    await page.getByRole('article').first().waitFor();
    expect(await page.title()).toBe('VPN Service - Planes');
    expect(await page.getByRole('article').count()).toBeGreaterThan(0);
    expect(await page.getByText(/^\d+,\d{2}\sUS\$$/).count()).toBeGreaterThan(0);

    const username = uniqueName('ana');
    await register(page, username, 'secreto-e2e-1');
    await page.getByRole('link', { name: 'Ir a iniciar sesión' }).click();
    await page.waitForURL('**/login');

    await login(page, username, 'secreto-e2e-1', true);
    await page.getByRole('button', { name: `Hola, ${username}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/dashboard/home');
    expect(await page.title()).toBe('VPN Service - Dashboard');

    await page.getByRole('button', { name: `Hola, ${username}` }).click();
    await page.getByRole('menuitem', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/login');
    expect(
      await page.evaluate(() => [localStorage.getItem('access'), localStorage.getItem('refresh')]),
    ).toEqual([null, null]);
    await page.context().close();
  });

  it('shows the server message in the red box for a wrong password', async () => {
    const page = await newPage();
    await login(page, 'nadie-' + Date.now(), 'incorrecta', false);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.trim()).toBeTruthy();
    expect(new URL(page.url()).pathname).toBe('/login');
    await page.context().close();
  });

  it('heals an expired access token with one refresh and keeps the rotated refresh token', async () => {
    const page = await newPage();
    const username = uniqueName('beto');
    await register(page, username, 'secreto-e2e-2');
    await login(page, username, 'secreto-e2e-2', true);
    await page.getByRole('button', { name: `Hola, ${username}` }).waitFor();
    const before = await page.evaluate(() => localStorage.getItem('refresh'));

    await page.evaluate(() => localStorage.setItem('access', 'token-caducado'));
    await page.goto('/dashboard/peers');
    await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    const after = await page.evaluate(() => [
      localStorage.getItem('access'),
      localStorage.getItem('refresh'),
    ]);
    expect(after[0]).not.toBe('token-caducado');
    expect(after[1]).not.toBe(before);
    await page.context().close();
  });

  it('collapses the dashboard navigation into a menu on a phone', async () => {
    const page = await newPage(390, 844);
    const username = uniqueName('caro');
    await register(page, username, 'secreto-e2e-3');
    await login(page, username, 'secreto-e2e-3', false);
    const toggle = page.getByRole('button', { name: 'Abrir menú' });
    await toggle.waitFor();
    expect(await page.getByRole('link', { name: 'Ayuda' }).isVisible()).toBe(false);
    await toggle.click();
    await page.getByRole('link', { name: 'Ayuda' }).click();
    await page.getByRole('heading', { name: 'Centro de ayuda' }).waitFor();
    await page.context().close();
  });

  it("answers unknown paths with 'Página no encontrada'", async () => {
    const page = await newPage();
    await page.goto('/esto-no-existe');
    await page.getByRole('heading', { name: 'Página no encontrada' }).waitFor();
    await page.getByRole('link', { name: 'Volver al inicio de sesión' }).click();
    await page.waitForURL('**/login');
    await page.context().close();
  });
});

describe('manager journey', () => {
  it('logs in at /manager/login, sees the panel and logs out', async () => {
    const page = await newPage();
    await page.goto('/manager/login');
    await page.getByLabel('Usuario').fill('admin');
    await page.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.getByRole('heading', { name: 'Panel de administración' }).waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('manager_access'))).toBeTruthy();
    expect(await page.evaluate(() => sessionStorage.getItem('access'))).toBeNull();
    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/manager/login');
    await page.context().close();
  });
});
