/**
 * The account journeys in Chromium against the real control plane, with mail delivered to a real
 * SMTP server on loopback (see `global-setup.ts`): password recovery through the mailed link, the
 * settings dialogs (alias, e-mail change with its verification link, e-mail delete, password change),
 * the dashboard home with and without announcements, and the client-app banner.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, registerCustomer, uniqueName } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';
import { allMail, tokenFrom, waitForMail } from './mail';
import type { ReceivedMail } from './mail';

const baseUrl = inject('baseUrl');
const SENT =
  'Si la cuenta tiene un email verificado o un chat de Telegram vinculado, recibirás allí un enlace para restablecer la contraseña.';

let browser: Browser;
let manager: ManagerApi;
const pageErrors: string[] = [];

/** The server caches the site settings for one second. */
const settle = () => new Promise((r) => setTimeout(r, 1200));

beforeAll(async () => {
  browser = await launchChromium();
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  await manager.settings({ allow_email: true, allow_partys: true, allow_password_recovery: true });
  await settle();
});

afterAll(async () => {
  await manager?.settings({ allow_email: false });
  await browser?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

async function newContext(): Promise<BrowserContext> {
  return browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 900 }, locale: 'es-ES' });
}

async function newPage(context?: BrowserContext): Promise<Page> {
  const page = await (context ?? (await newContext())).newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

async function login(page: Page, username: string, password: string, remember = true) {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(password);
  if (remember) await page.getByLabel('Recordarme').check();
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
}

async function signedIn(username: string, password: string, context?: BrowserContext): Promise<Page> {
  const page = await newPage(context);
  await login(page, username, password);
  await page.waitForURL('**/dashboard/home');
  return page;
}

async function logout(page: Page, username: string) {
  await page.getByRole('button', { name: `Hola, ${username}` }).click();
  await page.getByRole('menuitem', { name: 'Cerrar sesión' }).click();
  await page.waitForURL('**/login');
}

async function openSettings(page: Page) {
  await page.goto('/dashboard/settings');
  await page.getByRole('heading', { name: 'Configuración de cuenta' }).waitFor();
}

/** The settings row of one field (its heading is the label). */
const row = (page: Page, label: string) =>
  page.locator('li', { has: page.getByRole('heading', { name: label, exact: true, level: 2 }) });

/** Opens the mailed link `path` of `mail` and checks it points at this site with the token in the fragment. */
async function openMailedLink(page: Page, mail: ReceivedMail, path: string): Promise<void> {
  const token = await tokenFrom(mail, path);
  const link = `${baseUrl}${path}#token=${token}`;
  expect(mail.text).toContain(link);
  await page.goto(link);
}

/** A customer with a verified e-mail: registered with it, then the mailed link opened in the browser. */
async function customerWithVerifiedEmail(password: string) {
  const username = uniqueName('rec');
  const email = `${username}@correo.example.com`;
  await registerCustomer(baseUrl, username, password, email);
  const page = await newPage();
  await openMailedLink(page, await waitForMail(email), '/verify-email');
  await page.getByText('Email verificado correctamente').waitFor();
  await page.context().close();
  return { username, email };
}

describe('password recovery by e-mail', () => {
  it('mails a reset link to the verified address; the link sets a new password once, which then logs in', async () => {
    const { username, email } = await customerWithVerifiedEmail('clave-original-1');
    const before = (await allMail()).length;

    const page = await newPage();
    await page.goto('/login');
    await page.getByRole('link', { name: '¿Olvidaste tu contraseña?' }).click();
    await page.getByRole('heading', { name: 'Recuperar Contraseña' }).waitFor();
    await page.getByLabel('Usuario').fill(username);
    await page.getByRole('button', { name: 'Enviar' }).click();
    await page.getByRole('heading', { name: 'Email enviado' }).waitFor();
    expect(await page.getByText(SENT).isVisible()).toBe(true);

    // The reset mail arrives (the second one to this address, after the verification).
    let resetMail;
    for (let i = 0; i < 100 && !resetMail; i++) {
      resetMail = (await allMail()).slice(before).find((m) => m.to.includes(email));
      if (!resetMail) await new Promise((r) => setTimeout(r, 100));
    }
    expect(resetMail).toBeTruthy();
    const token = await tokenFrom(resetMail!, '/reset-password');
    await openMailedLink(page, resetMail!, '/reset-password');
    await page.getByRole('heading', { name: 'Restablecer Contraseña' }).waitFor();
    // The token left the address bar at once.
    expect(new URL(page.url()).hash).toBe('');
    expect(page.url()).not.toContain(token);

    await page.getByLabel('Nueva contraseña', { exact: true }).fill('clave-nueva-22');
    await page.getByLabel('Confirmar nueva contraseña').fill('clave-distinta');
    await page.getByRole('button', { name: 'Restablecer contraseña' }).click();
    await page.getByText('Las contraseñas no coinciden.').waitFor();
    await page.getByLabel('Confirmar nueva contraseña').fill('clave-nueva-22');
    await page.getByRole('button', { name: 'Restablecer contraseña' }).click();
    await page.getByText('Contraseña restablecida. Ya puedes iniciar sesión.').waitFor();
    await page.getByRole('link', { name: 'Ir a iniciar sesión' }).click();
    await page.waitForURL('**/login');

    await login(page, username, 'clave-original-1');
    await page.getByRole('alert').waitFor();
    await login(page, username, 'clave-nueva-22');
    await page.getByRole('button', { name: `Hola, ${username}` }).waitFor();

    // The link works once.
    const again = await newPage();
    await again.goto(`/reset-password#token=${token}`);
    await again.getByLabel('Nueva contraseña', { exact: true }).fill('otra-clave-33');
    await again.getByLabel('Confirmar nueva contraseña').fill('otra-clave-33');
    await again.getByRole('button', { name: 'Restablecer contraseña' }).click();
    await again.getByRole('alert').getByText('El enlace no es válido o ha caducado').waitFor();
    await page.context().close();
    await again.context().close();
  });

  it('answers the same for an account without e-mail, and sends nothing', async () => {
    const username = uniqueName('sinmail');
    await registerCustomer(baseUrl, username, 'clave-sin-email-1');
    const before = (await allMail()).length;

    const page = await newPage();
    await page.goto('/password-recovery');
    await page.getByLabel('Usuario').fill(username);
    await page.getByRole('button', { name: 'Enviar' }).click();
    await page.getByRole('heading', { name: 'Email enviado' }).waitFor();
    expect(await page.getByText(SENT).isVisible()).toBe(true);

    await page.getByRole('link', { name: 'Intentar de nuevo' }).click();
    await page.getByRole('heading', { name: 'Recuperar Contraseña' }).waitFor();
    expect(await page.getByLabel('Usuario').inputValue()).toBe('');

    // Give a mail every chance to arrive: none does.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await allMail()).length).toBe(before);
    await page.context().close();
  });
});

describe('account settings dialogs', () => {
  it("alias: 'El alias no puede estar en blanco', 'El alias ya está en uso', then configured and modified", async () => {
    const password = 'clave-alias-1';
    const taken = uniqueName('Ocupado');
    const other = uniqueName('otro');
    await registerCustomer(baseUrl, other, password);
    const otherPage = await signedIn(other, password);
    await openSettings(otherPage);
    await otherPage.getByRole('button', { name: 'Configurar alias' }).click();
    await otherPage.getByRole('dialog').getByLabel('Alias').fill(taken);
    await otherPage.getByRole('dialog').getByRole('button', { name: 'Guardar' }).click();
    await otherPage.getByText('Alias configurado correctamente').waitFor();
    await otherPage.context().close();

    const username = uniqueName('alias');
    await registerCustomer(baseUrl, username, password);
    const page = await signedIn(username, password);
    await openSettings(page);
    await page.getByRole('button', { name: 'Configurar alias' }).click();
    const dialog = page.getByRole('dialog', { name: 'Configurar alias' });
    await dialog.getByLabel('Alias').fill('   ');
    await dialog.getByRole('button', { name: 'Guardar' }).click();
    await dialog.getByRole('alert').getByText('El alias no puede estar en blanco').waitFor();

    await dialog.getByLabel('Alias').fill(taken.toUpperCase());
    await dialog.getByRole('button', { name: 'Guardar' }).click();
    await dialog.getByRole('alert').getByText('El alias ya está en uso').waitFor();

    const alias = uniqueName('Mío');
    await dialog.getByLabel('Alias').fill(alias);
    await dialog.getByRole('button', { name: 'Guardar' }).click();
    await page.getByText('Alias configurado correctamente').waitFor();
    await dialog.waitFor({ state: 'detached' });
    await row(page, 'Alias').getByText(alias).waitFor();

    await page.getByRole('button', { name: 'Modificar alias' }).click();
    const modify = page.getByRole('dialog', { name: 'Modificar alias' });
    expect(await modify.getByLabel('Alias').inputValue()).toBe(alias);
    await modify.getByLabel('Alias').fill(`${alias}2`);
    await modify.getByRole('button', { name: 'Guardar' }).click();
    await page.getByText('Alias modificado correctamente').waitFor();

    // Kept by the server: a reload shows it.
    await page.reload();
    await row(page, 'Alias').getByText(`${alias}2`).waitFor();
    await page.context().close();
  });

  it('email: validations, change → verification mail → link → verified; then delete', async () => {
    const password = 'clave-email-1';
    const username = uniqueName('mail');
    await registerCustomer(baseUrl, username, password);
    const page = await signedIn(username, password);
    await openSettings(page);
    await row(page, 'Email').getByText('Sin configurar').waitFor();

    await page.getByRole('button', { name: 'Añadir email' }).click();
    const add = page.getByRole('dialog', { name: 'Añadir email' });
    await add.getByRole('button', { name: 'Guardar' }).click();
    await add.getByRole('alert').getByText('El email no puede estar en blanco').waitFor();
    const first = `${username}@primero.example.com`;
    await add.getByLabel('Nuevo email').fill(first);
    await add.getByRole('button', { name: 'Guardar' }).click();
    await add.getByRole('alert').getByText('Indica tu contraseña actual para cambiar el email').waitFor();
    await add.getByLabel('Contraseña actual').fill(password);
    await add.getByRole('button', { name: 'Guardar' }).click();
    await page.getByText('Email modificado correctamente. Te enviamos un enlace para verificarlo.').waitFor();
    await row(page, 'Email').getByText('Sin verificar').waitFor();

    await page.getByRole('button', { name: 'Cambiar email' }).click();
    const change = page.getByRole('dialog', { name: 'Cambiar email' });
    await change.getByLabel('Nuevo email').fill(first.toUpperCase());
    await change.getByRole('button', { name: 'Guardar' }).click();
    await change.getByRole('alert').getByText('El nuevo email no puede ser igual q el anterior').waitFor();
    const second = `${username}@segundo.example.com`;
    await change.getByLabel('Nuevo email').fill(second);
    await change.getByLabel('Contraseña actual').fill(password);
    await change.getByRole('button', { name: 'Guardar' }).click();
    await change.waitFor({ state: 'detached' });
    await row(page, 'Email').getByText(second).waitFor();

    // The verification link of the new address, opened in the same browser.
    await openMailedLink(page, await waitForMail(second), '/verify-email');
    await page.getByText('Email verificado correctamente').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    await page.getByRole('link', { name: 'Ir a Configuración de cuenta' }).click();
    await row(page, 'Email').getByText('Verificado', { exact: true }).waitFor();

    // The first address's link is void now (issuing a new one voided it).
    const stale = await newPage();
    await openMailedLink(stale, await waitForMail(first), '/verify-email');
    await stale.getByRole('alert').getByText('El enlace no es válido o ha caducado').waitFor();
    await stale.context().close();

    await page.getByRole('button', { name: 'Eliminar email' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Eliminar email' });
    await confirm.getByText(`¿Eliminar el email ${second} de tu cuenta?`, { exact: false }).waitFor();
    await confirm.getByRole('button', { name: 'Eliminar', exact: true }).click();
    await page.getByText('Email eliminado correctamente').waitFor();
    await row(page, 'Email').getByText('Sin configurar').waitFor();
    await page.reload();
    await row(page, 'Email').getByText('Sin configurar').waitFor();
    await page.context().close();
  });

  it('password: validations, wrong current password, change closes the other sessions, the old password fails', async () => {
    const username = uniqueName('clave');
    await registerCustomer(baseUrl, username, 'clave-vieja-1');
    const otherDevice = await signedIn(username, 'clave-vieja-1');
    const page = await signedIn(username, 'clave-vieja-1');
    await openSettings(page);

    await page.getByRole('button', { name: 'Cambiar contraseña' }).click();
    const dialog = page.getByRole('dialog', { name: 'Cambiar contraseña' });
    const fill = async (current: string, next: string, confirmation: string) => {
      await dialog.getByLabel('Contraseña actual').fill(current);
      await dialog.getByLabel('Nueva contraseña', { exact: true }).fill(next);
      await dialog.getByLabel('Confirmar nueva contraseña').fill(confirmation);
      await dialog.getByRole('button', { name: 'Guardar' }).click();
    };
    await fill('', 'clave-nueva-2', 'clave-nueva-2');
    await dialog.getByRole('alert').getByText('Las contraseñas no pueden estar en blanco.').waitFor();
    await fill('clave-vieja-1', 'clave-nueva-2', 'clave-nueva-3');
    await dialog.getByRole('alert').getByText('Las contraseñas no coinciden.').waitFor();
    await fill('clave-vieja-1', 'clave-vieja-1', 'clave-vieja-1');
    await dialog
      .getByRole('alert')
      .getByText('La nueva contraseña no puede ser igual a la anterior.')
      .waitFor();
    await fill('no-es-esta-1', 'clave-nueva-2', 'clave-nueva-2');
    await dialog.getByRole('alert').getByText('La contraseña actual no es correcta').waitFor();
    await fill('clave-vieja-1', 'clave-nueva-2', 'clave-nueva-2');
    await page.getByText('Contraseña modificada correctamente').waitFor();
    await dialog.waitFor({ state: 'detached' });

    // This device goes on with the new pair …
    await page.getByRole('link', { name: 'Peers', exact: true }).click();
    await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    // … the other one was signed out.
    await otherDevice.goto('/dashboard/peers');
    await otherDevice.waitForURL('**/login');

    await logout(page, username);
    await login(page, username, 'clave-vieja-1');
    await page.getByRole('alert').waitFor();
    expect(new URL(page.url()).pathname).toBe('/login');
    await login(page, username, 'clave-nueva-2');
    await page.getByRole('button', { name: `Hola, ${username}` }).waitFor();
    await page.context().close();
    await otherDevice.context().close();
  });
});

describe('a remembered session in two tabs', () => {
  it('survives both tabs refreshing the expired access token at once (they take turns, no theft alarm)', async () => {
    const username = uniqueName('pestanas');
    await registerCustomer(baseUrl, username, 'clave-de-pestanas-1');
    const first = await signedIn(username, 'clave-de-pestanas-1');
    const second = await newPage(first.context());
    await second.goto('/dashboard/peers');
    await second.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();

    // The access token is refused from now on; both tabs find out at the same moment.
    const refreshes: string[] = [];
    for (const page of [first, second])
      page.on('request', (r) => r.url().endsWith('/api/refresh-token') && refreshes.push(r.url()));
    await first.evaluate(() => localStorage.setItem('access', 'caducado'));
    await Promise.all([first.reload(), second.reload()]);

    await first.getByRole('button', { name: `Hola, ${username}` }).waitFor();
    await second.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    // The tabs take turns through a Web Lock, so the single-use refresh token is spent once and the
    // other tab uses the new pair: exactly one refresh, asserted in web/src/api/sessionLock.test.ts
    // with a LockManager stub. Here, in Chromium, what the customer sees: both tabs stay signed in.
    expect(refreshes.length).toBeGreaterThanOrEqual(1);
    // The session is still alive for both: a reload and a navigation stay in the dashboard.
    await second.reload();
    await second.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    await first.getByRole('link', { name: 'Peers', exact: true }).click();
    await first.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    expect(new URL(first.url()).pathname).toBe('/dashboard/peers');
    expect(new URL(second.url()).pathname).toBe('/dashboard/peers');
    // No theft alarm: the refresh token the tabs share now is live, so the next refusal heals too.
    refreshes.length = 0;
    await first.evaluate(() => localStorage.setItem('access', 'caducado'));
    await first.reload();
    await first.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
    expect(refreshes).toHaveLength(1);
    expect(new URL(first.url()).pathname).toBe('/dashboard/peers');
    await first.context().close();
  });
});

describe('dashboard home', () => {
  it('without announcements: the welcome card and support in a new tab', async () => {
    const username = uniqueName('home');
    await registerCustomer(baseUrl, username, 'clave-home-1');
    const context = await newContext();
    // The demo seed publishes an announcement and managers cannot withdraw one yet, so this
    // state is reached by answering the announcements call with an empty list in the browser.
    await context.route('**/api/client/advertisements', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: '[]' }),
    );
    const page = await signedIn(username, 'clave-home-1', context);
    await page.getByRole('heading', { name: 'Bienvenido a VPN Service' }).waitFor();
    for (const blurb of ['Protección avanzada', 'Alta velocidad', 'Salas privadas']) {
      expect(await page.getByRole('heading', { name: blurb }).isVisible()).toBe(true);
    }
    const support = page.getByRole('link', { name: /Contactar con Soporte/ });
    expect(await support.getAttribute('href')).toBe('https://soporte.example.com/chat');
    expect(await support.getAttribute('target')).toBe('_blank');
    expect(await page.getByRole('heading', { name: 'Anuncios' }).count()).toBe(0);
    await context.close();
  });

  it('with announcements: a newly published one first, with its long Spanish date, and the support centre', async () => {
    const name = uniqueName('Aviso ');
    await manager.publishAnnouncement({ name, message: 'Nuevos servidores disponibles esta semana.' });
    const username = uniqueName('anun');
    await registerCustomer(baseUrl, username, 'clave-anun-1');
    const page = await signedIn(username, 'clave-anun-1');
    const list = page.getByRole('list', { name: 'Anuncios del servicio' });
    await list.waitFor();
    const first = list.getByRole('article').first();
    expect(await first.getByRole('heading').textContent()).toBe(name);
    const today = new Intl.DateTimeFormat('es-ES', { day: 'numeric', month: 'long', year: 'numeric' }).format(
      new Date(),
    );
    expect(await first.locator('time').textContent()).toBe(today);
    expect(await first.getByText('Nuevos servidores disponibles esta semana.').isVisible()).toBe(true);
    const support = page.locator('section', {
      has: page.getByRole('heading', { name: 'Centro de soporte' }),
    });
    expect(await support.getByRole('link', { name: /Contactar con Soporte/ }).getAttribute('target')).toBe(
      '_blank',
    );
    await page.context().close();
  });

  it("shows the client-app banner with 'Descargar' (new tab) until that version is dismissed", async () => {
    const version = `9.${Date.now() % 100000}`;
    await (
      await manager.confirmed(ADMIN_PASSWORD)
    ).publishClientVersion({ version, url: `${baseUrl}/descargas/app-${version}.apk` });
    const username = uniqueName('ver');
    await registerCustomer(baseUrl, username, 'clave-version-1');
    const page = await signedIn(username, 'clave-version-1');
    const banner = page.locator('section', {
      has: page.getByRole('heading', { name: `Nueva versión de la app cliente: ${version}` }),
    });
    await banner.waitFor();

    const [tab] = await Promise.all([
      page.context().waitForEvent('page'),
      banner.getByRole('link', { name: /Descargar/ }).click(),
    ]);
    expect(tab.url()).toBe(`${baseUrl}/descargas/app-${version}.apk`);
    await tab.close();

    await banner.getByRole('button', { name: `Ocultar el aviso de la versión ${version}` }).click();
    await banner.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('list', { name: 'Anuncios del servicio' }).waitFor();
    expect(await page.getByText(/Nueva versión de la app cliente/).count()).toBe(0);

    // The next release is announced again.
    const next = `${version}.1`;
    await (
      await manager.confirmed(ADMIN_PASSWORD)
    ).publishClientVersion({ version: next, url: `${baseUrl}/descargas/app-${next}.apk` });
    await page.reload();
    await page.getByRole('heading', { name: `Nueva versión de la app cliente: ${next}` }).waitFor();
    await page.context().close();
  });
});
