/**
 * Facturas' money side for owner and finance: the month-by-month revenue table per gateway (paid,
 * refunded, net), the invoices as a CSV file (the list's filters, streamed, RFC 4180) and the
 * payments that arrived without an open invoice. Amounts are summed by the database in numeric
 * (never in floating point) and printed with 2 decimals; months and dates are UTC.
 */
import { Readable } from 'node:stream';
import { and, count, desc, eq, isNotNull, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import {
  billingMsg,
  type InvoiceListQuery,
  type Paged,
  type RevenueTable,
  type UnmatchedPayment,
  type UnmatchedPaymentQuery,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { invoices, paymentNotices } from '../../db/schema.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { invoiceFilter, presentRows, selectPresented } from './invoiceConsole.ts';
import { announceUnmatchedPayment } from './invoiceEvents.ts';
import { auditedTransaction, type Actor } from '../site/audit.ts';
import { lowerContains, pageOf } from '../../db/listing.ts';

/** Cents of a numeric string ("12.50" → 1250), exact. */
function cents(v: string | number | null | undefined): number {
  if (v === null || v === undefined) return 0;
  const [int = '0', frac = ''] = String(v).split('.');
  const sign = int.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(int)) * 100 + Number((frac + '00').slice(0, 2)));
}
const money = (c: number) =>
  `${c < 0 ? '-' : ''}${Math.floor(Math.abs(c) / 100)}.${String(Math.abs(c) % 100).padStart(2, '0')}`;

/**
 * Paid money counts in the month it was paid (invoices paid or since refunded), refunds in the
 * month they were made; net = paid − refunded. Months with neither are left out.
 */
export async function revenueTable(db: Db, months: number): Promise<RevenueTable> {
  const since = sql`date_trunc('month', now() at time zone 'UTC') - ${`${months - 1} months`}::interval`;
  const result = await db.execute(sql`
    with paid as (
      select to_char(paid_at at time zone 'UTC', 'YYYY-MM') as month, gateway,
             sum(amount)::text as total, count(*)::int as n
      from invoices
      where paid_at is not null and status in ('paid', 'refunded') and paid_at at time zone 'UTC' >= ${since}
      group by 1, 2),
    refunded as (
      select to_char(refunded_at at time zone 'UTC', 'YYYY-MM') as month, gateway,
             sum(amount)::text as total, count(*)::int as n
      from invoices
      where status = 'refunded' and refunded_at is not null and refunded_at at time zone 'UTC' >= ${since}
      group by 1, 2)
    select coalesce(p.month, r.month) as month, coalesce(p.gateway, r.gateway) as gateway,
           p.total as paid, coalesce(p.n, 0) as paid_count, r.total as refunded, coalesce(r.n, 0) as refunded_count
    from paid p full outer join refunded r on r.month = p.month and r.gateway = p.gateway
    order by 1 desc, 2 asc`);
  const rows = result.rows.map((r) => {
    const paid = cents(r.paid as string | null);
    const refunded = cents(r.refunded as string | null);
    return {
      month: String(r.month),
      gateway: String(r.gateway),
      paid: money(paid),
      refunded: money(refunded),
      net: money(paid - refunded),
      paid_count: Number(r.paid_count),
      refunded_count: Number(r.refunded_count),
    };
  });
  const sum = (k: 'paid' | 'refunded') => rows.reduce((acc, r) => acc + cents(r[k]), 0);
  return {
    currency: 'USD',
    rows,
    totals: {
      paid: money(sum('paid')),
      refunded: money(sum('refunded')),
      net: money(sum('paid') - sum('refunded')),
    },
  };
}

const CSV_COLUMNS = [
  'factura',
  'creada_utc',
  'pagada_utc',
  'reembolsada_utc',
  'estado',
  'pasarela',
  'moneda',
  'importe',
  'cobrado',
  'reembolsado',
  'cliente',
  'operacion',
  'peer',
  'plan',
  'transaccion',
  'referencia_reembolso',
  'motivo',
] as const;

/**
 * One RFC 4180 field: quoted when it holds a comma, a quote or a line break (quotes doubled). Text a
 * customer chose (a peer's name) that a spreadsheet would run as a formula gets a leading quote.
 */
