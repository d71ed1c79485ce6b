/**
 * Refunds from the console (owner and finance). A paid invoice is refunded through its gateway when
 * the gateway can (Remesita's `/rest/v1/payment/refund` with the payment's reference), or recorded
 * as refunded by hand (the money went back another way). Either way, with the reason and the
 * manager, audited, the plan period it bought is taken back from its peer (PeerService.takeBackIn):
 * its expiry moves back, and a peer whose period is gone leaves its server.
 */
import { and, eq, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { billingMsg, msg, type InvoiceRefund } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { invoices } from '../../db/schema.ts';
import { badRequest, conflict, HttpError, notFound, UUID_RE } from '../../lib/errors.ts';
import { reasonOf } from '../../lib/dbErrorLog.ts';
import type { Bus } from '../../realtime/bus.ts';
import { REFUNDABLE_GATEWAYS } from './invoiceConsole.ts';
import { announceInvoice } from './invoiceEvents.ts';
import { auditedTransaction, diffFields, type Actor } from '../site/audit.ts';
import { GatewayError, type Gateway } from './gateways.ts';
import type { PeerService } from '../peers/peers.ts';

/** A gateway refund that neither finished nor failed (the process died) blocks another this long. */
const REFUND_CLAIM = '2 minutes';

export interface RefundDeps {
  db: Db;
  bus: Bus;
  peers: PeerService;
  /** The invoice's gateway with the credentials in force, or null when it has none now. */
  gateway: (name: string) => Promise<Gateway | null>;
  log: FastifyBaseLogger;
}

export class RefundService {
  constructor(private readonly deps: RefundDeps) {}

  async refund(actor: Actor, id: string, body: InvoiceRefund): Promise<void> {
    const { db } = this.deps;
    if (!UUID_RE.test(id)) throw notFound(msg.invoiceNotFound);
    const [row] = await db.select().from(invoices).where(eq(invoices.id, id));
    if (!row) throw notFound(msg.invoiceNotFound);
    if (row.status !== 'paid') throw conflict(billingMsg.refundNotPaid);

    let refundReference: string | null = null;
    if (body.method === 'gateway') {
      if (!REFUNDABLE_GATEWAYS.has(row.gateway) || row.markedBy !== null)
        throw badRequest(billingMsg.refundGatewayUnsupported);
      if (!row.transactionUuid) throw badRequest(billingMsg.refundNoReference);
      const gateway = await this.deps.gateway(row.gateway);
      if (!gateway?.refund) throw badRequest(msg.gatewayUnavailable);
      // One refund at a time per invoice, across managers and instances: claimed in the row.
      const [claimed] = await db
        .update(invoices)
        .set({ refundStartedAt: sql`now()` })
        .where(
          and(
            eq(invoices.id, id),
            eq(invoices.status, 'paid'),
            sql`(${invoices.refundStartedAt} is null or ${invoices.refundStartedAt} < now() - ${REFUND_CLAIM}::interval)`,
          ),
        )
        .returning({ id: invoices.id });
      if (!claimed) throw conflict(billingMsg.refundInProgress);
      try {
        const done = await gateway.refund({
          reference: row.transactionUuid,
          amount: Number(row.amount),
          reason: body.reason,
        });
        refundReference = done.id ?? row.transactionUuid;
      } catch (err) {
        await db.update(invoices).set({ refundStartedAt: null }).where(eq(invoices.id, id));
        if (err instanceof GatewayError) {
          this.deps.log.warn(
            { invoice: id, gateway: row.gateway, reason: err.message },
            'reembolso rechazado',
          );
          throw new HttpError(
            502,
            billingMsg.refundGatewayFailed.replace('{reason}', err.message),
            'gateway',
          );
        }
        throw err;
      }
    }

    const taken = await auditedTransaction(db, actor, async (tx, audit) => {
      const [locked] = await tx.select().from(invoices).where(eq(invoices.id, id)).for('update');
      if (!locked || locked.status !== 'paid') throw conflict(billingMsg.refundNotPaid);
      // By hand while a gateway refund is under way would record the money twice.
      const pending =
        body.method === 'manual' &&
        locked.refundStartedAt !== null &&
        Date.now() - locked.refundStartedAt.getTime() < 120_000;
      if (pending) throw conflict(billingMsg.refundInProgress);
      await tx
        .update(invoices)
        .set({
          status: 'refunded',
          refundedAt: sql`now()`,
          refundedBy: actor.id,
          refundReason: body.reason,
          refundReference,
          refundStartedAt: null,
        })
        .where(eq(invoices.id, id));
      const back = await this.deps.peers.takeBackIn(tx, id);
      await audit({
        action: 'invoice.refund',
        targetType: 'invoice',
        targetId: id,
        changes: diffFields({ status: 'paid' }, { status: 'refunded' }),
        reason: body.reason,
        extra: {
          method: body.method,
          amount: locked.amount,
          currency: locked.currency,
          gateway: locked.gateway,
          plan: locked.planName,
          ...(refundReference ? { refund_reference: refundReference } : {}),
          ...(back ? { peer: back.id } : {}),
        },
      });
      return back;
    }).catch((err: unknown) => {
      // The gateway already sent the money back: that must not be lost from sight.
      if (refundReference !== null)
        this.deps.log.error(
          { invoice: id, refund: refundReference, reason: reasonOf(err) },
          'reembolso hecho en la pasarela pero no registrado',
        );
      throw err;
    });
    await announceInvoice(this.deps.bus, id, 'refunded');
    if (taken) await this.deps.peers.announceUpdated(taken);
  }
}
