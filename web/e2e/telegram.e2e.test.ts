/**
 * The Telegram cards in Chromium against the real control plane, its bot speaking to the server
 * tests' stand-in of the Bot API (`server/test/fakeTelegram.ts`, started here on the port the setup
 * gave the server as `TELEGRAM_API_URL`). The journeys use only what Telegram itself does: the bot
 * polls getUpdates and sends messages; a user pressing «Iniciar» in the bot's chat after opening
 * the t.me link is the `/start <code>` message Telegram delivers to the bot.
 * - a customer, in Ajustes → Telegram: "Vincular Telegram" opens the one-time t.me link, the bot
 *   confirms in the chat, "Ya lo vinculé" shows the switches, a switch holds across a reload, the
 *   used link links no other chat, "Desvincular" tells the chat and brings the button back;
 * - a manager (operations, two-factor on), in Seguridad → "Alertas por Telegram": linking asks for
 *   the password and a code first (issue 26), then the same link, confirmation and "Desvincular".
 * The bot token is saved in Ajustes' API for these journeys and forgotten after them.
 */
import { resolve } from 'node:path';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, registerCustomer, uniqueName } from './api';
import { ADMIN_PASSWORD, launchChromium } from './browser';
import { currentStep, totpAt } from './totp';

const baseUrl = inject('baseUrl');
const TOKEN = '987654321:AAE-e2e-token-for-the-stand-in_xyz';
const BOT = 'panel_e2e_bot';

/** What the journeys use of the stand-in (the server tests' file, not in this package's project). */
interface Sent {
  chatId: number;
  text?: string;
}
interface FakeTelegram {
  readonly sent: Sent[];
  start(port?: number): Promise<string>;
  close(): Promise<void>;
  message(chatId: number, text: string): number;
  waitFor(chatId: number, count?: number, from?: number): Promise<Sent[]>;
}

let browser: Browser;
let owner: ManagerApi;
let telegram: FakeTelegram;
const pageErrors: string[] = [];

beforeAll(async () => {
  const file = resolve(import.meta.dirname, '../../server/test/fakeTelegram.ts');
  const mod = (await import(/* @vite-ignore */ file)) as {
    FakeTelegram: new (token: string, username?: string) => FakeTelegram;
  };
  telegram = new mod.FakeTelegram(TOKEN, BOT);
  await telegram.start(Number(new URL(inject('telegramApiUrl')).port));
  browser = await launchChromium();
  owner = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  // Saved as an owner does in Ajustes: checked with getMe, then the bot polls.
  await (
    await owner.confirmed(ADMIN_PASSWORD)
  ).request('PUT', '/api/admin/settings/telegram', {
    token: TOKEN,
  });
});

afterAll(async () => {
  // The other journeys run against a panel without a bot.
  await (
    await owner?.confirmed(ADMIN_PASSWORD)
  )?.request('PUT', '/api/admin/settings/telegram', {
    token: null,
  });
  await browser?.close();
  await telegram?.close();
});

afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

/**
 * A desktop context whose t.me links open a page of our own (the journeys never leave loopback):
 * the tab the console opens is still seen, with the address it was given.
 */
async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 900 },
  });
  await context.route('https://t.me/**', (route) =>
    route.fulfill({ status: 200, contentType: 'text/html', body: '<title>Telegram</title>' }),
  );
  return context;
}

async function newPage(context: BrowserContext): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  return page;
}

/**
 * Clicks `button` and answers the one-time code of the t.me link the console opened in a new tab
 * (`https://t.me/<bot>?start=<code>`); `between` runs after the click (a confirmation dialog).
 */
async function openedLink(page: Page, button: Locator, between?: () => Promise<void>): Promise<string> {
  const popup = page.waitForEvent('popup');
  await button.click();
  await between?.();
  const tab = await popup;
  await tab.waitForURL('https://t.me/**');
  const url = new URL(tab.url());
  expect(url.pathname).toBe(`/${BOT}`);
  const code = url.searchParams.get('start') ?? '';
  expect(code).not.toBe('');
  await tab.close();
  return code;
}

/** The user writes `text` in the chat `chat` and gets the bot's answer (its next message there). */
async function say(chat: number, text: string): Promise<string> {
  const before = telegram.sent.length;
  telegram.message(chat, text);
  const [answer] = await telegram.waitFor(chat, 1, before);
  return answer?.text ?? '';
}

