import { alias } from 'drizzle-orm/pg-core';
import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import {
  billingMsg,
  customersMsg,
  msg,
  type AdminInvoice,
  type InvoiceListQuery,
  type Paged,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, invoices, managers, peers } from '../../db/schema.ts';
import { conflict, notFound, UUID_RE } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { announceInvoice } from './invoiceEvents.ts';
import { auditedTransaction, diffFields, type Actor } from '../site/audit.ts';
import type { InvoiceService } from './invoices.ts';
import { containsPattern, pageOf } from '../../db/listing.ts';

type InvoiceRow = typeof invoices.$inferSelect;

/**
 * The search of the Facturas list: username, peer name (the delivered peer's, or the name a new_peer
 * invoice asked for) and remote id. A UNION of four index-served lookups (the trigram indexes of
 * migration 0005 and the btree on invoices.customer_id / peer_id), so no scan of every invoice.
 */
function searchInvoices(q: string): SQL {
  const p = containsPattern(q);
  return sql`${invoices.id} in (
    select i.id from invoices i where i.customer_id in (select c.id from customers c where lower(c.username) like ${p})
    union select i.id from invoices i where i.peer_id in (select pe.id from peers pe where lower(pe.name) like ${p})
    union select i.id from invoices i where lower(i.new_peer_name) like ${p}
    union select i.id from invoices i where lower(i.remote_id) like ${p})`;
}

const marker = alias(managers, 'marker');
const refunder = alias(managers, 'refunder');

/** Gateways whose API can send a paid invoice's money back (services/billing/gateways.ts `refund`). */
export const REFUNDABLE_GATEWAYS = new Set(['remesita']);

export function presentRows(
  rows: {
    invoice: InvoiceRow;
    username: string;
    peerName: string | null;
    markedBy: string | null;
    refundedBy: string | null;
  }[],
): AdminInvoice[] {
  return rows.map(({ invoice: i, username, peerName, markedBy, refundedBy }) => ({
    id: i.id,
    customer: { id: i.customerId, username },
    operation: i.operation as AdminInvoice['operation'],
    peer: i.peerId !== null ? { id: i.peerId, name: peerName ?? '' } : null,
    new_peer_name: i.newPeerName,
    plan_name: i.planName,
    amount: i.amount,
    currency: i.currency,
    gateway: i.gateway,
    status: i.status as AdminInvoice['status'],
    remote_id: i.remoteId,
    transaction_uuid: i.transactionUuid,
    created: i.createdAt.toISOString(),
    paid: i.paidAt?.toISOString() ?? null,
    delivered: i.creditedAt?.toISOString() ?? null,
    marked_by: i.markedBy !== null ? { id: i.markedBy, username: markedBy ?? '' } : null,
    mark_reason: i.markReason,
    refunded: i.refundedAt?.toISOString() ?? null,
    refunded_by: i.refundedBy !== null ? { id: i.refundedBy, username: refundedBy ?? '' } : null,
    refund_reason: i.refundReason,
    refund_reference: i.refundReference,
    refundable_by_gateway:
      i.status === 'paid' &&
      i.transactionUuid !== null &&
      i.markedBy === null &&
      REFUNDABLE_GATEWAYS.has(i.gateway),
  }));
}

export const selectPresented = (db: Db) =>
  db
    .select({
      invoice: invoices,
      username: customers.username,
      peerName: peers.name,
      markedBy: marker.username,
      refundedBy: refunder.username,
    })
    .from(invoices)
    .innerJoin(customers, eq(customers.id, invoices.customerId))
    .leftJoin(peers, eq(peers.id, invoices.peerId))
    .leftJoin(marker, eq(marker.id, invoices.markedBy))
    .leftJoin(refunder, eq(refunder.id, invoices.refundedBy));

/** The WHERE of the Facturas list's filters (the list, its count and the CSV export share it). */
export function invoiceFilter(
  query: Pick<InvoiceListQuery, 'q' | 'state' | 'gateway' | 'customer'>,
): SQL | undefined {
  return and(
    query.q ? searchInvoices(query.q) : undefined,
    query.state ? eq(invoices.status, query.state) : undefined,
    query.gateway ? eq(invoices.gateway, query.gateway) : undefined,
    query.customer ? eq(invoices.customerId, query.customer) : undefined,
  );
}

/** One page of invoices, newest first, filtered and searched by the database; counted with the same WHERE. */
export async function invoicePage(
  db: Db,
  query: Pick<InvoiceListQuery, 'q' | 'state' | 'gateway' | 'customer' | 'page' | 'page_size'>,
): Promise<Paged<AdminInvoice>> {
  const where = invoiceFilter(query);
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    selectPresented(db)
      .where(where)
      .orderBy(desc(invoices.createdAt), desc(invoices.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(invoices).where(where),
  ]);
  return { count: total?.n ?? 0, results: presentRows(rows) };
}

export interface InvoiceAdminDeps {
  db: Db;
  bus: Bus;
  invoices: InvoiceService;
}

/** The manager console's Facturas: list, detail, and crediting a payment received outside the gateway. */
export class InvoiceAdminService {
  constructor(private readonly deps: InvoiceAdminDeps) {}

  list(query: InvoiceListQuery): Promise<Paged<AdminInvoice>> {
    return invoicePage(this.deps.db, query);
  }

  async get(id: string): Promise<AdminInvoice> {
    if (!UUID_RE.test(id)) throw notFound(msg.invoiceNotFound);
    const rows = await selectPresented(this.deps.db).where(eq(invoices.id, id));
    if (rows.length === 0) throw notFound(msg.invoiceNotFound);
    return presentRows(rows)[0]!;
  }

  /**
   * Marks an invoice paid by hand (a bank transfer, cash…) and delivers what it bought through the
   * same path as a gateway confirmation (InvoiceService.deliver). Pending, canceled, expired and
   * failed invoices may be marked — money that arrived late is still money; the reason is required
   * and recorded with the manager. The row is locked, so a gateway confirmation racing this mark
   * credits once: whichever commits first wins and the other finds the invoice paid. A paid invoice
   * answers 409 and nothing changes.
   */
  async markPaid(actor: Actor, id: string, reason: string): Promise<AdminInvoice> {
    if (!UUID_RE.test(id)) throw notFound(msg.invoiceNotFound);
    await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
      const [row] = await tx.select().from(invoices).where(eq(invoices.id, id)).for('update');
      if (!row) throw notFound(msg.invoiceNotFound);
      if (row.status === 'paid') throw conflict(customersMsg.invoiceAlreadyPaid);
      if (row.status === 'refunded') throw conflict(billingMsg.refundedCannotMark);
      const [after] = await tx
        .update(invoices)
        .set({ status: 'paid', paidAt: sql`now()`, markedBy: actor.id, markReason: reason })
        .where(and(eq(invoices.id, id), eq(invoices.status, row.status)))
        .returning();
      await audit({
        action: 'invoice.mark_paid',
        targetType: 'invoice',
        targetId: id,
        changes: diffFields(
          { status: row.status, marked_by: null, mark_reason: row.markReason },
          { status: after!.status, marked_by: actor.username, mark_reason: reason },
        ),
        reason,
        extra: { amount: row.amount, currency: row.currency, gateway: row.gateway, plan: row.planName },
      });
    });
    await announceInvoice(this.deps.bus, id, 'paid');
    await this.deps.invoices.deliver(id);
    return this.get(id);
  }
}
