/**
 * Remesita's IPN (instant payment notification), the only way Remesita documents to learn that a
 * payment link was paid (docs/decisions.md, "Remesita"). Remesita POSTs JSON to the `ipnUrl` given
 * with the link — `PUBLIC_URL/api/payments/remesita/ipn/{invoice}/{secret}` — with `app_id`,
 * `status`, `custom_id`, `ref`, `amount`… and no signature: as in Remesita's own WooCommerce plugin,
 * the secret in the URL is what authenticates it. It may arrive more than once (`paid`, then
 * `completed`).
 *
 * A notice credits only when every one of these holds: the URL's secret is this invoice's (constant
 * time), `status` is `paid` or `completed`, `custom_id` is this invoice, `app_id` is our business unit,
 * no other currency is named, `amount` covers the invoice, and `ref` was never seen (stored unique in
 * payment_notices, in the transaction that marks the invoice paid). Anything else is logged and
 * credits nothing; money that arrived and credited nothing stays listed for the operator.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { billingMsg, msg } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { invoices, paymentNotices } from '../../db/schema.ts';
import { UUID_RE } from '../../lib/errors.ts';
import { amountOf, type Gateway } from './gateways.ts';
import { announceUnmatchedPayment } from './invoiceEvents.ts';

/** Notification secrets are stored as their SHA-256 only. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What one notice did; the route answers 200 with it whatever it was (Remesita needs no retry). */
export interface IpnOutcome {
  credited: boolean;
  /** What the notice was taken as, for the log and the answer. */
  result:
    | 'credited'
    | 'repeat'
    | 'unmatched'
    | 'canceled'
    | 'ignored'
    | 'refused'
    | 'unknown_invoice'
    | 'unavailable';
}

export interface IpnDeps {
  db: Db;
  /** Remesita with the credentials in force (its business unit), or null when it is not configured. */
  remesita: () => Promise<(Gateway & { businessId?: string }) | null>;
  log: FastifyBaseLogger;
  /** Cancels a pending invoice (announced). */
  cancel: (invoiceId: string) => Promise<boolean>;
  /** After an invoice was marked paid here (committed): announce and deliver. */
  paid: (invoiceId: string) => Promise<void>;
}

/** Remesita's statuses that mean the customer paid (`completed`: and the funds were settled). */
const PAID = new Set(['paid', 'completed']);
const CANCELED = new Set(['cancelled', 'canceled']);

const text = (v: unknown): string | null =>
  typeof v === 'string' ? v.trim() : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

