/**
 * Renewing from the dashboard home (issue 9) in Chromium against the real control plane: a peer the
 * customer bought expires in 2 days, the home's banner lists it, 'Renovar' opens the purchase dialog
 * with that peer selected, the customer pays in the sandbox gateway, and the home then no longer
 * lists the peer.
 */
import type { Browser, Page } from 'playwright-core';
import type { Peer } from '@vpn/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlan, registerCustomer, uniqueName } from './api';
import type { AgentHandle } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-renovar-e2e';
const DAY = 24 * 3_600_000;

let browser: Browser;
let agent: AgentHandle | null = null;
let manager: ManagerApi;
let username: string;
let plan: { id: number; name: string };
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  const tag = Date.now().toString(36);
  // A new peer is sold only where an agent answers: a stand-in agent keeps this server online.
  const created = await (
    await manager.confirmed(ADMIN_PASSWORD)
  ).createServer({
    name: `Oporto ${tag}`,
    endpoint: `opo-${tag}.vpn.example.com:51831`,
    ubication: 'Oporto, Portugal',
  });
  agent = await connectAgent(baseUrl, created.agent_token);
  username = uniqueName('renueva');
  await registerCustomer(baseUrl, username, PASSWORD);
  plan = await firstPlan(baseUrl);
});

afterAll(async () => {
  await agent?.close();
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

/** Pays in the sandbox window a click on 'Proceder al Pago' opens. */
async function payInGateway(page: Page, dialog: ReturnType<Page['getByRole']>) {
  const [gateway] = await Promise.all([
    page.context().waitForEvent('page'),
    dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
  ]);
  gateway.on('pageerror', (error) => pageErrors.push(error.message));
  await gateway.getByRole('button', { name: 'Pagar' }).click();
  await gateway.waitForURL('**/dashboard/payment?**');
  await gateway.getByRole('heading', { name: 'Pago completado' }).waitFor();
  await gateway.close();
}

describe('Renewal from the dashboard home', () => {
  it('lists a peer expiring in 2 days; Renovar pays its renewal and the banner goes away', async () => {
    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/login');
    await page.getByLabel('Usuario').fill(username);
    await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
    // Remembered: the gateway window (opened without an opener) shares localStorage, not sessionStorage.
    await page.getByLabel('Recordarme').check();
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/dashboard/home');

    // A peer bought through the gateway (one paid manually is renewed through support).
    await page.getByRole('link', { name: 'Planes', exact: true }).click();
    await page
      .getByRole('article', { name: plan.name })
      .getByRole('button', { name: 'Seleccionar Plan' })
      .click();
    const buy = page.getByRole('dialog', { name: `Adquirir el plan ${plan.name}` });
    await buy.getByLabel('Nombre del nuevo peer').fill('movil');
    await payInGateway(page, buy);

    const peers = await page.evaluate(async () => {
      const res = await fetch('/api/client/accounts/peers', {
        headers: { authorization: `Bearer ${localStorage.getItem('access') ?? ''}` },
      });
      return (await res.json()) as Peer[];
    });
    const movil = peers.find((p) => p.name === 'movil')!;
    await manager.updatePeer(movil.id, { expires_at: new Date(Date.now() + 2 * DAY).toISOString() });

    // The reminder mail's link: the dashboard home.
    await page.goto('/dashboard/home');
    const banner = page.getByRole('region', { name: 'Peers a punto de vencer' });
    await banner.getByText('movil').waitFor();
    await banner.getByRole('button', { name: 'Renovar movil' }).click();
    const renew = page.getByRole('dialog', { name: 'Renovar movil' });
    expect(await renew.getByRole('combobox', { name: 'Peer' }).inputValue()).toBe(String(movil.id));
    await expect.poll(() => renew.getByRole('combobox', { name: 'Plan' }).inputValue()).toBe(String(plan.id));
    await payInGateway(page, renew);

    // The home followed the invoice while the gateway tab paid it: the same peer, ready again.
    await page.getByRole('heading', { name: 'Tu peer movil está listo' }).waitFor();
    // Paid: the expiry moved 30 days on, and the home no longer lists the peer.
    const [listed] = await Promise.all([
      page.waitForResponse((r) => new URL(r.url()).pathname === '/api/client/accounts/peers'),
      page.reload(),
    ]);
    const renewed = ((await listed.json()) as Peer[]).find((p) => p.id === movil.id)!;
    expect(Date.parse(renewed.expiration_date!)).toBeGreaterThan(Date.now() + 20 * DAY);
    await page
      .getByRole('heading', { name: /^Bienvenido a / })
      .first()
      .waitFor();
    expect(await page.getByRole('region', { name: 'Peers a punto de vencer' }).count()).toBe(0);
    await context.close();
  });
});
