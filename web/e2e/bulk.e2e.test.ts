/**
 * Bulk actions in the console (issue 34), in Chromium at 1280 × 800, on the real control plane:
 * an operator filters the peers of one server, reads how many would change, extends them by 5 days
 * (a red confirmation naming the count), then moves them to another server, which asks for the
 * password again (X-Reauth) through the console's confirmation dialog. The API then shows every
 * expiry 5 days later and every peer on the new server; axe finds nothing serious on the screen.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { AdminPeer, Paged } from '@vpn/contracts';
import {
  ManagerApi,
  connectAgent,
  firstPlanId,
  registerCustomer,
  uniqueName,
  type AgentHandle,
  type CreatedServer,
} from './api';
import { expectAccessible } from './axe';
import { ADMIN_PASSWORD, launchChromium, signInManager } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
let page: Page;
let manager: ManagerApi;
let from: CreatedServer;
let to: CreatedServer;
const agents: AgentHandle[] = [];
const pageErrors: string[] = [];

const peersOn = (serverId: number) =>
  manager.request<Paged<AdminPeer>>('GET', `/api/admin/peers?server=${serverId}&page_size=100`);

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  const tag = Date.now().toString(36);
  const confirmed = await manager.confirmed(ADMIN_PASSWORD);
  from = await confirmed.createServer({
    name: `Miami ${tag}`,
    endpoint: `mia-${tag}.vpn.example.com:51820`,
    ubication: 'Miami',
  });
  to = await confirmed.createServer({
    name: `Madrid ${tag}`,
    endpoint: `mad-${tag}.vpn.example.com:51821`,
    ubication: 'Madrid',
  });
  agents.push(await connectAgent(baseUrl, from.agent_token), await connectAgent(baseUrl, to.agent_token));
  const plan = await firstPlanId(baseUrl);
  // Two customers, three peers on Miami: two for the first, one for the second.
  for (const [i, names] of [['movil', 'portatil'], ['router']].entries()) {
    const username = uniqueName(`masivo${i}`);
    await registerCustomer(baseUrl, username, 'Secreta123');
    for (const name of names) await manager.grantPeer({ username, plan, name, server: from.server.id });
  }
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
  for (const agent of agents) await agent.close();
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

/** Whether the element's background is a red (Tailwind writes oklch: a canvas turns it into RGB). */
const redBackground = (selector: ReturnType<Page['getByRole']>) =>
  selector.evaluate((node) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.fillStyle = getComputedStyle(node).backgroundColor;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return r! > g! + 40 && r! > b! + 40;
  });

describe('bulk actions', () => {
  it('extends a server’s peers by 5 days, then moves them with the password asked again', async () => {
    const before = (await peersOn(from.server.id)).results;
    expect(before).toHaveLength(3);

    // From Peers, the way to the screen.
    await page.goto('/manager/dashboard/peers');
    await page.getByRole('link', { name: 'Acciones masivas' }).click();
    await page.getByRole('heading', { name: 'Acciones masivas', exact: true }).waitFor();
    await page.getByLabel('Servidor', { exact: true }).selectOption({ label: from.server.name });
    await page.getByLabel('Acción').selectOption({ label: 'Ampliar el vencimiento' });
    await page.getByLabel('Días que se añaden').fill('5');
    const preview = page.getByRole('status').filter({ hasText: /Cambiarán|Ningún|Contando/ });
    await expect.poll(() => preview.textContent()).toBe('Cambiarán 3 peers.');
    await page.waitForLoadState('networkidle');
    await expectAccessible(page, 'Acciones masivas');

    await page.getByRole('button', { name: 'Aplicar…' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Confirmar la acción masiva' });
    const extend = confirm.getByRole('button', { name: 'Ampliar 5 días a 3 peers' });
    expect(await redBackground(extend)).toBe(true);
    await extend.click();
    await page.getByText('Hecho: 3 peers cambiados; 2 clientes avisados.').waitFor();
    const extended = (await peersOn(from.server.id)).results;
    for (const p of extended) {
      const old = before.find((b) => b.id === p.id)!;
      expect(Date.parse(p.expires_at!) - Date.parse(old.expires_at!)).toBe(5 * 86_400_000);
    }

    // Moving them: a move always asks for the password again.
    await page.getByLabel('Acción').selectOption({ label: 'Mover a otro servidor' });
    await page.getByLabel('Servidor de destino').selectOption({ label: to.server.name });
    await expect.poll(() => preview.textContent()).toBe('Cambiarán 3 peers.');
    await page.getByText('Por su tamaño se le pedirá su contraseña para confirmar.').waitFor();
    await page.getByRole('button', { name: 'Aplicar…' }).click();
    await confirm.getByRole('button', { name: `Mover 3 peers a ${to.server.name}` }).click();
    const reauth = page.getByRole('dialog', { name: 'Confirme que es usted' });
    await reauth.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
    await reauth.getByRole('button', { name: 'Confirmar' }).click();
    // The preview is read again once the move has answered: nothing left on Miami.
    await expect
      .poll(() => preview.textContent(), { timeout: 20_000 })
      .toBe('Ningún peer cambiaría con este filtro.');
    expect(await page.getByText('Hecho: 3 peers cambiados; 2 clientes avisados.').count()).toBeGreaterThan(0);
    expect((await peersOn(from.server.id)).results).toHaveLength(0);
    expect((await peersOn(to.server.id)).results.map((p) => p.id).sort((a, b) => a - b)).toEqual(
      before.map((p) => p.id).sort((a, b) => a - b),
    );
  });
});
