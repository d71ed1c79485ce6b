/**
 * Planes in Chromium against the real control plane: a manager creates a plan in the console (sold
 * at 2 Mbit/s) and a visitor sees it, speed included, on the public /plans; the manager changes its price and the visitor sees the new
 * one; the manager hides it and it is gone from /plans.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, openPage, signInManager } from './browser';

const baseUrl = inject('baseUrl');
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

const newPage = () => openPage(browser, baseUrl, pageErrors);
const managerPage = async () => signInManager(await newPage());

/** The public /plans page, freshly loaded, and the card of the plan called `name` (if any). */
async function publicCard(visitor: Page, name: string) {
  await visitor.goto('/plans');
  await visitor.getByRole('heading', { level: 1 }).waitFor();
  return visitor.getByRole('article', { name });
}

describe('plans from the console to the public page', () => {
  it('creates a plan, changes its price and hides it; /plans follows each step', async () => {
    const page = await managerPage();
    const visitor = await newPage();
    const name = `Plan e2e ${Date.now().toString(36)}`;

    await page
      .getByRole('navigation', { name: 'Secciones de administración' })
      .getByRole('link', { name: 'Planes' })
      .click();
    await page.getByRole('heading', { name: 'Planes' }).waitFor();
    await page.getByRole('button', { name: 'Nuevo plan' }).click();
    const form = page.getByRole('dialog', { name: 'Nuevo plan' });
    await form.getByLabel('Nombre').fill(name);
    await form.getByLabel('Descripción').fill('Sin límite de datos. Soporte por chat');
    await form.getByLabel('Precio (USD)').fill('4.50');
    await form.getByLabel('Validez (días)').fill('30');
    // Sold by speed (issue 35): 2 Mbit/s each way.
    await form.getByLabel('Velocidad de bajada (Mbit/s)').fill('2');
    await form.getByLabel('Velocidad de subida (Mbit/s)').fill('2');
    await form.getByRole('button', { name: 'Crear plan' }).click();
    await page.getByText(`Plan ${name} creado`).waitFor();
    const row = page.getByRole('row', { name: new RegExp(name) });
    await expect.poll(() => row.textContent()).toContain('A la venta');

    // The visitor sees it (the public list is cached for at most a second per instance).
    await expect
      .poll(async () => ((await (await publicCard(visitor, name)).count()) ? 'shown' : 'missing'), {
        timeout: 5000,
      })
      .toBe('shown');
    const card = visitor.getByRole('article', { name });
    expect(await card.textContent()).toContain('4,50 US$');
    expect(await card.textContent()).toContain('Hasta 2 Mbit/s');
    expect(await card.getByRole('listitem').allTextContents()).toEqual([
      'Sin límite de datos',
      'Soporte por chat',
    ]);

    // New price.
    await page.getByRole('button', { name: `Editar ${name}` }).click();
    const edit = page.getByRole('dialog', { name: `Editar ${name}` });
    await edit.getByLabel('Precio (USD)').fill('7.25');
    await edit.getByRole('button', { name: 'Guardar cambios' }).click();
    await page.getByText(`Plan ${name} guardado`).waitFor();
    await expect
      .poll(async () => (await publicCard(visitor, name)).textContent(), { timeout: 5000 })
      .toContain('7,25 US$');

    // Hidden: gone from /plans, still listed (Oculto) in the console.
    await page.getByRole('button', { name: `Ocultar ${name}` }).click();
    await page.getByText(`Plan ${name} oculto: ya no se ofrece`).waitFor();
    await expect.poll(() => row.textContent()).toContain('Oculto');
    await expect.poll(async () => (await publicCard(visitor, name)).count(), { timeout: 5000 }).toBe(0);
  });
});
