import type { Db } from '../../db/client.ts';
import { notifyInTransaction, type Bus, type BusEvent } from '../../realtime/bus.ts';

/**
 * Tells the managers who may read invoices that one was created or changed state (the console's
 * Facturas list refreshes). Ids only, after the change is committed.
 */
export async function announceInvoice(bus: Bus, invoiceId: string, status: string): Promise<void> {
  await bus.publish({
    kind: 'managers',
    permission: 'invoices.read',
    message: { type: 'admin_invoice', invoice_id: invoiceId, status },
  });
}

/**
 * Tells the managers who may read revenue (docs/permissions.md: "Pagos sin factura abierta") that a
 * payment which credited nothing was recorded or settled: their list refreshes without a reload.
 * Called inside the transaction that writes it: the database announces it when that commits, on
 * every instance, and never for a rolled-back write (as the audit tail, services/site/audit.ts).
 */
export async function announceUnmatchedPayment(tx: Db, paymentId: number): Promise<void> {
  const event: BusEvent = {
    kind: 'managers',
    permission: 'revenue.read',
    message: { type: 'admin_payment', payment_id: paymentId },
  };
  await notifyInTransaction(tx, event);
}
