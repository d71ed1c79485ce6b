/**
 * The manager console's frame in Chromium at the sizes managers use it (issues 28 and 34):
 * - at 1280 × 800 and 1366 × 768 (laptops) every section's link is whole inside the window, with
 *   nothing on top of it, without scrolling anything (the sidebar);
 * - on a 390 px phone the section bar either shows its last section ("Auditoría") whole, or shows
 *   the button that scrolls to the sections that follow; once scrolled to the end, "Auditoría" is
 *   whole and the button is gone; the header (company name, Seguridad, "Cerrar sesión") stays one
 *   line tall.
 */
import type { Browser, Locator, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, signInManager } from './browser';

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

async function consoleAt(width: number, height: number, mobile = false): Promise<Page> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width, height },
    isMobile: mobile,
    hasTouch: mobile,
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await signInManager(page);
  await page.getByRole('heading', { name: 'Resumen' }).waitFor();
  return page;
}

/** Whether `item` lies wholly inside the visible part of `scroller` and of the window. */
async function whollyVisible(item: Locator, scroller: Locator, page: Page): Promise<boolean> {
  const box = await item.boundingBox();
  const frame = await scroller.boundingBox();
  const width = page.viewportSize()!.width;
  if (!box || !frame) return false;
  const left = Math.max(frame.x, 0);
  const right = Math.min(frame.x + frame.width, width);
  return box.x >= left - 0.5 && box.x + box.width <= right + 0.5 && box.width > 0;
}

/** An element that covers the point at the middle of `item`, if it is not the item itself. */
async function coveredAtMiddle(item: Locator): Promise<boolean> {
  return item.evaluate((el) => {
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return !top || !el.contains(top);
  });
}

async function checkSectionBar(page: Page) {
  const nav = page.getByRole('navigation', { name: 'Secciones de administración' });
  const last = nav.getByRole('link', { name: 'Auditoría' });
  const more = nav.getByRole('button', { name: 'Más secciones' });
  // The box the sections scroll in: the links' own parent.
  const scroller = last.locator('xpath=..');
  await last.waitFor({ state: 'attached' });
  if (await whollyVisible(last, scroller, page)) {
    // Everything fits: no affordance, and nothing lies on top of the last section.
    expect(await more.isVisible()).toBe(false);
    expect(await coveredAtMiddle(last)).toBe(false);
    return;
  }
  // Cut at the edge: the button that says more follows is there, and it brings the rest in.
  expect(await more.isVisible()).toBe(true);
  for (let i = 0; i < 10 && (await more.isVisible()); i++) {
    // The row scrolls smoothly: the next look waits for the scroll to end.
    const ended = scroller.evaluate(
      (el) => new Promise((done) => el.addEventListener('scrollend', () => done(null), { once: true })),
    );
    await more.click();
    await ended;
  }
  await expect.poll(() => whollyVisible(last, scroller, page)).toBe(true);
  await expect.poll(() => more.isVisible()).toBe(false);
  expect(await coveredAtMiddle(last)).toBe(false);
  // …and the first section is now behind the button that scrolls back.
  await nav.getByRole('button', { name: 'Secciones anteriores' }).waitFor();
}

/** The sections an owner sees, in the navigation's order (docs/permissions.md). */
const SECTIONS = [
  'Resumen',
  'Clientes',
  'Peers',
  'Servidores',
  'Planes',
  'Facturas',
  'Salas',
  'Contenido',
  'Ajustes',
  'Gestores',
  'Auditoría',
];

describe('console frame', () => {
  for (const [width, height] of [
    [1280, 800],
    [1366, 768],
  ] as const) {
    it(`at ${width} × ${height} every section's link is in view without scrolling`, async () => {
      const page = await consoleAt(width, height);
      const nav = page.getByRole('navigation', { name: 'Secciones de administración' });
      const links = nav.getByRole('link');
      expect(await links.allTextContents()).toEqual(SECTIONS);
      for (const name of SECTIONS) {
        const link = nav.getByRole('link', { name, exact: true });
        const box = (await link.boundingBox())!;
        expect(box, name).not.toBeNull();
        expect(box.x, name).toBeGreaterThanOrEqual(0);
        expect(box.y, name).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name).toBeLessThanOrEqual(width);
        expect(box.y + box.height, name).toBeLessThanOrEqual(height);
        expect(await coveredAtMiddle(link), name).toBe(false);
      }
      // Nothing was scrolled to get there, and no button hides sections behind it.
      expect(await page.evaluate(() => [window.scrollX, window.scrollY])).toEqual([0, 0]);
      expect(await nav.getByRole('button', { name: 'Más secciones' }).count()).toBe(0);
      // The page uses the screen: the content column starts beside the sidebar and reaches
      // within 40 px of the window's right edge (it was a 1152 px column with wide margins).
      const main = (await page.getByRole('main').boundingBox())!;
      expect(main.x + main.width).toBeGreaterThan(width - 40);
      await page.context().close();
    });
  }

  it('on a 390 px phone the header is one line and the section bar says that more follows', async () => {
    const page = await consoleAt(390, 844, true);
    const header = page.getByRole('banner');
    const company = header.getByText('VPN Service', { exact: true });
    const security = header.getByRole('link', { name: 'Seguridad' });
    const logout = header.getByRole('button', { name: 'Cerrar sesión' });
    const boxes = await Promise.all([header, company, security, logout].map((l) => l.boundingBox()));
    const [bar, ...items] = boxes.map((b) => b!) as [
      NonNullable<(typeof boxes)[number]>,
      ...NonNullable<(typeof boxes)[number]>[],
    ];
    // One row of 64 px (h-16): no item is taller than one line of its text and all sit in that row.
    expect(bar.height).toBeLessThanOrEqual(65);
    for (const item of items) {
      expect(item.height).toBeLessThanOrEqual(44);
      expect(item.y).toBeGreaterThanOrEqual(bar.y);
      expect(item.y + item.height).toBeLessThanOrEqual(bar.y + bar.height);
      expect(item.x + item.width).toBeLessThanOrEqual(390);
    }
    // The sign-out button still works from the phone.
    await checkSectionBar(page);
    await logout.click();
    await page.waitForURL('**/manager/login');
    await page.context().close();
  });
});
