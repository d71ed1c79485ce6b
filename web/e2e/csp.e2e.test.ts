/**
 * The Content-Security-Policy of issue 10 (server/src/plugins/security.ts, docs/security.md) in
 * Chromium against the real build and server: every page a visitor, a customer and a manager reach
 * works under it, the ALTCHA proof of work included (its workers start from blob: URLs), and the
 * browser reports no violation — neither as a `securitypolicyviolation` event nor in the console.
 *
 * Turnstile is not exercised here: it needs Cloudflare's servers (the server test checks its sources).
 */
import { createHash } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { uniqueName } from './api';
import { launchChromium, signInManager } from './browser';
import { TAP_CAPTURE } from '../scripts/tapCapture';

/** The source the policy must name for the pages' inline tap capture (server: `TAP_CAPTURE_HASH`). */
const TAP_CAPTURE_SHA = `'sha256-${createHash('sha256').update(TAP_CAPTURE).digest('base64')}'`;

const baseUrl = inject('baseUrl');
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

interface Watched {
  page: Page;
  context: BrowserContext;
  /** Violations reported by the document's `securitypolicyviolation` event. */
  violations: string[];
  /** Console messages about the policy (workers' refusals show only here). */
  console: string[];
  errors: string[];
}

/** A page whose CSP violations and uncaught errors, across navigations, are collected. */
async function watchedPage(): Promise<Watched> {
  const context = await browser.newContext({
    baseURL: baseUrl,
    locale: 'es-ES',
    viewport: { width: 1280, height: 900 },
  });
  const watched: Watched = {
    page: null as unknown as Page,
    context,
    violations: [],
    console: [],
    errors: [],
  };
  await context.exposeBinding('__reportCspViolation', (_source, text: string) => {
    watched.violations.push(text);
  });
  await context.addInitScript(() => {
    const report = (window as unknown as { __reportCspViolation: (text: string) => void })
      .__reportCspViolation;
    document.addEventListener('securitypolicyviolation', (e) =>
      report(
        `${e.effectiveDirective} bloqueó ${e.blockedURI || '(inline)'} en ${e.sourceFile}:${e.lineNumber}`,
      ),
    );
  });
  const page = await context.newPage();
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) watched.console.push(message.text());
  });
  page.on('pageerror', (error) => watched.errors.push(error.message));
  watched.page = page;
  return watched;
}

/** Opens `path` and checks the policy is the one in force (a page without it would prove nothing). */
async function visit({ page }: Watched, path: string): Promise<void> {
  const response = await page.goto(path);
  const policy = response?.headers()['content-security-policy'] ?? '';
  // The build's own files and the one inline script of the pre-rendered pages, by its hash.
  expect(policy, path).toMatch(/(^|;)\s*script-src 'self' '[^']+'\s*(;|$)/);
  expect(policy, path).toContain(`script-src 'self' ${TAP_CAPTURE_SHA}`);
  expect(policy, path).toContain("frame-ancestors 'none'");
}

function expectClean(watched: Watched): void {
  expect(watched.violations).toEqual([]);
  expect(watched.console).toEqual([]);
  expect(watched.errors).toEqual([]);
}

/**
 * Runs a journey on a watched page; when a step fails (a blocked captcha never verifies), the
 * violations are the error shown, rather than the timeout they caused.
 */
async function journey(run: (watched: Watched) => Promise<void>): Promise<void> {
  const watched = await watchedPage();
  try {
    await run(watched);
  } catch (error) {
    expectClean(watched);
    throw error;
  } finally {
    await watched.context.close();
  }
  expectClean(watched);
}

describe('pages under the Content-Security-Policy', () => {
  it('public pages, registration with the real ALTCHA captcha, and the customer dashboard', () =>
    journey(async (watched) => {
      const { page } = watched;

      await visit(watched, '/');
      await page.getByRole('heading', { level: 1 }).waitFor();

      await visit(watched, '/plans');
      await page.getByRole('article').first().waitFor();

      await visit(watched, '/login');
      await page.getByRole('heading', { name: 'Iniciar sesión' }).waitFor();

      // The widget loads at the first interaction; its proof of work runs in blob: workers.
      const username = uniqueName('csp');
      const password = 'secreto-csp-1';
      await visit(watched, '/register');
      await page.getByLabel('Usuario').fill(username);
      await page.getByLabel('Contraseña', { exact: true }).fill(password);
      await page.getByLabel('Confirmar contraseña').fill(password);
      // The captcha solves itself (ALTCHA's automatic mode, issue 32): nothing to tick.
      await page.getByText('Verificado', { exact: true }).waitFor({ timeout: 30_000 });
      await page.getByRole('button', { name: 'Registrarse' }).click();
      await page.getByRole('heading', { name: 'Registro Completado' }).waitFor();

      await visit(watched, '/login');
      await page.getByLabel('Usuario').fill(username);
      await page.getByLabel('Contraseña', { exact: true }).fill(password);
      await page.getByRole('button', { name: 'Iniciar sesión' }).click();
      await page.getByRole('button', { name: `Hola, ${username}` }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/dashboard/home');

      // A document load of a dashboard page (the SPA shell), with the live connection (/ws).
      await visit(watched, '/dashboard/peers');
      await page.getByRole('heading', { name: 'Peers Wireguard' }).waitFor();
      // The user menu (a Radix popover) writes inline styles.
      await page.getByRole('button', { name: `Hola, ${username}` }).click();
      await page.getByRole('menuitem', { name: 'Cerrar sesión' }).waitFor();
    }));

  it('the manager console', () =>
    journey(async (watched) => {
      const { page } = watched;
      await visit(watched, '/manager/login');
      await signInManager(page);
      await page.getByRole('heading', { name: 'Resumen' }).waitFor();
      await page.getByRole('figure', { name: 'Peers activos' }).locator('canvas').first().waitFor();

      const nav = page.getByRole('navigation', { name: 'Secciones de administración' });
      await nav.getByRole('link', { name: 'Servidores' }).click();
      await page.getByRole('heading', { name: 'Servidores' }).waitFor();
      // A dialog: its scroll lock injects a stylesheet.
      await page.getByRole('button', { name: 'Nuevo servidor' }).click();
      await page.getByRole('dialog', { name: 'Nuevo servidor' }).waitFor();
      await page.keyboard.press('Escape');
      await page.getByRole('dialog', { name: 'Nuevo servidor' }).waitFor({ state: 'detached' });

      await visit(watched, '/manager/dashboard');
      await page.getByRole('heading', { name: 'Resumen' }).waitFor();
    }));
});
