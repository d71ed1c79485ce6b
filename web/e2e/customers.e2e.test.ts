/**
 * Clientes and Facturas in Chromium against the real control plane:
 * 1. a manager finds a customer by typing their username, disables them with a reason, and the
 *    customer's login is refused with the Spanish message (their open session ends too);
 * 2. a manager marks a customer's unpaid invoice paid, and the new peer appears live on the
 *    customer's Peers page, open in another browser context, without a reload.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlanId, registerCustomer, uniqueName } from './api';
import type { AgentHandle } from './api';
import { ADMIN_PASSWORD, launchChromium, openPage, signInManager } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-clientes-e2e';
let browser: Browser;
let agent: AgentHandle | null = null;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  // A new peer needs an active server to live on (the e2e server starts without one).
  const manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  const tag = Date.now().toString(36);
  // A new peer is sold only where an agent answers: a stand-in agent keeps this server online.
  const created = await (
    await manager.confirmed(ADMIN_PASSWORD)
  ).createServer({
    name: `Oporto ${tag}`,
    endpoint: `opo-${tag}.vpn.example.com:51840`,
    ubication: 'Oporto, Portugal',
  });
  agent = await connectAgent(baseUrl, created.agent_token);
});
afterAll(async () => {
  await agent?.close();
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

const newPage = () => openPage(browser, baseUrl, pageErrors);
const managerPage = async () => signInManager(await newPage());

async function customerLogin(page: Page, username: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
}

const nav = (page: Page) => page.getByRole('navigation', { name: 'Secciones de administración' });

describe('Clientes', () => {
  it('finds a customer by typing their username, disables them, and their login is refused', async () => {
    const username = uniqueName('baja');
    await registerCustomer(baseUrl, username, PASSWORD);
    // The customer is signed in before the manager acts.
    const customer = await newPage();
    await customerLogin(customer, username);
    await customer.waitForURL('**/dashboard/home');

    const page = await managerPage();
    await nav(page).getByRole('link', { name: 'Clientes' }).click();
    await page.getByRole('heading', { name: 'Clientes', level: 1 }).waitFor();
    await page.getByRole('searchbox', { name: 'Buscar clientes' }).fill(username);
    await page.waitForURL(`**/manager/dashboard/customers?q=${username}`);
    const table = page.getByRole('table', { name: 'Clientes' });
    await expect.poll(() => table.getByRole('row').count()).toBe(2); // the header and the customer
    await table.getByRole('row', { name: new RegExp(username) }).click();
    await page.getByRole('heading', { name: username, level: 1 }).waitFor();

    await page.getByRole('button', { name: 'Deshabilitar' }).click();
    const dialog = page.getByRole('dialog', { name: `Deshabilitar a ${username}` });
    await dialog.getByLabel('Motivo').fill('Contracargo en la pasarela');
    await dialog.getByRole('button', { name: 'Deshabilitar' }).click();
    await page.getByText(/^Esta cuenta está deshabilitada/).waitFor();
    await page.getByRole('button', { name: 'Habilitar' }).waitFor();

    // Their open session is refused at once: the next call sends them to the login page.
    await customer.reload();
    await customer.waitForURL('**/login');

    const stranger = await newPage();
    await customerLogin(stranger, username);
    await stranger.getByRole('alert').filter({ hasText: 'Tu cuenta está deshabilitada' }).waitFor();
    expect(await stranger.getByRole('alert').first().textContent()).toContain(
      'Tu cuenta está deshabilitada. Contacta con soporte.',
    );
    expect(new URL(stranger.url()).pathname).toBe('/login');
  });
});

describe('Facturas', () => {
  it('marks an unpaid invoice paid and the customer sees the new peer appear live', async () => {
    const username = uniqueName('transfer');
    await registerCustomer(baseUrl, username, PASSWORD);
    const customer = await newPage();
    await customerLogin(customer, username);
    await customer.waitForURL('**/dashboard/home');
    await customer.getByRole('link', { name: 'Peers', exact: true }).click();
    await customer.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();

    // The customer starts a purchase and never pays at the gateway (they paid by bank transfer).
    const access = await customer.evaluate(
      () => localStorage.getItem('access') ?? sessionStorage.getItem('access'),
    );
    const res = await fetch(`${baseUrl}/api/client/invoices`, {
      method: 'PUT',
      headers: {
        'Content-Type': 'application/json',
        'X-Requested-With': 'XMLHttpRequest',
        Authorization: `Bearer ${access}`,
      },
      body: JSON.stringify({
        operation: 'new_peer',
        peer: 'transferencia',
        plan: await firstPlanId(baseUrl),
      }),
    });
    expect(res.status).toBe(200);
    expect(await customer.getByRole('rowheader', { name: /^transferencia/ }).count()).toBe(0);

    const page = await managerPage();
    await nav(page).getByRole('link', { name: 'Facturas' }).click();
    await page.getByRole('heading', { name: 'Facturas', level: 1 }).waitFor();
    await page.getByRole('searchbox', { name: 'Buscar facturas' }).fill(username);
    const table = page.getByRole('table', { name: 'Facturas' });
    const row = table.getByRole('row', { name: new RegExp(username) });
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.textContent()).toContain('Pendiente');
    await row.click();

    await page.getByRole('button', { name: 'Marcar como pagada' }).click();
    const dialog = page.getByRole('dialog', { name: 'Marcar como pagada' });
    await dialog.getByLabel('Motivo').fill('Transferencia BANDEC ref. 98765');
    await dialog.getByRole('button', { name: 'Marcar como pagada' }).click();
    await page.getByText('Factura marcada como pagada').waitFor();
    await page.getByText('Transferencia BANDEC ref. 98765').waitFor();

    // Live: the customer's open Peers page shows the new peer without a reload.
    await customer.getByRole('rowheader', { name: /^transferencia/ }).waitFor({ timeout: 10_000 });
  });
});
