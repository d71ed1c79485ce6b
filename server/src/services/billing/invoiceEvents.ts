import type { Bus } from '../../realtime/bus.ts';

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
