/**
 * Public gating against the real control plane (spec "Public gating"), switched by a manager through
 * `PATCH /api/admin/settings`: maintenance sends every page to /maintenance and leaving works once it
 * is over; with the landing off, visitors go to /login. Each test puts the switches back.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
let manager: ManagerApi;
const pageErrors: string[] = [];

/** The server caches the site settings for one second. */
const settle = () => new Promise((r) => setTimeout(r, 1200));

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
});

afterAll(async () => {
  await manager?.settings({ maintenance: false, show_landing: true });
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl, locale: 'es-ES' });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

const pathOf = (page: Page) => new URL(page.url()).pathname;

/**
 * Goes to `path` inside the running SPA (history entry + popstate, as React Router sees a link or
 * the back button). Used for `/`: a direct load of `/` currently gets a 403 from the control plane
 * (its static-file handler is registered with `index: false`), reported to the server side; every
 * other path loads directly.
 */
async function spaNavigate(page: Page, path: string) {
  await page.evaluate((to) => {
    window.history.pushState(null, '', to);
    window.dispatchEvent(new PopStateEvent('popstate'));
  }, path);
}

describe('public gating', () => {
  it('sends / and /login to /maintenance while maintenance is on, and lets visitors out after', async () => {
    const page = await newPage();
    try {
      await manager.settings({ maintenance: true });
      await settle();

      await page.goto('/login');
      await page.getByRole('heading', { name: 'Servicio en Mantenimiento' }).waitFor();
      expect(pathOf(page)).toBe('/maintenance');

      await page.getByRole('link', { name: 'Volver al inicio' }).waitFor();
      await spaNavigate(page, '/');
      await expect.poll(() => pathOf(page)).toBe('/maintenance');
      await page.getByRole('heading', { name: 'Servicio en Mantenimiento' }).waitFor();
      expect(await page.title()).toBe('VPN Service - Servicio en Mantenimiento');

      await page.goto('/plans');
      await page.getByRole('heading', { name: 'Servicio en Mantenimiento' }).waitFor();
      expect(pathOf(page)).toBe('/maintenance');

      await manager.settings({ maintenance: false });
      await settle();
      // Maintenance off: opening /maintenance now sends visitors to / (issue 8, point 7).
      await page.goto('/maintenance');
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await page.title()).toBe('VPN Service - Bienvenido');

      await page.goto('/login');
      await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();
      expect(pathOf(page)).toBe('/login');
    } finally {
      await manager.settings({ maintenance: false });
      await page.context().close();
    }
  });

  it('sends visitors to /login when the landing is off', async () => {
    const page = await newPage();
    try {
      await manager.settings({ show_landing: false });
      await settle();
      await page.goto('/login');
      await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();
      expect(await page.getByRole('link', { name: 'Volver al inicio' }).count()).toBe(0);
      await spaNavigate(page, '/');
      await expect.poll(() => pathOf(page)).toBe('/login');
      await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();

      await page.goto('/plans');
      await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();
      expect(pathOf(page)).toBe('/login');

      await manager.settings({ show_landing: true });
      await settle();
      await page.goto('/login');
      await page.getByRole('link', { name: 'Volver al inicio' }).click();
      await page.waitForURL((url) => url.pathname === '/');
      await page.getByRole('heading', { level: 1 }).waitFor();
      expect(await page.title()).toBe('VPN Service - Bienvenido');
    } finally {
      await manager.settings({ show_landing: true });
      await page.context().close();
    }
  });
});
