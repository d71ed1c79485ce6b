/**
 * Buying a plan in Chromium against the real control plane, paid through the built-in sandbox
 * gateway (`PAYMENTS_SANDBOX=true` in `global-setup.ts`): the customer selects a plan, chooses 'Peer
 * nuevo', proceeds to payment, pays in the gateway window that opens, lands on the payment result with
 * the invoice's plan, peer and amount, and then finds the new peer on the Peers page.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlan, registerCustomer, uniqueName } from './api';
import type { AgentHandle } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-compra-e2e';

let browser: Browser;
let agent: AgentHandle | null = null;
let manager: ManagerApi;
let username: string;
let plan: { id: number; name: string; price: number };
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  const tag = Date.now().toString(36);
  // A new peer needs a server to live on.
  // A new peer is sold only where an agent answers: a stand-in agent keeps this server online.
  const created = await (
    await manager.confirmed(ADMIN_PASSWORD)
  ).createServer({
    name: `Lisboa ${tag}`,
    endpoint: `lis-${tag}.vpn.example.com:51830`,
    ubication: 'Lisboa, Portugal',
  });
  agent = await connectAgent(baseUrl, created.agent_token);
  username = uniqueName('compra');
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

async function signedIn(): Promise<{ context: BrowserContext; page: Page }> {
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
  return { context, page };
}

describe('Purchase (sandbox gateway)', () => {
  it('buys a plan for a new peer, pays in the gateway window and finds the new peer', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Planes', exact: true }).click();
    const card = page.getByRole('article', { name: plan.name });
    await card.getByRole('button', { name: 'Seleccionar Plan' }).click();

    const dialog = page.getByRole('dialog', { name: `Adquirir el plan ${plan.name}` });
    // A fresh customer has no peers: the new peer is the default, and a name is required.
    await expect.poll(() => dialog.getByRole('radio', { name: 'Peer nuevo' }).isChecked()).toBe(true);
    await dialog.getByRole('button', { name: 'Proceder al Pago' }).click();
    await dialog
      .getByText('Por favor, seleccione un peer existente o ingrese un nombre para el nuevo peer')
      .waitFor();
    await dialog.getByLabel('Nombre del nuevo peer').fill('tablet');

    const [gateway] = await Promise.all([
      context.waitForEvent('page'),
      dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
    ]);
    gateway.on('pageerror', (error) => pageErrors.push(error.message));
    await gateway.waitForLoadState();
    expect(new URL(gateway.url()).pathname).toMatch(/^\/api\/payments\/sandbox\//);
    await gateway.getByRole('heading', { name: 'Pasarela de prueba' }).waitFor();
    await page.getByRole('link', { name: /Abrir la pasarela de pago/ }).waitFor();

    await gateway.getByRole('button', { name: 'Pagar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    const result = new URL(gateway.url());
    expect(result.searchParams.get('status')).toBe('success');
    await gateway.getByRole('heading', { name: 'Pago completado' }).waitFor();
    const details = gateway.getByRole('region', { name: 'Detalles de la factura' });
    await details.waitFor();
    const text = await details.textContent();
    expect(text).toContain(plan.name);
    expect(text).toContain('tablet');
    expect(text).toContain(`${plan.price.toFixed(2).replace('.', ',')}\u00a0US$`);
    expect(text).toContain(result.searchParams.get('transaction_uuid')!);
    await gateway.getByText('Plan acreditado: ya puedes usarlo desde la sección Peers.').waitFor();

    // Issue 32: from the payment's result to the QR on screen, counting the taps.
    let taps = 0;
    const tap = async (locator: ReturnType<Page['getByRole']>) => {
      taps++;
      await locator.click();
    };
    await gateway.getByRole('link', { name: 'Volver al inicio' }).waitFor();
    await tap(gateway.getByRole('button', { name: 'Instalar tablet en este dispositivo' }));
    const qr = gateway.getByRole('img', { name: 'Código QR de la configuración del peer tablet' });
    await qr.waitFor();
    expect(Number(await qr.getAttribute('data-modules'))).toBeGreaterThanOrEqual(21);
    await gateway.getByRole('button', { name: 'Descargar la configuración del peer tablet' }).waitFor();
    expect(taps).toBeLessThanOrEqual(2);

    // The first tab followed the invoice on its own: the same peer, ready, no reload.
    await page.getByRole('heading', { name: 'Tu peer tablet está listo' }).waitFor();
    await page.getByRole('button', { name: 'Instalar tablet en este dispositivo' }).click();
    await page.getByRole('img', { name: 'Código QR de la configuración del peer tablet' }).waitFor();

    await page.getByRole('link', { name: 'Peers', exact: true }).click();
    await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    await page.getByRole('rowheader', { name: 'tablet' }).waitFor();
    await context.close();
  });

  it('canceling in the gateway shows the canceled result', async () => {
    const { context, page } = await signedIn();
    await page.getByRole('link', { name: 'Planes', exact: true }).click();
    await page
      .getByRole('article', { name: plan.name })
      .getByRole('button', { name: 'Seleccionar Plan' })
      .click();
    const dialog = page.getByRole('dialog', { name: `Adquirir el plan ${plan.name}` });
    // 'tablet' is now an eligible peer: choose a new one explicitly.
    await dialog.getByRole('combobox', { name: 'Peer' }).waitFor();
    await dialog.getByRole('radio', { name: 'Peer nuevo' }).check();
    await dialog.getByLabel('Nombre del nuevo peer').fill('router');
    const [gateway] = await Promise.all([
      context.waitForEvent('page'),
      dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
    ]);
    gateway.on('pageerror', (error) => pageErrors.push(error.message));
    await gateway.getByRole('button', { name: 'Cancelar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await gateway.getByRole('heading', { name: 'Pago cancelado' }).waitFor();
    expect(await gateway.getByRole('region', { name: 'Detalles de la factura' }).textContent()).toContain(
      'router',
    );
    await context.close();
  });
  it('with no server whose agent answers, the purchase says so before payment and opens no gateway', async () => {
    await agent?.close();
    agent = null;
    // The control plane notices the closed socket on its own: wait until no server counts as online.
    await expect
      .poll(async () => {
        const list = await manager.request<{ results: { agent_online: boolean }[] }>(
          'GET',
          '/api/admin/servers?page_size=100',
        );
        return list.results.some((s) => s.agent_online);
      })
      .toBe(false);
    const { context, page } = await signedIn();
    try {
      await page.getByRole('link', { name: 'Planes', exact: true }).click();
      await page
        .getByRole('article', { name: plan.name })
        .getByRole('button', { name: 'Seleccionar Plan' })
        .click();
      const dialog = page.getByRole('dialog', { name: `Adquirir el plan ${plan.name}` });
      await dialog.getByText(/Ahora mismo ningún servidor puede recibir un peer nuevo/).waitFor();
      expect(await dialog.getByRole('radio', { name: 'Peer nuevo' }).isDisabled()).toBe(true);
      expect(context.pages()).toHaveLength(1);
    } finally {
      await context.close();
    }
  });
});