describe('Telegram in Ajustes (customer)', () => {
  it('links with the one-time t.me link, keeps a switch across a reload, and unlinks', async () => {
    const username = uniqueName('tg');
    const password = 'clave-telegram-e2e';
    await registerCustomer(baseUrl, username, password);
    const page = await newPage(await newContext());
    await page.goto('/login');
    await page.getByLabel('Usuario').fill(username);
    await page.getByLabel('Contraseña', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    await page.waitForURL('**/dashboard/home');
    await page.goto('/dashboard/settings');

    const card = page.getByRole('region', { name: 'Telegram' });
    await card.getByText('Vincula tu Telegram para recibir avisos').waitFor();
    const code = await openedLink(page, card.getByRole('button', { name: 'Vincular Telegram' }));
    // Until the chat is linked the page says what to do, with the same link to open again.
    const note = card.getByRole('status');
    await note.getByText('pulsa «Iniciar» en el chat del bot').waitFor();
    expect(await note.getByRole('link', { name: 'Abrir Telegram' }).getAttribute('href')).toBe(
      `https://t.me/${BOT}?start=${code}`,
    );

    // «Iniciar» in the bot's chat: Telegram delivers "/start <code>" and the bot confirms there.
    const CHAT = 610_001;
    expect(await say(CHAT, `/start ${code}`)).toContain(`vinculado a la cuenta «${username}»`);
    await card.getByRole('button', { name: 'Ya lo vinculé' }).click();
    await card.getByText('Tu cuenta está vinculada a un chat de Telegram.').waitFor();
    const payments = card.getByRole('checkbox', { name: 'Pagos acreditados' });
    const switches = [
      'Vencimientos (72 h y 24 h antes)',
      'Datos (80 % y agotados)',
      'Pagos acreditados',
      'Anuncios',
      'Uso simultáneo detectado',
    ];
    for (const name of switches) expect(await card.getByRole('checkbox', { name }).isChecked()).toBe(true);

    // The switch is the server's answer: it turns off once the change is saved.
    await payments.click();
    await page.getByText('Avisos guardados.').waitFor();
    expect(await payments.isChecked()).toBe(false);
    await page.reload();
    await card.getByText('Tu cuenta está vinculada a un chat de Telegram.').waitFor();
    for (const name of switches)
      expect(await card.getByRole('checkbox', { name }).isChecked(), name).toBe(name !== 'Pagos acreditados');

    // The link served once: another chat sending it links nothing.
    expect(await say(610_002, `/start ${code}`)).toContain('no es válido, ya se usó o caducó');

    await card.getByRole('button', { name: 'Desvincular' }).click();
    await page.getByText('Telegram desvinculado.').waitFor();
    await card.getByRole('button', { name: 'Vincular Telegram' }).waitFor();
    expect(await card.getByRole('checkbox').count()).toBe(0);
    // The chat was told, and the bot no longer knows it.
    const told = telegram.sent.filter((s) => s.chatId === CHAT).at(-1)?.text ?? '';
    expect(told).toContain('Chat desvinculado');
    expect(await say(CHAT, '/peers')).toContain('no está vinculado a ninguna cuenta');
    await page.context().close();
  });
});

describe('Telegram in Seguridad (manager)', () => {
  it('links the manager’s own chat after the password and a code, and unlinks it', async () => {
    const username = uniqueName('tgm');
    const password = 'clave-alertas-e2e';
    await (
      await owner.confirmed(ADMIN_PASSWORD)
    ).request('POST', '/api/admin/managers', { username, password, role: 'operations' });
    // Two-factor enrolled as in Seguridad (managers.e2e.test.ts walks that page): alerts need it.
    const self = await ManagerApi.login(baseUrl, username, password);
    const { secret } = await (
      await self.confirmed(password)
    ).request<{ secret: string }>('POST', '/api/admin/me/totp', {});
    const { recovery_codes: codes } = await self.request<{ recovery_codes: string[] }>(
      'POST',
      '/api/admin/me/totp/confirm',
      { code: totpAt(secret, currentStep()) },
    );

    const page = await newPage(await newContext());
    await page.goto('/manager/login');
    await page.getByLabel('Usuario').fill(username);
    await page.getByLabel('Contraseña', { exact: true }).fill(password);
    await page.getByRole('button', { name: 'Iniciar sesión' }).click();
    // The enrolment spent this 30 s step's code: a recovery code signs in without waiting for the next.
    await page.getByRole('button', { name: 'Usar un código de recuperación' }).click();
    await page.getByLabel('Código de recuperación').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verificar' }).click();
    await page.waitForURL('**/manager/dashboard');
    await page.getByRole('link', { name: 'Seguridad' }).click();

    const card = page
      .locator('div', { has: page.getByRole('heading', { name: 'Alertas por Telegram' }) })
      .last();
    await card.getByText('No vinculado.').waitFor();
    const confirm = page.getByRole('dialog', { name: 'Confirme que es usted' });
    const code = await openedLink(page, card.getByRole('button', { name: 'Vincular Telegram' }), async () => {
      // Whoever links a chat gets the alerts: a stolen session alone must not (issue 26).
      await confirm.getByLabel('Contraseña', { exact: true }).fill(password);
      await confirm.getByLabel('Código de verificación (si la tiene activada)').fill(codes[1]!);
      await confirm.getByRole('button', { name: 'Confirmar' }).click();
    });

    const CHAT = 620_001;
    expect(await say(CHAT, `/start ${code}`)).toContain(`vinculado al gestor «${username}»`);
    await card.getByRole('button', { name: 'Ya lo vinculé' }).click();
    await card.getByText('Este usuario recibe las alertas en Telegram.').waitFor();

    await card.getByRole('button', { name: 'Desvincular' }).click();
    await page.getByText('Telegram desvinculado.').waitFor();
    await card.getByText('No vinculado.').waitFor();
    await card.getByRole('button', { name: 'Vincular Telegram' }).waitFor();
    expect(telegram.sent.filter((s) => s.chatId === CHAT).at(-1)?.text).toContain('Chat desvinculado');
    await page.context().close();
  });
});