export async function notifyRemesita(
  deps: IpnDeps,
  invoiceId: string,
  secret: string,
  notice: Record<string, unknown>,
): Promise<IpnOutcome> {
  const { db, log } = deps;
  const status = text(notice.status)?.toLowerCase() ?? '';
  const ref = text(notice.ref);
  // Never the secret, the payer's data or the whole notice: the invoice, the status and the reference.
  const facts = { invoice: UUID_RE.test(invoiceId) ? invoiceId : null, status: status.slice(0, 30) };
  const refuse = (result: IpnOutcome['result'], reason: string): IpnOutcome => {
    log.warn({ ...facts, reason }, 'aviso de Remesita sin acreditar');
    return { credited: false, result };
  };

  if (!UUID_RE.test(invoiceId) || !/^[A-Za-z0-9_-]{20,100}$/.test(secret))
    return refuse('unknown_invoice', 'factura o secreto no válidos');
  const [row] = await db
    .select()
    .from(invoices)
    .where(and(eq(invoices.id, invoiceId), eq(invoices.gateway, 'remesita')));
  if (!row?.notifySecretHash) return refuse('unknown_invoice', 'no es una factura de Remesita');
  const given = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(row.notifySecretHash, 'hex');
  if (given.length !== stored.length || !timingSafeEqual(given, stored))
    return refuse('unknown_invoice', 'secreto incorrecto');

  const customId = text(notice.custom_id);
  if (customId !== row.id) return refuse('refused', 'custom_id no es esta factura');

  if (CANCELED.has(status)) {
    const canceled = await deps.cancel(row.id);
    log.info({ ...facts, canceled }, 'Remesita avisa de un pago cancelado');
    return { credited: false, result: canceled ? 'canceled' : 'ignored' };
  }
  if (!PAID.has(status)) {
    // start, processing, payment_review, paused: nothing to credit yet.
    log.info(facts, 'aviso de Remesita sin pago');
    return { credited: false, result: 'ignored' };
  }

  const gateway = await deps.remesita();
  if (!gateway?.businessId)
    return refuse('unavailable', 'Remesita no está configurada: no se puede comprobar app_id');
  if (text(notice.app_id) !== gateway.businessId)
    return refuse('refused', 'app_id no es nuestra unidad de negocio');
  // Remesita's notice names no currency (its links are in USD); one that names another never credits.
  const currency = text(notice.currency);
  if (currency !== null && currency.toUpperCase() !== row.currency.toUpperCase())
    return refuse('refused', `moneda ${currency.slice(0, 10)}`);
  const amount = amountOf(notice.amount);
  if (amount === null || !Number.isFinite(amount)) return refuse('refused', 'importe no válido');
  if (!ref || ref.length > 100) return refuse('refused', 'sin referencia (ref)');

  const cents = (v: number) => Math.round(v * 100);
  const covers = cents(amount) >= cents(Number(row.amount));
  const outcome = await db.transaction(async (tx) => {
    const [inv] = await tx.select().from(invoices).where(eq(invoices.id, row.id)).for('update');
    if (!inv) return null;
    const [fresh] = await tx
      .insert(paymentNotices)
      .values({
        gateway: 'remesita',
        reference: ref,
        invoiceId: inv.id,
        amount: amount.toFixed(2),
        currency: currency ?? inv.currency,
        gatewayStatus: status,
        outcome: 'unmatched',
      })
      .onConflictDoNothing()
      .returning({ id: paymentNotices.id });
    // This payment was heard before (paid, then completed): it changes nothing.
    if (!fresh || inv.transactionUuid === ref) return { result: 'repeat' as const, reason: null };
    let reason: string | null = null;
    if (!covers)
      reason = billingMsg.noticeAmountLow
        .replace('{amount}', amount.toFixed(2))
        .replace('{price}', Number(inv.amount).toFixed(2));
    else if (inv.status === 'paid')
      reason = billingMsg.noticeAlreadyPaid.replace('{reference}', inv.transactionUuid ?? 'marcada a mano');
    else if (inv.status === 'refunded') reason = billingMsg.noticeRefunded;
    if (reason !== null) {
      await tx.update(paymentNotices).set({ reason }).where(eq(paymentNotices.id, fresh.id));
      await announceUnmatchedPayment(tx, fresh.id);
      // The customer's payment page says why nothing was credited.
      if (!covers && inv.status === 'pending')
        await tx
          .update(invoices)
          .set({ gatewayMessage: msg.paymentAmountLow })
          .where(eq(invoices.id, inv.id));
      return { result: 'unmatched' as const, reason };
    }
    // Pending, or canceled / expired / failed meanwhile: the customer paid it, so it is paid.
    await tx
      .update(invoices)
      .set({ status: 'paid', paidAt: sql`now()`, transactionUuid: ref, gatewayMessage: null })
      .where(eq(invoices.id, inv.id));
    await tx.update(paymentNotices).set({ outcome: 'credited' }).where(eq(paymentNotices.id, fresh.id));
    return { result: 'credited' as const, reason: null, was: inv.status };
  });
  if (!outcome) return refuse('unknown_invoice', 'factura borrada');
  if (outcome.result === 'repeat') {
    log.info(facts, 'aviso de Remesita repetido: nada cambia');
    return { credited: false, result: 'repeat' };
  }
  if (outcome.result === 'unmatched') {
    log.warn({ ...facts, reason: outcome.reason }, 'pago de Remesita sin factura abierta');
    return { credited: false, result: 'unmatched' };
  }
  log.info({ ...facts, was: outcome.was }, 'pago de Remesita acreditado');
  await deps.paid(row.id);
  return { credited: true, result: 'credited' };
}
