/**
 * The manager console in Chromium against the real control plane: the manager logs in at
 * /manager/login, reads Resumen with its charts, creates a server and sees its install command
 * once, opens it, edits its port, switches maintenance on and off again, and finds those actions in
 * Auditoría.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;
let manager: ManagerApi;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
});

afterAll(async () => {
  // Whatever happened, the site leaves maintenance.
  await manager?.settings({ maintenance: false });
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function managerPage(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.goto('/manager/login');
  await page.getByLabel('Usuario').fill('admin');
  await page.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/manager/dashboard');
  return page;
}

describe('manager console', () => {
  it('logs in, creates a server (token shown once), toggles maintenance and audits it all', async () => {
    const page = await managerPage();
    await page.getByRole('heading', { name: 'Resumen' }).waitFor();
    await page.getByText('Servidores en línea').waitFor();
    // The charts come from their own chunk and draw on canvases.
    await page.getByRole('figure', { name: 'Peers activos' }).locator('canvas').first().waitFor();

    // Servidores: a new server, its one-time agent token.
    const nav = page.getByRole('navigation', { name: 'Secciones de administración' });
    await nav.getByRole('link', { name: 'Servidores' }).click();
    await page.getByRole('heading', { name: 'Servidores' }).waitFor();
    const tag = Date.now().toString(36);
    const name = `Lisboa ${tag}`;
    await page.getByRole('button', { name: 'Nuevo servidor' }).click();
    const form = page.getByRole('dialog', { name: 'Nuevo servidor' });
    await form.getByLabel('Nombre').fill(name);
    await form.getByLabel('Endpoint (host:puerto)').fill(`lis-${tag}.vpn.example.com:51830`);
    await form.getByLabel('Ubicación').fill('Lisboa, Portugal');
    await form.getByRole('button', { name: 'Crear servidor' }).click();
    // A new server needs the password given again (issue 31); the call then goes through.
    const reauth = page.getByRole('dialog', { name: 'Confirme que es usted' });
    await reauth.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
    await reauth.getByRole('button', { name: 'Confirmar' }).click();

    const dialog = page.getByRole('dialog', { name: 'Instalar el agente' });
    await dialog
      .getByText('Copia el comando ahora: el token que contiene no se volverá a mostrar.')
      .waitFor();
    const command = (await dialog.getByLabel('Comando de instalación', { exact: true }).textContent()) ?? '';
    // One line to paste as root: the token as the first line bash reads (in no process's
    // arguments), then the panel's install script.
    const token = /AGENT_TOKEN='([^']+)'/.exec(command)?.[1] ?? '';
    expect(token.length).toBeGreaterThan(16);
    expect(command).toBe(
      `{ echo AGENT_TOKEN='${token}'; curl -fsSL '${new URL(baseUrl).origin}/api/agent/install.sh'; } | sudo bash`,
    );
    await dialog.getByRole('button', { name: 'Copiar el comando de instalación' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(command);
    await dialog.getByRole('button', { name: 'Cerrar' }).last().click();
    await dialog.waitFor({ state: 'detached' });
    expect(await page.getByText(token).count()).toBe(0);

    // The new server: no agent yet. Its detail, then a new port (the confirmation just given still
    // holds: no second question).
    const row = page.getByRole('row', { name: new RegExp(name) });
    await row.waitFor();
    expect(await row.textContent()).toContain('Sin conexión');
    await row.getByText(name).click();
    const panel = page.getByRole('complementary', { name: 'Estado en vivo' });
    await panel.getByText('Versión del agente').waitFor();
    await panel.getByRole('button', { name: 'Editar' }).click();
    const edit = page.getByRole('dialog', { name: 'Editar servidor' });
    await edit.getByLabel('Puerto').fill('51899');
    await edit.getByRole('button', { name: 'Guardar cambios' }).click();
    await panel.getByText(`lis-${tag}.vpn.example.com:51899`).waitFor();

    // Ajustes: maintenance on, then off again.
    await nav.getByRole('link', { name: 'Ajustes' }).click();
    const maintenance = page.getByRole('switch', { name: 'Modo mantenimiento' });
    await maintenance.waitFor();
    expect(await maintenance.getAttribute('aria-checked')).toBe('false');
    try {
      await maintenance.click();
      await page.getByText('El sitio está en mantenimiento: los clientes no pueden usarlo.').waitFor();
      expect(await maintenance.getAttribute('aria-checked')).toBe('true');
      expect(
        (await manager.request<{ maintenance: boolean }>('GET', '/api/admin/settings')).maintenance,
      ).toBe(true);
    } finally {
      await page.getByRole('switch', { name: 'Modo mantenimiento', checked: true }).click();
    }
    await page.getByRole('switch', { name: 'Modo mantenimiento', checked: false }).waitFor();
    expect((await manager.request<{ maintenance: boolean }>('GET', '/api/admin/settings')).maintenance).toBe(
      false,
    );

    // Auditoría: the server creation and both toggles, newest first.
    await nav.getByRole('link', { name: 'Auditoría' }).click();
    const table = page.getByRole('table', { name: 'Registro de auditoría' });
    await table.waitFor();
    const actions = await table.locator('tbody tr td:nth-child(3)').allTextContents();
    // Each action as a sentence with the server's name, its fields in words (issue 34)…
    expect(actions.slice(0, 4)).toEqual([
      'admin cambió los ajustes: Mantenimiento: sí → no',
      'admin cambió los ajustes: Mantenimiento: no → sí',
      `admin editó el servidor Lisboa ${tag}: Puerto: 51830 → 51899`,
      `admin añadió el servidor Lisboa ${tag}`,
    ]);
    const fields = table.locator('tbody tr td:nth-child(5)');
    expect((await fields.nth(2).textContent())!).toContain('Puerto: 51830 → 51899');
    // …and the change as recorded, one click away.
    await fields.nth(2).getByText('Cambio registrado (campos y valores tal como se guardaron)').click();
    await fields.nth(2).getByText('port', { exact: true }).waitFor();
    expect(await fields.nth(2).textContent()).toContain('port: 51830 → 51899');
    await page.context().close();
  });
});
