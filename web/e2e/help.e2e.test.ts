/**
 * Issue 32, point 5: apps a Cuban can install, and help that matches the phone. On a phone the
 * help's Android guide offers the APK the panel serves (with its size) and F-Droid, never only
 * Google Play; its steps name what the phone's layout has (no "fila", no "columna"), in Cuban
 * Spanish ("computadora") and "tú".
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { registerCustomer } from './api';
import { launchChromium } from './browser';

const baseUrl = inject('baseUrl');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('help on a phone', () => {
  it('offers the APK the panel serves, with its size, and F-Droid, in words the phone matches', async () => {
    const username = `ayuda${Date.now().toString(36)}`;
    await registerCustomer(baseUrl, username, 'clave-de-ayuda-1');
    const context = await browser.newContext({
      baseURL: baseUrl,
      locale: 'es-ES',
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const errors: string[] = [];
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto('/login');
    await page.getByLabel('Usuario').fill(username);
    await page.getByLabel('Contraseña', { exact: true }).fill('clave-de-ayuda-1');
    await page.getByRole('button', { name: 'Iniciar sesión' }).tap();
    await page.waitForURL('**/dashboard/home');
    await page.goto('/dashboard/help');
    const panel = page.getByRole('tabpanel', { name: 'Android' });
    await panel.waitFor();

    const apk = panel.getByRole('link', { name: 'WireGuard para Android (APK, 9,8 MB)' });
    expect(await apk.getAttribute('href')).toBe('/descargas/wireguard-android.apk');
    const file = await fetch(`${baseUrl}/descargas/wireguard-android.apk`);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-length')).toBe('9800000');
    expect(await panel.getByRole('link', { name: /WireGuard en F-Droid/ }).getAttribute('href')).toBe(
      'https://f-droid.org/packages/com.wireguard.android/',
    );

    const words = (await page.getByRole('main').textContent()) ?? '';
    expect(words).not.toMatch(/\bfila\b|\bcolumna\b|ordenador/i);
    expect(words).toContain('computadora');
    expect(errors).toEqual([]);
    await context.close();
  });
});
