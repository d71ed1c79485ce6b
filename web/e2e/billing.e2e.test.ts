/**
 * Facturas' money side in Chromium against the real control plane (issue 15):
 * 1. an invoice paid by hand is refunded from the console ('Registrar un reembolso hecho por otra
 *    vía', the sandbox gateway cannot send money back): the invoice reads 'Reembolsada' with who and
 *    why, and the customer's peer marks the plan 'Reembolsado' in its plan history;
 * 2. 'Exportar CSV' saves a real file (fetched with the bearer token) whose row of that invoice
 *    holds the plan's price as charged and refunded, and the totals line of 'Ingresos por mes' moved
 *    by exactly that price in both columns (the journeys run one file at a time, so nothing else
 *    pays meanwhile). The expectations come from what this test paid, not from the server's sums.
 */
import { readFile } from 'node:fs/promises';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ManagerApi, connectAgent, firstPlan, registerCustomer, uniqueName } from './api';
import type { AgentHandle } from './api';
import { ADMIN_PASSWORD, launchChromium, openPage, signInManager } from './browser';

const baseUrl = inject('baseUrl');
const PASSWORD = 'secreto-facturacion-e2e';
let browser: Browser;
let agent: AgentHandle | null = null;
let manager: ManagerApi;
const pageErrors: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  // A new peer needs an active server to live on (the e2e server starts without one).
  manager = await ManagerApi.login(baseUrl, 'admin', ADMIN_PASSWORD);
  const tag = Date.now().toString(36);
  // A new peer is sold only where an agent answers: a stand-in agent keeps this server online.
  const created = await (
    await manager.confirmed(ADMIN_PASSWORD)
  ).createServer({
    name: `Braga ${tag}`,
    endpoint: `brg-${tag}.vpn.example.com:51850`,
    ubication: 'Braga, Portugal',
  });
  agent = await connectAgent(baseUrl, created.agent_token);
});
afterAll(async () => {
  await agent?.close();
  await browser?.close();
});
afterEach(() => {
  expect(pageErrors).toEqual([]);
  pageErrors.length = 0;
});

const newPage = () => openPage(browser, baseUrl, pageErrors);
const nav = (page: Page) => page.getByRole('navigation', { name: 'Secciones de administración' });

async function customerLogin(page: Page, username: string): Promise<void> {
  await page.goto('/login');
  await page.getByLabel('Usuario').fill(username);
  await page.getByLabel('Contraseña', { exact: true }).fill(PASSWORD);
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  await page.waitForURL('**/dashboard/home');
}

/** A customer's new_peer invoice, created through the client API and left unpaid at the gateway. */
async function openInvoice(page: Page, peer: string): Promise<string> {
  const access = await page.evaluate(
    () => localStorage.getItem('access') ?? sessionStorage.getItem('access'),
  );
  const res = await fetch(`${baseUrl}/api/client/invoices`, {
    method: 'PUT',
    headers: {
      'Content-Type': 'application/json',
      'X-Requested-With': 'XMLHttpRequest',
      Authorization: `Bearer ${access}`,
    },
    body: JSON.stringify({ operation: 'new_peer', peer, plan: (await firstPlan(baseUrl)).id }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { id: string }).id;
}

/** "1.234,50 US$" (as es-ES prints it) → 123450 cents, read from what the operator sees. */
function centsShown(text: string): number {
  const match = /(-?)([\d.]+),(\d{2})\s*US\$/.exec(text.replace(/\u00a0/g, ' '));
  if (!match) throw new Error(`sin importe en «${text}»`);
  const cents = Number(match[2]!.replace(/\./g, '')) * 100 + Number(match[3]);
  return match[1] ? -cents : cents;
}

/** RFC 4180 lines → rows of fields (quoted fields may hold commas, quotes and line breaks). */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += c;
  }
  if (field || row.length) rows.push([...row, field]);
  return rows;
}

/** A CSV amount ("3.50", "3.5", "-1.25", "12") → cents, exactly; anything else is an error. */
function centsOf(text: string | undefined): number {
  const match = /^(-?)(\d+)(?:\.(\d{1,2}))?$/.exec(text ?? '');
  if (!match) throw new Error(`importe ilegible: «${text}»`);
  const cents = Number(match[2]) * 100 + Number((match[3] ?? '').padEnd(2, '0'));
  return match[1] ? -cents : cents;
}

