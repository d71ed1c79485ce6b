/**
 * Usage and data allowance (issue 9) in Chromium against the real control plane: a manager sells a
 * 1 MB plan, an agent (the real protocol over the agent websocket) reports 850 KB of the peer's
 * traffic, and the customer sees it: the home's 'Datos casi agotados' notice, and in the peer's
 * details the online state, the period's traffic, the 30-day chart and the allowance progress bar.
 */
import type { Browser } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, registerCustomer, uniqueName } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-de-uso-e2e';

/** What the test uses of the server tests' protocol agent (`server/test/protocolAgent.ts`). */
interface Agent {
  send(message: unknown): void;
  until(check: () => boolean, timeoutMs?: number): Promise<void>;
  readonly peers: Map<string, unknown>;
  close(): Promise<void>;
}

let browser: Browser;
let manager: ManagerApi;
let agent: Agent;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
});

afterAll(async () => {
  await agent?.close();
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

describe('usage the customer sees', () => {
  it('shows the traffic an agent reported: home notice, online dot, chart and the allowance bar', async () => {
    const tag = Date.now().toString(36);
    const plan = await manager.request<{ id: number }>('POST', '/api/admin/plans', {
      name: `Datos ${tag}`,
      description: 'Prueba de datos',
      price: '1.00',
      validity_days: 30,
      data_gb: 0.001,
      hidden: true,
    });
    const { server, agent_token } = await (
      await manager.confirmed(ADMIN_PASSWORD)
    ).createServer({
      name: `Uso ${tag}`,
      endpoint: `uso-${tag}.vpn.example.com:51840`,
      ubication: 'La Habana, Cuba',
    });
    const username = uniqueName('consumo');
    await registerCustomer(baseUrl, username, PASSWORD);
    const peer = await manager.grantPeer({ username, plan: plan.id, name: 'movil', server: server.id });
    const { public_key } = await manager.request<{ public_key: string }>(
      'GET',
      `/api/admin/peers/${peer.id}`,
    );

    agent = await connectAgent<Agent>(baseUrl, agent_token);
    await agent.until(() => agent.peers.has(public_key));
    // 300 KB up and 550 KB down (server side: rx is what the customer sent), a handshake just now.
    agent.send({
      type: 'stats',
      at: Date.now(),
      peers: [
        {
          public_key,
          rx_bytes: 300_000,
          tx_bytes: 550_000,
          latest_handshake: Math.floor(Date.now() / 1000),
          endpoint: '198.51.100.9:4500',
        },
      ],
    });

    // The server records a report as it arrives; wait until the manager's view of the peer counts
    // it, so the page is opened once, with nothing left to chance (a blind reload loop raced a
    // busy CI machine). A report that is never counted fails here, saying what was counted.
    let used = -1;
    for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
      const detail = await manager.request<{ usage: { period: { used: number } } }>(
        'GET',
        `/api/admin/peers/${peer.id}`,
      );
      used = detail.usage.period.used;
      if (used === 850_000) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(used, 'bytes counted against the allowance after the report').toBe(850_000);

    const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto('/login');
    await page.getByLabel('Usuario').fill(username);
    await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/dashboard/home');

    // Counted before the login: the home shows the notice on its first load.
    const notice = page.locator('section', {
      has: page.getByRole('heading', { name: 'Datos casi agotados' }),
    });
    await notice.waitFor();
    expect(await notice.textContent()).toContain('movil ha usado el 85 % de sus 1 MB');

    await page.getByRole('link', { name: 'Peers', exact: true }).click();
    await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    await page
      .locator('tr', { has: page.getByRole('rowheader', { name: 'movil' }) })
      .getByRole('button', { name: 'Acciones del peer movil' })
      .click();
    await page.getByRole('menuitem', { name: 'Detalles' }).click();
    const dialog = page.getByRole('dialog', { name: 'Detalles del peer movil' });
    await dialog.getByText('En línea').waitFor();
    const bar = dialog.getByRole('progressbar', { name: 'Datos del plan' });
    expect(await bar.getAttribute('aria-valuenow')).toBe('85');
    expect(await bar.getAttribute('aria-valuetext')).toBe('850 KB de 1 MB (85 %)');
    // Today's column of the 30-day chart carries the day's traffic (1024-based units there).
    const chart = dialog.getByRole('img', { name: /Gráfico del tráfico diario de los últimos 30 días/ });
    expect(await chart.getAttribute('aria-label')).toContain('830,1 KB en total');
    expect(await dialog.textContent()).toContain('Bajada 537,1 KB · Subida 293 KB');
    await context.close();
  });
});
