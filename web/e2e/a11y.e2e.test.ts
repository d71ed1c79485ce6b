/**
 * axe-core on every customer page state (issue 32, point 12): each state is reached as a customer
 * would (a phone at 390 px, Spanish), then checked with `expectAccessible` (no serious or critical
 * violation). Console pages are checked by their own journeys with the same helper (`axe.ts`).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCustomer, uniqueName } from './api';
import { expectAccessible } from './axe';
import { launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-a11y-e2e';
let browser: Browser;
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

async function phone(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    viewport: { width: 390, height: 844 },
    locale: 'es-ES',
    isMobile: true,
    hasTouch: true,
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

async function signIn(page: Page, username: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/dashboard/home');
}

describe('axe-core: customer pages at 390 px', () => {
  it('public pages: landing, plans, login, register', async () => {
    const page = await phone();
    await page.goto('/');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(page, 'inicio público');
    await page.goto('/plans');
    await page.getByRole('article').first().waitFor();
    await expectAccessible(page, 'planes públicos');
    await page.goto('/login');
    await page.getByRole('button', { name: 'Iniciar sesión' }).waitFor();
    await expectAccessible(page, 'login');
    await page.goto('/register');
    await page.getByRole('button', { name: 'Registrarse' }).waitFor();
    await expectAccessible(page, 'registro');
    await page.context().close();
  });

  it('a new customer: Home without peers, Configuración', async () => {
    const username = uniqueName('axe');
    await registerCustomer(baseUrl, username, PASSWORD);
    const page = await phone();
    await signIn(page, username);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(page, 'Home sin peers');
    await page.goto('/dashboard/settings');
    await page.getByRole('heading', { name: 'Configuración de cuenta' }).waitFor();
    await expectAccessible(page, 'Configuración');
    await page.context().close();
  });
});
