/**
 * Refunds and the money side of Facturas (issue 15): a paid Remesita invoice refunded through
 * Remesita's refund API, any paid invoice recorded as refunded by hand, the period it bought taken
 * back from the peer; the revenue table and the CSV export, whose columns add up to the same totals.
 * Expectations come from what was bought and paid here (amounts, dates), never from the code's own
 * helpers; the CSV is read back with a parser written here from RFC 4180.
 */
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingMsg } from '@vpn/contracts';
import { auditLog, invoices, peers } from '../../db/schema.ts';
import { bearer, createTestApp, managerToken, setSettings, type TestApp } from '../../../test/helpers.ts';
import { customerPayments, openShop } from '../../../test/payments.ts';
import { FakeRemesita } from '../../../test/fakeRemesita.ts';

let t: TestApp;
let remesita: FakeRemesita;
let planId: number;
let owner: string;
let finance: string;
let support: string;
const DAY = 86_400_000;

beforeAll(async () => {
  remesita = await FakeRemesita.start();
  t = await createTestApp({
    scheduler: false,
    env: {
      REMESITA_API_KEY: 'rk-1',
      REMESITA_API_SECRET: 'rs-1',
      REMESITA_BUSINESS_ID: 'bu-1',
      REMESITA_BASE_URL: remesita.baseUrl,
      PUBLIC_URL: 'https://panel.example',
      PAYMENTS_SANDBOX: 'true',
    },
  });
  remesita.deliver = async (url, body) => {
    const res = await t.app.inject({ method: 'POST', url: new URL(url).pathname, payload: body });
    return { status: res.statusCode, body: res.body };
  };
  owner = await managerToken(t, 'owner');
  finance = await managerToken(t, 'finance');
  support = await managerToken(t, 'support');
  planId = await openShop(t, owner);
  await setSettings(t, { allow_payments_qvapay: false, allow_payments_remesita: true });
});
afterAll(async () => {
  await t.close();
  await remesita.close();
});

const { buyer, put, myPeers } = customerPayments(() => t);
const refund = (token: string, id: string, payload: object) =>
  t.app.inject({ method: 'POST', url: `/api/admin/invoices/${id}/refund`, headers: bearer(token), payload });
const expiryOf = async (peerId: number) =>
  (await t.ctx.db.select().from(peers).where(eq(peers.id, peerId)))[0]!.expiresAt!.getTime();

/** A new peer bought and paid with Remesita (its IPN), delivered. */
async function paidWithRemesita(access: string, name: string) {
  const res = await put(access, { operation: 'new_peer', peer: name, plan: planId, gateway: 'remesita' });
  const id = res.json().id as string;
  await remesita.pay(id);
  return { id, ref: remesita.linkOf(id).ref };
}

/** A plan bought for an existing peer through the sandbox gateway (Remesita switched off meanwhile). */
async function paidWithSandbox(access: string, payload: object) {
  await setSettings(t, { allow_payments_remesita: false });
  try {
    const res = await put(access, payload);
    expect(res.statusCode).toBe(200);
    const id = res.json().id as string;
    await t.app.inject({ method: 'POST', url: `/api/payments/sandbox/${id}/pay` });
    return id;
  } finally {
    await setSettings(t, { allow_payments_remesita: true });
  }
}

