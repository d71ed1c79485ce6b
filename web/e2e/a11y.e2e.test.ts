/**
 * axe-core on every customer page state (issue 32, point 12): each state is reached as a customer
 * would (a phone at 390 px, Spanish), then checked with `expectAccessible` (no serious or critical
 * violation). Console pages are checked by their own journeys with the same helper (`axe.ts`).
 *
 * The signed-in states: Inicio with a peer, the peers' cards, a peer's Detalles and its QR, Salas
 * (empty, the create dialog, a room's page and its room-only QR), Planes, the purchase dialog, the
 * sandbox gateway's payment result and Ayuda.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlan, registerCustomer, uniqueName } from './api';
import type { AgentHandle } from './api';
import { expectAccessible } from './axe';
import { ADMIN_PASSWORD, launchChromium } from './browser';

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

async function signIn(page: Page, username: string, remember = false): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  // Remembered: the gateway's window (opened without an opener) shares localStorage only.
  if (remember) await page.getByLabel('Recordarme').check();
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

describe('axe-core: a customer with a peer, at 390 px', () => {
  let manager: ManagerApi;
  let agent: AgentHandle | null = null;
  let username: string;
  let plan: { id: number; name: string; price: number };
  const PEER = 'casa';
  let peerId: number;

  beforeAll(async () => {
    manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
    await manager.settings({ allow_partys: true });
    const tag = Date.now().toString(36);
    // A server with rooms whose agent answers: the purchase can sell a new peer there.
    const created = await (
      await manager.confirmed(ADMIN_PASSWORD)
    ).createServer({
      name: `Axe ${tag}`,
      endpoint: `axe-${tag}.vpn.example.com:51830`,
      ubication: 'La Habana, Cuba',
      allow_partys: true,
    });
    agent = await connectAgent(baseUrl, created.agent_token);
    username = uniqueName('axepeer');
    await registerCustomer(baseUrl, username, PASSWORD);
    plan = await firstPlan(baseUrl);
    peerId = (await manager.grantPeer({ username, plan: plan.id, name: PEER, server: created.server.id })).id;
  });

  afterAll(async () => {
    // The other journeys run against the same control plane with the site's default (no rooms).
    await manager?.settings({ allow_partys: false });
    await agent?.close();
  });

  it('Inicio, the peers, Detalles and QR, Planes, the purchase dialog, the payment result and Ayuda', async () => {
    const page = await phone();
    await signIn(page, username, true);
    await page.getByRole('heading', { name: PEER }).first().waitFor();
    await expectAccessible(page, 'Inicio con un peer');

    await page.goto('/dashboard/peers');
    const cards = page.getByRole('list', { name: 'Tus peers' });
    await cards.getByRole('heading', { name: PEER }).waitFor();
    await expectAccessible(page, 'Peers (tarjetas)');

    await cards.getByRole('button', { name: `Acciones del peer ${PEER}` }).click();
    await page.getByRole('menuitem', { name: 'Detalles' }).click();
    const details = page.getByRole('dialog', { name: `Detalles del peer ${PEER}` });
    await details.getByText('/api/mirror/').waitFor();
    await expectAccessible(page, 'Detalles del peer');
    await page.keyboard.press('Escape');
    await details.waitFor({ state: 'detached' });

    await cards.getByRole('button', { name: `Ver QR del peer ${PEER}` }).click();
    const qr = page.getByRole('dialog', { name: `Código QR del peer ${PEER}` });
    await qr.getByRole('img', { name: `Código QR de la configuración del peer ${PEER}` }).waitFor();
    await expectAccessible(page, 'QR del peer');
    await page.keyboard.press('Escape');
    await qr.waitFor({ state: 'detached' });

    await page.goto('/dashboard/plans');
    const card = page.getByRole('article', { name: plan.name });
    await card.waitFor();
    await expectAccessible(page, 'Planes');

    await card.getByRole('button', { name: 'Seleccionar Plan' }).click();
    const dialog = page.getByRole('dialog', { name: `Adquirir el plan ${plan.name}` });
    // The granted peer is paid by hand (renewed through support): a new peer is the choice.
    await expect.poll(() => dialog.getByRole('radio', { name: 'Peer nuevo' }).isChecked()).toBe(true);
    await expectAccessible(page, 'diálogo de compra');
    await dialog.getByLabel('Nombre del nuevo peer').fill('tablet');
    await expectAccessible(page, 'diálogo de compra, peer nuevo');

    const [gateway] = await Promise.all([
      page.context().waitForEvent('page'),
      dialog.getByRole('button', { name: 'Proceder al Pago' }).click(),
    ]);
    gateway.on('pageerror', (error) => pageErrors.push(error.message));
    await expectAccessible(page, 'pasarela abierta (primera pestaña)');
    await gateway.getByRole('button', { name: 'Pagar' }).click();
    await gateway.waitForURL('**/dashboard/payment?**');
    await gateway.getByRole('heading', { name: 'Pago completado' }).waitFor();
    await gateway.getByRole('button', { name: 'Instalar tablet en este dispositivo' }).waitFor();
    await expectAccessible(gateway, 'resultado del pago');
    await gateway.getByRole('button', { name: 'Instalar tablet en este dispositivo' }).click();
    await gateway.getByRole('img', { name: 'Código QR de la configuración del peer tablet' }).waitFor();
    await expectAccessible(gateway, 'resultado del pago, peer listo para instalar');
    await gateway.close();

    await page.goto('/dashboard/help');
    await page.getByRole('heading', { level: 1 }).waitFor();
    await expectAccessible(page, 'Ayuda');
    await page.context().close();
  });

  it('Salas: empty, the create dialog, a room and its room-only QR, which fits a 390 px screen', async () => {
    const page = await phone();
    await signIn(page, username);
    // Rooms need an alias: set through the account's own API with the page's session.
    const token = await page.evaluate(
      () => localStorage.getItem('access') ?? sessionStorage.getItem('access'),
    );
    const alias = await fetch(`${baseUrl}/api/client/settings`, {
      method: 'PATCH',
      headers: {
        'Content-Type': 'application/json',
        'X-Requested-With': 'XMLHttpRequest',
        Authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({ alias: `axe-${Math.random().toString(36).slice(2, 8)}` }),
    });
    expect(alias.status).toBe(200);
    await page.goto('/dashboard/partys');
    await page.getByRole('heading', { name: 'Salas', level: 1 }).waitFor();
    await page.getByText('Aún no tienes salas.').waitFor();
    await expectAccessible(page, 'Salas sin salas');

    await page.getByRole('button', { name: 'Crear sala' }).first().click();
    const create = page.getByRole('dialog', { name: 'Crear sala' });
    await create.getByLabel('Nombre de la sala').fill('Torneo axe');
    // 'casa', whatever peer the list offers first (the one bought above may still be on its way).
    await create.getByLabel('Peer inicial').selectOption(String(peerId));
    await expectAccessible(page, 'diálogo Crear sala');
    await create.getByRole('button', { name: 'Crear sala' }).click();
    await page.getByRole('heading', { name: 'Torneo axe', level: 2 }).waitFor();
    await expectAccessible(page, 'página de una sala');

    // Point 10: the room-only QR is whole on a 390 × 844 screen, not cut by its dialog.
    const roomConfig = page.getByRole('region', { name: 'Configuración solo para la Sala' });
    await roomConfig
      .getByRole('button', {
        name: `Mostrar el código QR de la configuración solo para la Sala del peer ${PEER}`,
      })
      .click();
    const qrDialog = page.getByRole('dialog', { name: `Configuración solo para la Sala: ${PEER}` });
    const qr = qrDialog.getByRole('img', {
      name: `Código QR de la configuración solo para la Sala del peer ${PEER}`,
    });
    await qr.waitFor();
    await expectAccessible(page, 'QR de la configuración solo para la Sala');
    const box = await qr.boundingBox();
    expect(box).not.toBeNull();
    // Whole inside the viewport, and not clipped by a scrolling ancestor (the dialog's panel).
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.y).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    expect(box!.y + box!.height).toBeLessThanOrEqual(844);
    expect(box!.width).toBeGreaterThanOrEqual(200);
    const clipped = await qr.evaluate((img) => {
      const r = img.getBoundingClientRect();
      for (let el = img.parentElement; el; el = el.parentElement) {
        const style = getComputedStyle(el);
        if (style.overflow === 'visible' && style.overflowY === 'visible') continue;
        const c = el.getBoundingClientRect();
        if (
          r.top < c.top - 0.5 ||
          r.bottom > c.bottom + 0.5 ||
          r.left < c.left - 0.5 ||
          r.right > c.right + 0.5
        )
          return `${el.tagName}.${el.className}: ${JSON.stringify(c)} cuts ${JSON.stringify(r)}`;
      }
      return null;
    });
    expect(clipped).toBeNull();
    await page.context().close();
  });
});
