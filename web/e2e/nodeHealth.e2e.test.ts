/**
 * Node health on an open console (issue 34), in Chromium at 1280 × 800:
 * - a server's agent (a protocol-level stand-in speaking the real agent protocol over the real
 *   control plane) reports its health: Servidores shows its figures, pushed, without a reload;
 * - the agent goes away: within 10 s its row turns red, "Sin conexión desde hace …", and the
 *   switch next to it is no longer a green "Activo"; Resumen leads with it;
 * - axe finds nothing serious on either page.
 */
import { resolve } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi } from './api';
import { expectAccessible } from './axe';
import { ADMIN_PASSWORD, launchChromium, signInManager } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
const pageErrors: string[] = [];

/** What the test uses of the server tests' agent stand-in (`server/test/protocolAgent.ts`). */
interface ProtocolAgent {
  send(raw: unknown): void;
  close(): Promise<void>;
}

/**
 * The server tests' ProtocolAgent, imported at run time by absolute path (like the mailbox in
 * global-setup.ts): the file belongs to the server's tests, not to the web package.
 */
async function connectAgent(token: string): Promise<ProtocolAgent> {
  const file = resolve(import.meta.dirname, '../../server/test/protocolAgent.ts');
  const mod = (await import(/* @vite-ignore */ file)) as {
    ProtocolAgent: { connect(base: string, token: string): Promise<ProtocolAgent> };
  };
  return mod.ProtocolAgent.connect(baseUrl, token);
}

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  expect(pageErrors).toEqual([]);
});

async function console1280(path: string): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 800 },
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInManager(page);
  await page.goto(path);
  return page;
}

/**
 * Whether the element's text colour is a red (red well above green and blue). Tailwind writes
 * colours in oklch: a 1-pixel canvas turns whatever the style says into RGB.
 */
const reddish = (el: Locator) =>
  el.evaluate((node) => {
    const ctx = document.createElement('canvas').getContext('2d')!;
    ctx.fillStyle = getComputedStyle(node).color;
    ctx.fillRect(0, 0, 1, 1);
    const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
    return r! > g! + 40 && r! > b! + 40;
  });

describe('node health', () => {
  it('shows pushed figures, and an agent going away turns its server red within 10 s without a reload', async () => {
    const api = await (await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD)).confirmed(ADMIN_PASSWORD);
    const name = `Nodo ${Date.now() % 100000}`;
    const created = await api.createServer({
      name,
      endpoint: `nodo${Date.now() % 100000}.vpn.example:51820`,
      ubication: 'Miami',
    });
    const agent = await connectAgent(created.agent_token);

    const page = await console1280(`/manager/dashboard/servers?q=${encodeURIComponent(name)}`);
    const row = page.getByRole('row').filter({ hasText: name });
    await row.getByText('En línea').waitFor();
    // A marker that a reload would wipe.
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 34));

    agent.send({
      type: 'node_health',
      at: Date.now(),
      peers: 42,
      handshakes_3m: 17,
      rx_bytes: 5_000_000,
      tx_bytes: 90_000_000,
      rx_rate: 1536,
      tx_rate: 3 * 1024 * 1024,
      load: [0.52, 0.31, 0.2],
      cpu: 12.5,
      memory: { total: 2 * 1024 ** 3, available: 1024 ** 3 },
    });
    // Pushed and shown in place: handshakes of peers, throughput in KB/MB, load, CPU, memory.
    await row.getByText('17 / 42').waitFor({ timeout: 10_000 });
    await expect.poll(() => row.textContent()).toContain('1,5 KB/s');
    expect(await row.textContent()).toContain('3 MB/s');
    expect(await row.textContent()).toContain('12,5 %');
    expect(await row.textContent()).toContain('1 GB de 2 GB');
    await expectAccessible(page, 'Servidores con la salud de los nodos');

    const gone = Date.now();
    await agent.close();
    const offline = row.getByText(/^Sin conexión desde hace/);
    await offline.waitFor({ timeout: 10_000 });
    const took = Date.now() - gone;
    expect(took).toBeLessThan(10_000);
    expect(await reddish(offline)).toBe(true);
    // Never a green "Activo" beside it.
    expect(await row.getByText('Activo', { exact: true }).count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(34);
    console.log(`servidor en rojo ${took} ms después de cerrar el agente`);

    // Resumen leads with it: the alert names it, its card is red and comes before the online ones.
    const overview = await console1280('/manager/dashboard');
    const alert = overview.getByRole('alert').filter({ hasText: 'sin conexión' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain(name);
    const card = overview.locator(`li[data-server="${name}"]`);
    expect(await reddish(card.getByText(/^Sin conexión desde hace/))).toBe(true);
    await expectAccessible(overview, 'Resumen con un servidor sin conexión');
    await page.context().close();
    await overview.context().close();
  });
});