describe('refunds', () => {
  it('through Remesita: the money is sent back by reference, the invoice is refunded and the new peer’s period is gone', async () => {
    const c = await buyer();
    const { id, ref } = await paidWithRemesita(c.access, 'Móvil');
    const [peer] = await myPeers(c.access);
    expect(peer).toMatchObject({ name: 'Móvil', active: true });

    expect((await refund(support, id, { method: 'manual', reason: 'Pidió la devolución' })).statusCode).toBe(
      403,
    );
    const res = await refund(finance, id, { method: 'gateway', reason: 'Pidió la devolución' });
    expect(res.statusCode).toBe(200);
    expect(remesita.refunds).toContainEqual(
      expect.objectContaining({ reference: ref, amount: 3.5, reason: 'Pidió la devolución' }),
    );
    const sent = remesita.refunds.find((r) => r.reference === ref)!;
    expect(res.json()).toMatchObject({
      status: 'refunded',
      refund_reason: 'Pidió la devolución',
      refund_reference: sent.id,
      refundable_by_gateway: false,
    });
    expect(res.json().refunded_by.username).toBeTruthy();
    // The peer bought by it has no period left: off its server, and the history says why.
    const [after] = await myPeers(c.access);
    expect(after.active).toBe(false);
    expect(new Date(after.expiration_date).getTime()).toBeLessThanOrEqual(Date.now());
    expect(after.plans_history[0]).toMatchObject({ plan_name: 'Mensual', plan_price: 3.5 });
    expect(after.plans_history[0].refunded).toEqual(expect.any(String));
    const [entry] = await t.ctx.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.action} = 'invoice.refund' and ${auditLog.targetId} = ${id}`);
    expect(entry?.data).toMatchObject({ reason: 'Pidió la devolución', extra: { method: 'gateway' } });

    // Once refunded: neither refunded again nor marked paid again.
    expect((await refund(owner, id, { method: 'manual', reason: 'otra vez' })).json().message).toBe(
      billingMsg.refundNotPaid,
    );
    const mark = await t.app.inject({
      method: 'PATCH',
      url: `/api/admin/invoices/${id}`,
      headers: bearer(owner),
      payload: { operation: 'mark_paid', reason: 'Transferencia' },
    });
    expect(mark.statusCode).toBe(409);
    // The same payment notified again credits nothing.
    expect(JSON.parse((await remesita.complete(id)).body)).toMatchObject({ credited: false });
  });

  it('Remesita refusing the refund changes nothing and says why', async () => {
    const c = await buyer();
    const { id } = await paidWithRemesita(c.access, 'Router');
    remesita.refundError = 'Saldo insuficiente';
    try {
      const res = await refund(owner, id, { method: 'gateway', reason: 'Devolución' });
      expect(res.statusCode).toBe(502);
      expect(res.json().message).toBe(
        billingMsg.refundGatewayFailed.replace('{reason}', 'Saldo insuficiente'),
      );
    } finally {
      remesita.refundError = null;
    }
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
    expect(row).toMatchObject({ status: 'paid', refundedAt: null, refundStartedAt: null });
    expect((await myPeers(c.access))[0].active).toBe(true);
  });

  it('by hand: an added plan’s 30 days come off the expiry, the earlier period stays', async () => {
    const c = await buyer();
    const { id: first } = await paidWithRemesita(c.access, 'Casa');
    const [peer] = await myPeers(c.access);
    const before = await expiryOf(peer.id);
    const second = await paidWithSandbox(c.access, { operation: 'add_plan', peer: peer.id, plan: planId });
    expect(await expiryOf(peer.id)).toBe(before + 30 * DAY);

    // The sandbox has no refund API: only by hand.
    const viaGateway = await refund(owner, second, { method: 'gateway', reason: 'No lo usó' });
    expect(viaGateway.statusCode).toBe(400);
    expect(viaGateway.json().message).toBe(billingMsg.refundGatewayUnsupported);
    const res = await refund(owner, second, { method: 'manual', reason: 'No lo usó' });
    expect(res.json()).toMatchObject({ status: 'refunded', refund_reference: null });
    expect(await expiryOf(peer.id)).toBe(before);
    const [after] = await myPeers(c.access);
    expect(after.active).toBe(true);
    expect(after.plans_history.map((h: { refunded?: string | null }) => Boolean(h.refunded))).toEqual([
      true,
      false,
    ]);
    // The earlier period's invoice stays paid and counted; only the one refunded is.
    const rows = await t.ctx.db
      .select()
      .from(invoices)
      .where(sql`${invoices.id} in (${first}, ${second})`);
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({
      [first]: 'paid',
      [second]: 'refunded',
    });
  });

  it('refuses what is not paid and bad input, in Spanish, changing nothing', async () => {
    const c = await buyer();
    const res = await put(c.access, {
      operation: 'new_peer',
      peer: 'Pend',
      plan: planId,
      gateway: 'remesita',
    });
    const id = res.json().id as string;
    expect((await refund(owner, id, { method: 'manual', reason: 'x'.repeat(5) })).statusCode).toBe(409);
    const bad = await refund(owner, id, { method: 'cheque', reason: 'ab' });
    expect(bad.statusCode).toBe(400);
    expect(JSON.stringify(bad.json())).toContain('El método debe ser gateway o manual');
    expect(
      (await refund(owner, '00000000-0000-4000-8000-000000000000', { method: 'manual', reason: 'abc' }))
        .statusCode,
    ).toBe(404);
    const [row] = await t.ctx.db.select().from(invoices).where(eq(invoices.id, id));
    expect(row!.status).toBe('pending');
  });
});

/** RFC 4180, read independently of the writer: quoted fields, doubled quotes, CRLF records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\r' && text[i + 1] === '\n') {
      row.push(field);
      rows.push(row);
      row = [];
      field = '';
      i++;
    } else field += ch;
  }
  if (field !== '' || row.length > 0) throw new Error('the last record does not end with CRLF');
  return rows;
}

describe('revenue and the CSV export (owner and finance)', () => {
  it('the CSV holds every invoice, RFC 4180, and its columns add up to the revenue table', async () => {
    const c = await buyer();
    // A peer name a spreadsheet would misread: comma, quote, line break and a formula.
    const { id: paid } = await paidWithRemesita(c.access, '=SUMA(1,2) "x"');
    const [peer] = await myPeers(c.access);
    const extra = await paidWithSandbox(c.access, { operation: 'add_plan', peer: peer.id, plan: planId });
    const month = new Date().toISOString().slice(0, 7);
    const sandboxRow = async () => {
      const res = await t.app.inject({
        method: 'GET',
        url: '/api/admin/invoices/revenue',
        headers: bearer(owner),
      });
      return res
        .json()
        .rows.find(
          (r: { month: string; gateway: string }) => r.month === month && r.gateway === 'sandbox',
        ) as {
        refunded: string;
        refunded_count: number;
      };
    };
    const before = await sandboxRow();
    await refund(owner, extra, { method: 'manual', reason: 'Error, "doble"\ncobro' });
    // The refund of 3.50 through the sandbox shows in this month's sandbox row, once.
    const after = await sandboxRow();
    expect(after.refunded_count).toBe((before?.refunded_count ?? 0) + 1);
    expect(Math.round(Number(after.refunded) * 100)).toBe(
      Math.round(Number(before?.refunded ?? 0) * 100) + 350,
    );

    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/invoices/export.csv', headers: bearer(support) }))
        .statusCode,
    ).toBe(403);
    expect(
      (await t.app.inject({ method: 'GET', url: '/api/admin/invoices/revenue', headers: bearer(support) }))
        .statusCode,
    ).toBe(403);

    const csv = await t.app.inject({
      method: 'GET',
      url: '/api/admin/invoices/export.csv',
      headers: bearer(finance),
    });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toMatch(/^attachment; filename="facturas-\d{8}\.csv"$/);
    expect(csv.body.startsWith('\uFEFF')).toBe(true);
    const [header, ...records] = parseCsv(csv.body.slice(1));
    const col = (name: string) => header!.indexOf(name);
    const all = await t.ctx.db.select({ id: invoices.id }).from(invoices);
    expect(records).toHaveLength(all.length);
    expect(records.every((r) => r.length === header!.length)).toBe(true);
    const mine = records.find((r) => r[col('factura')] === paid)!;
    expect(mine[col('peer')]).toBe(`'=SUMA(1,2) "x"`);
    expect(mine[col('importe')]).toBe('3.50');
    expect(mine[col('pagada_utc')]).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const refunded = records.find((r) => r[col('factura')] === extra)!;
    expect(refunded[col('motivo')]).toBe('Error, "doble"\ncobro');
    expect(refunded[col('reembolsado')]).toBe('3.50');

    const revenue = await t.app.inject({
      method: 'GET',
      url: '/api/admin/invoices/revenue',
      headers: bearer(owner),
    });
    expect(revenue.statusCode).toBe(200);
    const table = revenue.json();
    const cents = (s: string) => Math.round(Number(s) * 100);
    const sum = (name: string) => records.reduce((acc, r) => acc + cents(r[col(name)]!), 0);
    expect(cents(table.totals.paid)).toBe(sum('cobrado'));
    expect(cents(table.totals.refunded)).toBe(sum('reembolsado'));
    expect(cents(table.totals.net)).toBe(sum('cobrado') - sum('reembolsado'));
    // Independently: every invoice paid here cost 3.50, and this month holds them all.
    const paidCount = records.filter((r) => r[col('pagada_utc')] !== '').length;
    const thisMonth = table.rows.filter((r: { month: string }) => r.month === month);
    expect(thisMonth.reduce((a: number, r: { paid: string }) => a + cents(r.paid), 0)).toBe(paidCount * 350);
    // Every refunded invoice here was refunded this month: the table's count is the CSV's.
    const refundedCount = records.filter((r) => r[col('estado')] === 'refunded').length;
    expect(thisMonth.reduce((a: number, r: { refunded_count: number }) => a + r.refunded_count, 0)).toBe(
      refundedCount,
    );

    // The list's filters apply: only refunded ones.
    const only = await t.app.inject({
      method: 'GET',
      url: '/api/admin/invoices/export.csv?state=refunded',
      headers: bearer(owner),
    });
    const [, ...refundedRows] = parseCsv(only.body.slice(1));
    expect(refundedRows.length).toBeGreaterThan(0);
    expect(refundedRows.every((r) => r[col('estado')] === 'refunded')).toBe(true);
  });

  it('streams a long export in order, past one read batch, without losing or repeating a row', async () => {
    const c = await buyer();
    const [customer] = await t.ctx.db
      .execute(sql`select id from customers where username = ${c.username}`)
      .then((r) => (r as unknown as { rows: { id: number }[] }).rows);
    // 1,234 invoices, several sharing one creation instant (the keyset must break ties by id).
    await t.ctx.db.execute(sql`
      insert into invoices (customer_id, operation, new_peer_name, plan_id, plan_name, amount, gateway, status, created_at)
      select ${customer!.id}, 'new_peer', 'Lote ' || g, ${planId}, 'Mensual', '3.50', 'sandbox', 'canceled',
             timestamp with time zone '2026-01-01 00:00:00+00' + (g / 3) * interval '1 second'
      from generate_series(1, 1234) g`);
    const csv = await t.app.inject({
      method: 'GET',
      url: `/api/admin/invoices/export.csv?q=${encodeURIComponent(c.username)}`,
      headers: bearer(owner),
    });
    const [header, ...records] = parseCsv(csv.body.slice(1));
    // The order expected, worked out here from the rows themselves: newest first, ties by id
    // (descending, as PostgreSQL orders uuids: by their bytes, which is their lowercase hex text).
    const stored = await t.ctx.db
      .select({ id: invoices.id, created: invoices.createdAt })
      .from(invoices)
      .where(eq(invoices.customerId, customer!.id));
    const expected = stored
      .sort((a, b) => b.created.getTime() - a.created.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((r) => r.id);
    expect(expected).toHaveLength(1234);
    expect(records.map((r) => r[header!.indexOf('factura')])).toEqual(expected);
  });
});