describe('Facturas: refunds, revenue and the CSV', () => {
  it('refunds a paid invoice by hand; the customer sees it; the CSV adds up to the revenue table', async () => {
    const username = uniqueName('reembolso');
    await registerCustomer(baseUrl, username, PASSWORD);
    const customer = await newPage();
    await customerLogin(customer, username);
    // What the revenue table said before this test paid anything.
    const before = (
      await manager.request<{ totals: { paid: string; refunded: string; net: string } }>(
        'GET',
        '/api/admin/invoices/revenue',
      )
    ).totals;
    const price = Math.round((await firstPlan(baseUrl)).price * 100);
    const id = await openInvoice(customer, 'devuelto');
    await manager.request('PATCH', `/api/admin/invoices/${id}`, {
      operation: 'mark_paid',
      reason: 'Transferencia BPA 5521',
    });

    const page = await signInManager(await newPage());
    await page.goto(`/manager/dashboard/invoices/${id}`);
    await page.getByRole('button', { name: 'Reembolsar' }).click();
    const dialog = page.getByRole('dialog', { name: 'Reembolsar la factura' });
    await dialog.getByText('El periodo que compró esta factura se retira del peer devuelto').waitFor();
    // The sandbox gateway cannot send money back: only the record is offered.
    expect(await dialog.getByRole('radio').count()).toBe(1);
    expect(
      await dialog.getByRole('radio', { name: 'Registrar un reembolso hecho por otra vía' }).isChecked(),
    ).toBe(true);
    await dialog.getByLabel('Motivo').fill('Devuelto por transferencia BPA 7788');
    // Red, with the money on the button (issue 34).
    const confirm = dialog.getByRole('button', { name: /^Reembolsar \d+,\d\d\sUS\$$/ });
    expect(await confirm.evaluate((b) => b.className)).toContain('bg-red-600');
    await confirm.click();
    await page.getByText('Factura reembolsada: el periodo que compró se retiró del peer').waitFor();
    await page.getByText('Devuelto por transferencia BPA 7788').waitFor();
    await page.getByText('Registrado a mano (sin reembolso en la pasarela)').waitFor();
    expect(await page.getByRole('button', { name: 'Reembolsar' }).count()).toBe(0);

    // The customer's peer: the plan it bought reads 'Reembolsado' in its history.
    await customer.getByRole('link', { name: 'Peers', exact: true }).click();
    await customer.getByRole('button', { name: 'Acciones del peer devuelto' }).click();
    await customer.getByRole('menuitem', { name: 'Detalles' }).click();
    const details = customer.getByRole('dialog', { name: 'Detalles del peer devuelto' });
    await details.getByRole('table', { name: 'Historial de planes' }).getByText('Reembolsado').waitFor();

    // The CSV of every invoice, saved by the browser, against the revenue table's totals line.
    await nav(page).getByRole('link', { name: 'Facturas' }).click();
    await page.getByRole('table', { name: 'Facturas' }).waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Exportar CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^facturas-\d{8}\.csv$/);
    const rows = parseCsv((await readFile((await download.path())!, 'utf8')).replace(/^\uFEFF/, ''));
    const header = rows[0]!;
    const col = (name: string) => header.indexOf(name);
    const ours = rows.find((r) => r[col('factura')] === id);
    expect(ours?.[col('estado')]).toBe('refunded');
    expect(ours?.[col('motivo')]).toBe('Devuelto por transferencia BPA 7788');
    expect(centsOf(ours?.[col('importe')])).toBe(price);
    expect(centsOf(ours?.[col('cobrado')])).toBe(price);
    expect(centsOf(ours?.[col('reembolsado')])).toBe(price);

    await page.getByRole('tab', { name: 'Ingresos por mes' }).click();
    const totals = page.getByRole('table', { name: 'Ingresos por mes' }).getByRole('row', { name: /^Total/ });
    await totals.waitFor();
    const cells = await totals.getByRole('cell').allTextContents();
    // Cobrado, Reembolsado, Neto (after the row header and the gateway): this test's payment and its
    // refund each moved their column by the price, and the net by nothing.
    expect(centsShown(cells[1]!)).toBe(centsOf(before.paid) + price);
    expect(centsShown(cells[2]!)).toBe(centsOf(before.refunded) + price);
    expect(centsShown(cells[3]!)).toBe(centsOf(before.net));
  });
});
