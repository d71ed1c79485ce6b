/**
 * Issue 32, point 6: ways out. The support link customers see is the one the operator sets in the
 * console (Ajustes → Enlaces para clientes, over SUPPORT_URL; a bad link is refused there), and
 * the console flags "Permitir recuperar la contraseña" while nothing could carry a recovery link,
 * when customers are offered no recovery either.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SiteSettings } from '@vpn/contracts';
import { ManagerApi, registerCustomer } from './api';
import { ADMIN_PASSWORD, launchChromium, signInManager } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
let manager: ManagerApi;
let before: SiteSettings;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  before = await manager.request<SiteSettings>('GET', '/api/admin/settings');
});
afterAll(async () => {
  await manager?.settings({ allow_email: before.allow_email, allow_password_recovery: true });
  await manager?.request('PATCH', '/api/admin/settings/links', { support_url: null });
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function newPage(width = 1280, height = 900): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width, height },
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

describe('ways out', () => {
  it('gives customers the support link the operator sets in the console, over SUPPORT_URL', async () => {
    await manager.request('PATCH', '/api/admin/settings/links', { support_url: null });
    const username = `salida${Date.now().toString(36)}`;
    await registerCustomer(baseUrl, username, 'clave-de-salida-1');
    const customer = await newPage(390, 844);
    await customer.goto('/login');
    await customer.getByLabel('Usuario').fill(username);
    await customer.getByLabel('Contraseña', { exact: true }).fill('clave-de-salida-1');
    await customer.getByRole('button', { name: 'Iniciar sesión' }).click();
    await customer.waitForURL('**/dashboard/home');
    await customer.getByRole('heading', { level: 1 }).first().waitFor();
    // The e2e server's SUPPORT_URL until the console sets another (a Home without any link shows
    // no support block at all: Home.test.tsx).
    const support = customer.getByRole('link', { name: /Contactar con Soporte/ });
    expect(await support.first().getAttribute('href')).toBe('https://soporte.example.com/chat');

    const console = await signInManager(await newPage());
    await console.getByRole('navigation').getByRole('link', { name: 'Ajustes' }).click();
    await console.getByLabel('Enlace de soporte').fill('javascript:alert(1)');
    await console.getByRole('button', { name: 'Guardar enlaces' }).click();
    await console
      .getByRole('alert')
      .filter({ hasText: 'El enlace de soporte debe empezar por https://' })
      .waitFor();
    await console.getByLabel('Enlace de soporte').fill('https://t.me/soporte_e2e');
    await console.getByRole('button', { name: 'Guardar enlaces' }).click();
    await console.getByText('Enlaces guardados').waitFor();

    await customer.reload();
    await support.first().waitFor();
    expect(await support.first().getAttribute('href')).toBe('https://t.me/soporte_e2e');
    await customer.context().close();
    await console.context().close();
  });

  it('flags the recovery switch while nothing can carry a link, and customers see no recovery then', async () => {
    // The e2e server has mail (SMTP_URL, PUBLIC_URL) but no Telegram bot: e-mail off leaves nothing.
    await manager.settings({ allow_email: false, allow_password_recovery: true });
    const console = await signInManager(await newPage());
    await console.getByRole('navigation').getByRole('link', { name: 'Ajustes' }).click();
    const flag = console.getByText(/ningún cliente puede recuperar su contraseña/);
    await flag.waitFor();
    const visitor = await newPage(390, 844);
    await visitor.goto('/login');
    await visitor.getByLabel('Usuario').waitFor();
    expect(await visitor.getByRole('link', { name: '¿Olvidaste tu contraseña?' }).count()).toBe(0);

    await console.getByRole('switch', { name: 'Permitir correo electrónico' }).click();
    await console.getByText('Se envía el enlace por correo.').waitFor();
    expect(await flag.count()).toBe(0);
    await visitor.reload();
    await visitor.getByRole('link', { name: '¿Olvidaste tu contraseña?' }).waitFor();
    await visitor.context().close();
    await console.context().close();
  });
});