export function csvField(value: string | null, text = true): string {
  let v = value ?? '';
  if (text && /^[=+\-@\t\r]/.test(v)) v = `'${v}`;
  return /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

const iso = (d: string | null) => (d ? d.replace(/\.\d{3}Z$/, 'Z') : null);

/**
 * The invoices matching the list's filters as CSV, newest first, read 500 rows at a time (keyset on
 * created_at, id) and written as they are read: memory stays flat whatever the number of invoices.
 * `cobrado` is the amount of an invoice that was paid (paid or refunded since), `reembolsado` that of
 * a refunded one, so the columns' sums are the revenue table's paid and refunded totals.
 */
export function invoicesCsv(
  db: Db,
  query: Pick<InvoiceListQuery, 'q' | 'state' | 'gateway' | 'customer'>,
  batch = 500,
): Readable {
  const filter = invoiceFilter(query);
  async function* lines(): AsyncGenerator<string> {
    // A BOM so spreadsheet programs read the file as UTF-8 (Spanish names), then the header.
    yield `\uFEFF${CSV_COLUMNS.join(',')}\r\n`;
    let after: { created: Date; id: string } | null = null;
    for (;;) {
      const keyset: SQL | undefined = after
        ? or(
            lt(invoices.createdAt, after.created),
            and(eq(invoices.createdAt, after.created), lt(invoices.id, after.id)),
          )
        : undefined;
      const rows: Parameters<typeof presentRows>[0] = await selectPresented(db)
        .where(and(filter, keyset))
        .orderBy(desc(invoices.createdAt), desc(invoices.id))
        .limit(batch);
      if (rows.length === 0) return;
      let chunk = '';
      for (const i of presentRows(rows)) {
        const wasPaid = i.paid !== null && (i.status === 'paid' || i.status === 'refunded');
        chunk +=
          [
            csvField(i.id),
            csvField(iso(i.created)),
            csvField(iso(i.paid)),
            csvField(iso(i.refunded)),
            csvField(i.status),
            csvField(i.gateway),
            csvField(i.currency),
            csvField(money(cents(i.amount)), false),
            csvField(money(wasPaid ? cents(i.amount) : 0), false),
            csvField(money(i.status === 'refunded' ? cents(i.amount) : 0), false),
            csvField(i.customer.username),
            csvField(i.operation),
            csvField(i.peer?.name ?? i.new_peer_name),
            csvField(i.plan_name),
            csvField(i.transaction_uuid),
            csvField(i.refund_reference),
            csvField(i.refund_reason ?? i.mark_reason),
          ].join(',') + '\r\n';
      }
      yield chunk;
      const last: typeof invoices.$inferSelect = rows[rows.length - 1]!.invoice;
      after = { created: last.createdAt, id: last.id };
      if (rows.length < batch) return;
    }
  }
  return Readable.from(lines());
}

type NoticeRow = typeof paymentNotices.$inferSelect;

function presentNotice(n: NoticeRow): UnmatchedPayment {
  return {
    id: n.id,
    gateway: n.gateway,
    reference: n.reference,
    invoice_id: n.invoiceId,
    amount: n.amount,
    currency: n.currency,
    gateway_status: n.gatewayStatus,
    reason: n.reason,
    created: n.createdAt.toISOString(),
    resolved: n.resolvedAt?.toISOString() ?? null,
  };
}

/** Money a gateway reported that credited nothing ("pago sin factura abierta"), newest first. */
export async function unmatchedPayments(
  db: Db,
  query: UnmatchedPaymentQuery,
): Promise<Paged<UnmatchedPayment>> {
  const where = and(
    eq(paymentNotices.outcome, 'unmatched'),
    query.resolved === 'true'
      ? isNotNull(paymentNotices.resolvedAt)
      : query.resolved === 'false'
        ? isNull(paymentNotices.resolvedAt)
        : undefined,
    lowerContains(paymentNotices.reference, query.q),
  );
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(paymentNotices)
      .where(where)
      .orderBy(desc(paymentNotices.createdAt), desc(paymentNotices.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(paymentNotices).where(where),
  ]);
  return { count: total?.n ?? 0, results: rows.map(presentNotice) };
}

/** The operator settled an unmatched payment (refunded outside, credited by hand…): audited. */
export async function resolveUnmatched(
  db: Db,
  actor: Actor,
  id: number,
  reason: string,
): Promise<UnmatchedPayment> {
  return auditedTransaction(db, actor, async (tx, audit) => {
    const [row] = await tx
      .select()
      .from(paymentNotices)
      .where(and(eq(paymentNotices.id, id), eq(paymentNotices.outcome, 'unmatched')))
      .for('update');
    if (!row) throw notFound(billingMsg.unmatchedNotFound);
    if (row.resolvedAt) throw conflict(billingMsg.unmatchedResolved);
    const [after] = await tx
      .update(paymentNotices)
      .set({ resolvedAt: sql`now()` })
      .where(eq(paymentNotices.id, id))
      .returning();
    await audit({
      action: 'payment.resolve',
      targetType: 'payment',
      targetId: id,
      reason,
      extra: { gateway: row.gateway, reference: row.reference, amount: row.amount, invoice: row.invoiceId },
    });
    // Other consoles showing the open list drop it (finance reads no audit tail).
    await announceUnmatchedPayment(tx, id);
    return presentNotice(after!);
  });
}
