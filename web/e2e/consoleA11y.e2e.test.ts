/**
 * axe-core on every page of the manager console (issue 34), as an owner at 1280 × 800 on the demo
 * data: each section with its list loaded, a server's install-command dialog (its scrollable
 * command box must be reachable by keyboard: `scrollable-region-focusable`), and Seguridad. None
 * may have a serious or critical violation (`expectAccessible`, e2e/axe.ts).
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { expectAccessible } from './axe';
import { ADMIN_PASSWORD, launchChromium, signInManager } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 800 },
  });
  page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInManager(page);
});
afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

/** Each section, and what shows that its page has loaded. */
const PAGES: [string, string, string][] = [
  ['Resumen', '/manager/dashboard', 'Estado de los nodos'],
  ['Clientes', '/manager/dashboard/customers', 'Clientes'],
  ['Peers', '/manager/dashboard/peers', 'Peers'],
  ['Acciones masivas', '/manager/dashboard/peers/bulk', 'Acciones masivas'],
  ['Servidores', '/manager/dashboard/servers', 'Servidores'],
  ['Planes', '/manager/dashboard/plans', 'Planes'],
  ['Facturas', '/manager/dashboard/invoices', 'Facturas'],
  ['Salas', '/manager/dashboard/partys', 'Salas'],
  ['Contenido', '/manager/dashboard/content', 'Contenido'],
  ['Ajustes', '/manager/dashboard/settings', 'Ajustes'],
  ['Gestores', '/manager/dashboard/managers', 'Gestores'],
  ['Auditoría', '/manager/dashboard/audit', 'Auditoría'],
  ['Seguridad', '/manager/dashboard/security', 'Seguridad'],
];

describe('console accessibility', () => {
  for (const [name, path, heading] of PAGES)
    it(`${name}: no serious or critical axe violation`, async () => {
      await page.goto(path);
      await page.getByRole('heading', { name: heading, exact: true }).first().waitFor();
      // Lists load after the heading: wait for the network to settle and spinners to go.
      await page.waitForLoadState('networkidle');
      await expect
        .poll(() =>
          page
            .getByRole('status')
            .filter({ hasText: /Cargando/ })
            .count(),
        )
        .toBe(0);
      await expectAccessible(page, name);
    });

  it("a new server's install command: the scrollable box is reachable by keyboard", async () => {
    await page.goto('/manager/dashboard/servers');
    await page.getByRole('button', { name: 'Nuevo servidor' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Nombre').fill(`Axe ${Date.now() % 100000}`);
    await dialog.getByLabel('Endpoint (host:puerto)').fill(`axe${Date.now() % 100000}.vpn.example:51820`);
    await dialog.getByLabel('Ubicación').fill('Lab');
    await dialog.getByRole('button', { name: 'Crear servidor' }).click();
    const box = page.getByRole('region', { name: 'Comando de instalación' });
    // Adding a server may ask for the password again first (X-Reauth).
    const reauth = page.getByRole('dialog', { name: 'Confirme que es usted' });
    await Promise.race([box.waitFor(), reauth.waitFor()]);
    if (await reauth.isVisible()) {
      await reauth.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
      await reauth.getByRole('button', { name: 'Confirmar' }).click();
    }
    await box.waitFor();
    expect(await box.getAttribute('tabindex')).toBe('0');
    await expectAccessible(page, 'comando de instalación');
  });
});
