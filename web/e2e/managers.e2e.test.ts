/**
 * Roles and two-factor sign-in in Chromium against the real control plane:
 * - a support manager sees neither Ajustes nor Gestores, opening their URLs shows the no-permission
 *   panel, and the API answers them 403 with the role named;
 * - a manager enrols TOTP from Seguridad (the code is computed here from the key the page shows,
 *   RFC 6238 on node:crypto, independently of the server's code), then signs in with a code and
 *   with a recovery code;
 * - the owner creates, edits (name, password, role), disables, resets the two-factor of and deletes
 *   another manager in Gestores: the console asks for the password once (issue 26: each of these
 *   changes who can sign in) and each change holds.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi } from './api';
import { ADMIN_PASSWORD, launchChromium, signInManager } from './browser';
import { currentStep, totpAt } from './totp';

const baseUrl = inject('baseUrl');
let browser: Browser;
let owner: ManagerApi;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  owner = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
});
afterAll(async () => {
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function newPage(): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 900 },
  });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

async function fillLogin(page: Page, username: string, password: string): Promise<void> {
  await page.goto('/manager/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
}

describe('manager roles and two-factor sign-in', () => {
  it('keeps Ajustes and Gestores from a support manager: not in the nav, a panel at their URLs, 403 from the API', async () => {
    const username = `soporte-${Date.now().toString(36)}`;
    const password = 'clave-de-soporte-e2e';
    await (
      await owner.confirmed(ADMIN_PASSWORD)
    ).request('POST', '/api/admin/managers', {
      username,
      password,
      role: 'support',
    });

    const page = await newPage();
    await fillLogin(page, username, password);
    await page.waitForURL('**/manager/dashboard');
    const nav = page.getByRole('navigation', { name: 'Secciones de administración' });
    await nav.getByRole('link', { name: 'Clientes' }).waitFor();
    const links = await nav.getByRole('link').allTextContents();
    expect(links).toEqual(['Resumen', 'Clientes', 'Peers', 'Servidores', 'Planes', 'Facturas', 'Salas']);

    for (const path of ['/manager/dashboard/settings', '/manager/dashboard/managers']) {
      await page.goto(path);
      await page.getByText('Su rol no tiene acceso a esta sección.').waitFor();
      expect(new URL(page.url()).pathname).toBe(path);
    }

    const support = await ManagerApi.login(baseUrl, username, password);
    for (const path of ['/api/admin/settings', '/api/admin/managers']) {
      await expect(support.request('GET', path)).rejects.toThrow(
        `GET ${path} → 403: {"message":"Su rol (Soporte) no tiene permiso para realizar esta acción","code":"forbidden"}`,
      );
    }
    await page.context().close();
  });

  it('creates, edits, disables, resets the two-factor of and deletes a manager after confirming the password once', async () => {
    const suffix = Date.now().toString(36);
    const username = `gestionado-${suffix}`;
    const page = await newPage();
    await signInManager(page);
    await page.goto('/manager/dashboard/managers');

    // Creating: the server asks for a fresh confirmation; the console's dialog gets it.
    await page.getByRole('button', { name: 'Nuevo gestor' }).click();
    const create = page.getByRole('dialog', { name: 'Nuevo gestor' });
    await create.getByLabel('Usuario').fill(username);
    await create.getByLabel('Contraseña', { exact: true }).fill('clave-inicial-e2e');
    await create.getByRole('button', { name: 'Crear gestor' }).click();
    const confirm = page.getByRole('dialog', { name: 'Confirme que es usted' });
    await confirm.getByLabel('Contraseña', { exact: true }).fill('no-es-la-clave');
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await confirm.getByText('La contraseña no es correcta').waitFor();
    await confirm.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText(`Gestor ${username} creado correctamente`).waitFor();

    // Editing name, password and role: the confirmation is still fresh, nothing is asked again.
    await page.getByRole('button', { name: `Editar a ${username}` }).click();
    const edit = page.getByRole('dialog', { name: `Editar a ${username}` });
    await edit.getByLabel('Usuario').fill(`${username}-b`);
    await edit.getByLabel('Nueva contraseña (opcional)').fill('clave-nueva-e2e');
    await edit.getByLabel('Rol').selectOption('finance');
    await edit.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText('Cambios guardados').waitFor();
    expect(await confirm.count()).toBe(0);
    const renamed = `${username}-b`;
    const managed = await ManagerApi.login(baseUrl, renamed, 'clave-nueva-e2e');
    const me = await managed.request<{ role: string; id: number }>('GET', '/api/admin/verify-token');
    expect(me.role).toBe('finance');

    // Two-factor enrolled by the manager, then reset by the owner.
    const started = await (
      await managed.confirmed('clave-nueva-e2e')
    ).request<{ secret: string }>('POST', '/api/admin/me/totp', {});
    await managed.request('POST', '/api/admin/me/totp/confirm', {
      code: totpAt(started.secret, currentStep()),
    });
    await page.reload();
    await page
      .getByRole('button', { name: `Restablecer la verificación en dos pasos de ${renamed}` })
      .click();
    await page.getByRole('button', { name: 'Restablecer dos pasos' }).click();
    // A reloaded console holds no confirmation: it asks again.
    await confirm.getByLabel('Contraseña', { exact: true }).fill(ADMIN_PASSWORD);
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByText('Cambios guardados').waitFor();
    await page
      .getByRole('button', { name: `Restablecer la verificación en dos pasos de ${renamed}` })
      .waitFor({
        state: 'detached',
      });
    expect(
      (
        await owner.request<{ results: { totp_enabled: boolean }[] }>(
          'GET',
          `/api/admin/managers?q=${renamed}`,
        )
      ).results[0]!.totp_enabled,
    ).toBe(false);

    // Disabled: the manager can no longer sign in.
    await page.getByRole('button', { name: `Deshabilitar a ${renamed}` }).click();
    await page.getByRole('button', { name: `Deshabilitar ${renamed}`, exact: true }).click();
    await page.getByText(`${renamed} deshabilitado`).waitFor();
    await expect(ManagerApi.login(baseUrl, renamed, 'clave-nueva-e2e')).rejects.toThrow('→ 403');

    await page.getByRole('button', { name: `Eliminar a ${renamed}` }).click();
    await page.getByRole('button', { name: `Eliminar ${renamed}`, exact: true }).click();
    await page.getByText(`${renamed} eliminado`).waitFor();
    const left = await owner.request<{ results: { username: string }[] }>(
      'GET',
      `/api/admin/managers?q=${encodeURIComponent(username)}`,
    );
    expect(left.results).toEqual([]);
    expect(await confirm.count()).toBe(0);
    await page.context().close();
  });

  it('enrols TOTP with the key shown in Seguridad, then signs in with a code and with a recovery code', async () => {
    const username = `dospasos-${Date.now().toString(36)}`;
    const password = 'clave-de-dos-pasos-e2e';
    await (
      await owner.confirmed(ADMIN_PASSWORD)
    ).request('POST', '/api/admin/managers', {
      username,
      password,
      role: 'finance',
    });

    const page = await newPage();
    await fillLogin(page, username, password);
    await page.waitForURL('**/manager/dashboard');
    await page.getByRole('link', { name: 'Seguridad' }).click();
    await page.getByRole('button', { name: 'Activar verificación en dos pasos' }).click();
    // Enrolling is sensitive (issue 17, M3): the console asks for the password again first.
    const confirm = page.getByRole('dialog', { name: 'Confirme que es usted' });
    await confirm.getByLabel('Contraseña', { exact: true }).fill(password);
    await confirm.getByRole('button', { name: 'Confirmar' }).click();
    await page.getByRole('img', { name: 'Código QR de la verificación en dos pasos' }).waitFor();
    const secret = ((await page.getByLabel('Clave secreta').textContent()) ?? '').replace(/\s/g, '');
    const uri = (await page.getByLabel('Enlace otpauth://').textContent()) ?? '';
    expect(new URL(uri).searchParams.get('secret')).toBe(secret);
    expect(decodeURIComponent(new URL(uri).pathname)).toBe(`/VPN Service:${username}`);

    await page.getByLabel('Código de 6 dígitos').fill(totpAt(secret, currentStep()));
    await page.getByRole('button', { name: 'Confirmar y activar' }).click();
    const list = page.getByRole('list', { name: 'Códigos de recuperación' });
    await list.waitFor();
    const codes = await list.getByRole('listitem').allTextContents();
    expect(codes).toHaveLength(10);
    await page.getByRole('button', { name: 'Copiar los códigos de recuperación' }).click();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(codes.join('\n'));
    await page.getByRole('button', { name: 'Ya los he guardado' }).click();
    await page.getByText('Activada. Le quedan 10 códigos de recuperación.').waitFor();
    expect(await page.getByText(codes[0]!).count()).toBe(0);

    // Signing in now asks for the code after the password.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/manager/login');
    await fillLogin(page, username, password);
    const code = page.getByLabel('Código de verificación');
    await code.waitFor();
    await code.fill('000000');
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.getByText('El código de verificación no es válido o ya se usó').waitFor();
    // The confirmation spent the current step; the next one is within the accepted window.
    await page.getByLabel('Código de verificación').fill(totpAt(secret, currentStep() + 1));
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.waitForURL('**/manager/dashboard');
    await page.getByRole('link', { name: 'Seguridad' }).waitFor();

    // Without the phone: a recovery code, once.
    await page.getByRole('button', { name: 'Cerrar sesión' }).click();
    await page.waitForURL('**/manager/login');
    await fillLogin(page, username, password);
    await page.getByRole('button', { name: 'Usar un código de recuperación' }).click();
    await page.getByLabel('Código de recuperación').fill(codes[3]!);
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.waitForURL('**/manager/dashboard');
    await page.goto('/manager/dashboard/security');
    await page.getByText('Activada. Le quedan 9 códigos de recuperación.').waitFor();
    await page.context().close();
  });
});
