/**
 * The Salas (rooms) page in Chromium against the real control plane, with two customers in two
 * browser contexts: the owner creates a room and reads its password, the guest joins with it, the
 * owner's page shows the guest's peer (and its private IP) live, the owner removes it — the guest's
 * page says so live — and deletes the room. Neither page reloads; the push websocket carries it all.
 */
import { readFileSync } from 'node:fs';
import type { Peer } from '@vpn/contracts';
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlanId, registerCustomer, uniqueName } from './api';
import type { CreatedServer } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-salas-e2e';

interface Customer {
  username: string;
  alias: string;
  token: string;
  peer: Peer;
}

/** What these journeys use of the server tests' protocol-level agent (`server/test/protocolAgent.ts`). */
interface RoomAgent {
  autoAck: boolean;
  revision: number;
  ack(revision?: number): void;
  until(check: () => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

let browser: Browser;
let manager: ManagerApi;
let salas: CreatedServer;
let agent: RoomAgent | null = null;
let owner: Customer;
let guest: Customer;
const pageErrors: string[] = [];

/** A customer's own call to the client API, with their bearer token. */
async function clientCall<T>(token: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      'X-Requested-With': 'XMLHttpRequest',
      Authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

/** Registers a customer, gives them an alias (rooms need one) and one peer on `serverId`. */
async function customer(prefix: string, peerName: string, serverId: number, plan: number): Promise<Customer> {
  const username = uniqueName(prefix);
  await registerCustomer(baseUrl, username, PASSWORD);
  const login = await fetch(`${baseUrl}/api/client/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': 'XMLHttpRequest' },
    body: JSON.stringify({ username, password: PASSWORD, remember: false }),
  });
  const { access } = (await login.json()) as { access: string };
  const alias = `${prefix}-${Math.random().toString(36).slice(2, 8)}`;
  await clientCall(access, 'PATCH', '/api/client/settings', { alias });
  const peer = await manager.grantPeer({ username, plan, name: peerName, server: serverId });
  return { username, alias, token: access, peer };
}

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  await manager.settings({ allow_partys: true });
  const tag = Date.now().toString(36);
  salas = await (
    await manager.confirmed(ADMIN_PASSWORD)
  ).createServer({
    name: `Salas ${tag}`,
    endpoint: `salas-${tag}.vpn.example.com:51830`,
    ubication: 'La Habana, Cuba',
    allow_partys: true,
  });
  const plan = await firstPlanId(baseUrl);
  owner = await customer('ana', 'pc-ana', salas.server.id, plan);
  guest = await customer('beto', 'pc-beto', salas.server.id, plan);
});

afterAll(async () => {
  // The other journeys run against the same control plane with the site's default (no rooms).
  await manager?.settings({ allow_partys: false });
  await agent?.close();
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

/** A fresh browser context signed in as `who`, on the Salas page (through the nav). */
async function salasPage(who: Customer, width = 1280): Promise<Page> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(who.username);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/dashboard/home');
  // On a phone the navigation sits behind the menu toggle.
  if (width < 768) await page.getByRole('button', { name: 'Abrir menú' }).click();
  await page.getByRole('link', { name: 'Salas', exact: true }).click();
  await page.getByRole('heading', { name: 'Salas', level: 1 }).waitFor();
  await page.evaluate(() => {
    (window as unknown as Record<string, unknown>).__sinRecarga = true;
  });
  return page;
}

async function expectNotReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as Record<string, unknown>).__sinRecarga)).toBe(true);
}

/** The table row of a peer in the open room. */
function peerRow(page: Page, name: string): Locator {
  return page.locator('tr', { has: page.getByRole('rowheader', { name }) });
}

describe('Salas', () => {
  it('owner creates a room, a guest joins with its password and shows up live, is removed, and the room is deleted', async () => {
    const ownerPage = await salasPage(owner);
    const room = uniqueName('Torneo ');

    // No rooms yet: the page offers creating one.
    await ownerPage.getByText('Aún no tienes salas.').waitFor();
    await ownerPage.getByRole('button', { name: 'Crear sala' }).first().click();
    const create = ownerPage.getByRole('dialog', { name: 'Crear sala' });
    await create.getByLabel('Nombre de la sala').fill(room);
    // The only free peer comes selected.
    expect(await create.getByLabel('Peer inicial').inputValue()).toBe(String(owner.peer.id));
    await create.getByRole('button', { name: 'Crear sala' }).click();
    await ownerPage.getByText('Sala creada correctamente').waitFor();
    await ownerPage.getByRole('heading', { name: room, level: 2 }).waitFor();
    expect(await peerRow(ownerPage, 'pc-ana').getByRole('cell').allTextContents()).toEqual([
      owner.alias,
      `${owner.peer.address}Copiar`,
      'Remover',
    ]);

    // The password, hidden until asked.
    const passwordBox = ownerPage.getByRole('status', { name: 'Contraseña de la sala' });
    expect(await passwordBox.textContent()).toBe('••••••••••');
    await ownerPage.getByRole('button', { name: 'Mostrar contraseña' }).click();
    const password = ((await passwordBox.textContent()) ?? '').trim();
    expect(password).toMatch(/^[A-Za-z0-9]{10}$/);

    // The guest joins from their own browser with the room's name and password.
    const guestPage = await salasPage(guest);
    await guestPage.getByRole('button', { name: 'Unirse a una sala' }).first().click();
    const join = guestPage.getByRole('dialog', { name: 'Unirse a una sala' });
    await join.getByRole('button', { name: 'Unirse' }).click();
    expect(await join.getByRole('alert').textContent()).toBe('Por favor, complete todos los campos');
    await join.getByLabel('Nombre de la sala').fill(room);
    await join.getByLabel('Contraseña', { exact: true }).fill('incorrecta');
    await join.getByRole('button', { name: 'Unirse' }).click();
    await guestPage.getByText('Nombre de sala o contraseña incorrectos').waitFor();
    await join.getByLabel('Contraseña', { exact: true }).fill(password);
    await join.getByRole('button', { name: 'Unirse' }).click();
    await guestPage.getByText('Te has unido a la sala').waitFor();
    await guestPage.getByRole('heading', { name: room, level: 2 }).waitFor();
    // A guest sees the owner's peer and its private IP, but no password and no way to remove it.
    await peerRow(guestPage, 'pc-ana').getByText(owner.peer.address).waitFor();
    expect(await guestPage.getByText('Contraseña de la sala').count()).toBe(0);
    expect(
      await peerRow(guestPage, 'pc-ana')
        .getByRole('button', { name: /Remover|Sacar/ })
        .count(),
    ).toBe(0);
    await peerRow(guestPage, 'pc-beto')
      .getByRole('button', { name: 'Sacar mi peer pc-beto de la sala' })
      .waitFor();

    // The guest takes the room-only tunnel of their peer: a download, and a QR code on request.
    const roomConfig = guestPage.getByRole('region', { name: 'Configuración solo para la Sala' });
    const [download] = await Promise.all([
      guestPage.waitForEvent('download'),
      roomConfig
        .getByRole('button', { name: 'Descargar la configuración solo para la Sala del peer pc-beto' })
        .click(),
    ]);
    expect(download.suggestedFilename()).toBe('pc-beto-sala.conf');
    const conf = readFileSync(await download.path(), 'utf8');
    expect(conf).toMatch(new RegExp(`^Address = ${guest.peer.address.replaceAll('.', '\\.')}/32$`, 'm'));
    expect(conf).toMatch(/^AllowedIPs = 10\.64\.0\.0\/10, 255\.255\.255\.255\/32, 224\.0\.0\.0\/4$/m);
    expect(conf).not.toMatch(/^DNS/m);
    await roomConfig
      .getByRole('button', {
        name: 'Mostrar el código QR de la configuración solo para la Sala del peer pc-beto',
      })
      .click();
    const qrDialog = guestPage.getByRole('dialog', { name: 'Configuración solo para la Sala: pc-beto' });
    await qrDialog
      .getByRole('img', { name: 'Código QR de la configuración solo para la Sala del peer pc-beto' })
      .waitFor();
    await guestPage.keyboard.press('Escape');
    await qrDialog.waitFor({ state: 'detached' });
    // And how games meet in the room.
    await guestPage
      .getByRole('region', { name: 'Jugar en la Sala' })
      .getByText(/permítelo también en redes «Públicas»/)
      .waitFor();

    // The owner's page shows the guest's peer live, with the private IP gamers type in.
    const guestRow = peerRow(ownerPage, 'pc-beto');
    await guestRow.waitFor();
    expect(await guestRow.getByRole('cell').nth(0).textContent()).toBe(guest.alias);
    expect(await guestRow.getByRole('cell').nth(1).textContent()).toContain(guest.peer.address);

    // The owner removes it; the guest's page says so and goes back to the list, live.
    await guestRow.getByRole('button', { name: 'Remover el peer pc-beto de la sala' }).click();
    const confirmRemove = ownerPage.getByRole('alertdialog', { name: 'Remover peer' });
    await confirmRemove.getByRole('button', { name: 'Remover' }).click();
    await ownerPage.getByText('Peer removido de la sala').waitFor();
    await guestRow.waitFor({ state: 'detached' });
    await guestPage.getByText('Haz salido de una sala').waitFor();
    await guestPage.getByText('Aún no tienes salas.').waitFor();
    const guestView = await clientCall<{ guest_partys: unknown[] }>(
      guest.token,
      'GET',
      '/api/client/network/partys',
    );
    expect(guestView.guest_partys).toEqual([]);

    // The owner deletes the room, once the removal's refetches (the room, the free peers) have
    // landed: a full CI run clicked while they re-rendered the room and the dialog never showed.
    await ownerPage.waitForLoadState('networkidle');
    // By keyboard: in a full run the removal's toasts (bottom right from 1024 px) lay over the button.
    await ownerPage.getByRole('button', { name: 'Eliminar sala' }).focus();
    await ownerPage.keyboard.press('Enter');
    const confirmDelete = ownerPage.getByRole('alertdialog', { name: 'Eliminar sala' });
    await confirmDelete.getByRole('button', { name: 'Eliminar sala' }).click();
    await ownerPage.getByText('Party eliminada').waitFor();
    await ownerPage.getByText('Aún no tienes salas.').waitFor();
    expect(await ownerPage.getByText('Party eliminada').count()).toBe(1);

    await expectNotReloaded(ownerPage);
    await expectNotReloaded(guestPage);
    await ownerPage.context().close();
    await guestPage.context().close();
  });

  it("on a phone, with the room's server online, the room shows its in-progress state until the agent applies it", async () => {
    agent = await connectAgent<RoomAgent>(baseUrl, salas.agent_token);
    agent.autoAck = false;
    const page = await salasPage(owner, 390);
    const room = uniqueName('Oficina ');
    await page.getByRole('button', { name: 'Crear sala' }).first().click();
    const create = page.getByRole('dialog', { name: 'Crear sala' });
    await create.getByRole('button', { name: 'Crear sala' }).click();
    expect(await create.getByRole('alert').textContent()).toBe('Por favor, ingrese un nombre para la sala');
    const revision = agent.revision;
    await create.getByLabel('Nombre de la sala').fill(room);
    await create.getByRole('button', { name: 'Crear sala' }).click();
    await page.getByRole('heading', { name: room, level: 2 }).waitFor();
    await page.getByText('Aplicando cambios en los servidores...').waitFor();

    // The peers are cards on a phone, the private IP on each.
    const card = page.getByRole('list', { name: `Peers de la sala ${room}` }).getByRole('article');
    expect(await card.count()).toBe(1);
    await card.getByText(owner.peer.address).waitFor();

    // The agent applies the change: the indicator goes away without a reload.
    await agent.until(() => agent!.revision > revision);
    agent.ack();
    await page.getByText('Aplicando cambios en los servidores...').waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Volver a las salas' }).click();
    const listed = page.getByRole('article', { name: room });
    await listed.waitFor();
    expect(await listed.textContent()).toContain('Administrador');
    expect(await listed.textContent()).toContain('1 peer');
    expect(await listed.getByRole('status').count()).toBe(0);
    await expectNotReloaded(page);
    await page.context().close();
  });
});
