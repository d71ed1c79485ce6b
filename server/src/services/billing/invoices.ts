/**
 * Invoices: creation at a gateway, confirmation with it, crediting and delivery. Over 400 lines on
 * purpose: crediting (the conditional pending → paid step) and delivery (in one transaction with
 * `credited_at`) are the two halves of "a payment is never lost nor counted twice", and every
 * gateway's confirmation funnels into them; keeping them in one file keeps that guarantee readable.
 */
import { randomBytes } from 'node:crypto';
import { and, asc, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import { billingMsg, catalogMsg, msg, type Invoice, type InvoiceBody } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { invoices, paymentNotices, peers, planHistory, plans } from '../../db/schema.ts';
import { reasonOf } from '../../lib/dbErrorLog.ts';
import {
  badRequest,
  constraintOf,
  HttpError,
  isUniqueViolation,
  notFound,
  UUID_RE,
} from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { announceInvoice, announceUnmatchedPayment } from './invoiceEvents.ts';
import type { Revision } from '../fleet/desiredState.ts';
import { GatewayError, type Gateway, type VerifiedPayment } from './gateways.ts';
import type { PeerService } from '../peers/peers.ts';
import { hashSecret, notifyRemesita, type IpnOutcome } from './remesitaIpn.ts';
import { newPeerPlaceable, pickServerForNewPeer } from '../fleet/servers.ts';
import { getSiteSettings } from '../site/settings.ts';

type InvoiceRow = typeof invoices.$inferSelect;

/** What checking a payment did: credited or not, and why not in Spanish (null: simply not paid yet). */
export interface Confirmation {
  credited: boolean;
  message: string | null;
}

/**
 * Why the gateway's answer does not pay this invoice (a Spanish message for the customer), or null
 * when it does. Every field must be present and match: the transaction stored at creation (or, for
 * a gateway that names it only once paid, a reference at all), our invoice, our own merchant
 * account, and a finite amount at least the invoice's.
 */
export function refusalOf(row: InvoiceRow, paid: VerifiedPayment): string | null {
  if (!paid.transactionUuid || (row.transactionUuid !== null && paid.transactionUuid !== row.transactionUuid))
    return msg.paymentNotThisInvoice;
  if (paid.remoteId !== row.id || paid.ownAccount !== true) return msg.paymentNotThisInvoice;
  // An invoice is in its own currency (USD): a notice in another never credits, whatever the number.
  if (paid.currency !== null && paid.currency.trim().toUpperCase() !== row.currency.toUpperCase())
    return msg.paymentCurrency;
  if (paid.amount === null || !Number.isFinite(paid.amount)) return msg.paymentAmountUnknown;
  // In cents: 3.5 pays a 3.50 invoice, 3.49 does not.
  if (Math.round(paid.amount * 100) < Math.round(Number(row.amount) * 100)) return msg.paymentAmountLow;
  return null;
}

/** What one delivery wrote: the peer, its agents' revisions, and whether the peer is new. */
interface Delivered {
  id: number;
  revisions: Revision[];
  customerId: number;
  created: boolean;
}

export interface InvoiceDeps {
  db: Db;
  bus: Bus;
  peers: PeerService;
  /** QvaPay with the credentials in force (Ajustes, else the environment), or null when there are none. */
  qvapay: () => Promise<Gateway | null>;
  /** Remesita likewise (null also without PUBLIC_URL, which its notification URL needs). */
  remesita: () => Promise<Gateway | null>;
  sandbox: Gateway | null;
  /** Delivery failures are logged here (invoice id and reason). */
  log: FastifyBaseLogger;
}

/**
 * Invoices (architecture decision 9): a pending row first, then the gateway's payment URL. Only a
 * server-side confirmation credits, and crediting is idempotent: the pending → paid update is
 * conditional, so a replayed or concurrent confirmation credits once.
 */
export class InvoiceService {
  constructor(private readonly deps: InvoiceDeps) {}

  private get db() {
    return this.deps.db;
  }

  /** The gateways customers can pay with now: switched on and configured. */
  async available(): Promise<{ qvapay: Gateway | null; remesita: Gateway | null }> {
    const site = await getSiteSettings(this.db);
    return {
      qvapay: site.allow_payments_qvapay ? await this.deps.qvapay() : null,
      remesita: site.allow_payments_remesita ? await this.deps.remesita() : null,
    };
  }

  /**
   * The gateway a new invoice goes to: the customer's choice if it is available, else QvaPay, else
   * Remesita (whichever is on), else the sandbox if enabled.
   */
  async gateway(choice?: 'qvapay' | 'remesita'): Promise<Gateway | null> {
    const on = await this.available();
    if (choice) {
      const chosen = on[choice];
      if (!chosen) throw badRequest(msg.gatewayUnavailable, { gateway: msg.gatewayUnavailable });
      return chosen;
    }
    return on.qvapay ?? on.remesita ?? this.deps.sandbox;
  }

  /** Some server can take a new peer now (switched on, its agent answering). */
  newPeerAvailable(): Promise<boolean> {
    return newPeerPlaceable(this.db);
  }

  async create(customerId: number, body: InvoiceBody): Promise<{ id: string; payment_url: string }> {
    const [plan] = await this.db.select().from(plans).where(eq(plans.id, body.plan));
    if (!plan) throw notFound(msg.planNotFound);
    // A hidden plan is no longer sold (a page opened before the change may still offer it).
    if (!plan.active) throw badRequest(catalogMsg.planNotOnSale, { plan: catalogMsg.planNotOnSale });
    let peerId: number | null = null;
    let newPeerName: string | null = null;
    if (body.operation === 'add_plan') {
      if (typeof body.peer !== 'number') throw badRequest(msg.purchasePeerRequired);
      const peer = await this.deps.peers.getOwned(customerId, body.peer);
      if (peer.manualPayment) throw badRequest(msg.purchaseManualPeer);
      if (peer.managerDisabledAt) throw badRequest(msg.purchaseManagerDisabled);
      peerId = peer.id;
    } else {
      newPeerName = typeof body.peer === 'string' ? body.peer.trim() : '';
      if (!newPeerName) throw badRequest(msg.purchasePeerRequired);
      if (newPeerName.length > 40) throw badRequest(msg.peerNameTooLong);
      // Before any money moves: a new peer needs a server whose agent answers.
      if (!(await this.newPeerAvailable())) throw new HttpError(409, msg.noServersOnline, 'no_servers');
    }
    const gateway = await this.gateway(body.gateway);
    if (!gateway) throw badRequest(msg.noGateway);
    const notifySecret = randomBytes(32).toString('base64url');
    const [row] = await this.db
      .insert(invoices)
      .values({
        customerId,
        operation: body.operation,
        peerId,
        newPeerName,
        planId: plan.id,
        planName: plan.name,
        amount: plan.price,
        gateway: gateway.name,
        notifySecretHash: hashSecret(notifySecret),
      })
      .returning();
    const invoice = row!;
    try {
      const payment = await gateway.create({
        id: invoice.id,
        amount: Number(plan.price),
        description: `${plan.name} — ${newPeerName ?? `peer ${peerId}`}`,
        notifySecret,
      });
      await this.db
        .update(invoices)
        .set({
          paymentUrl: payment.paymentUrl,
          transactionUuid: payment.transactionUuid,
          remoteId: invoice.id,
        })
        .where(eq(invoices.id, invoice.id));
      await announceInvoice(this.deps.bus, invoice.id, 'pending');
      return { id: invoice.id, payment_url: payment.paymentUrl };
    } catch (e) {
      await this.db.update(invoices).set({ status: 'failed' }).where(eq(invoices.id, invoice.id));
      await announceInvoice(this.deps.bus, invoice.id, 'failed');
      // A transaction id another invoice already holds would tie one payment to two invoices.
      const reused = isUniqueViolation(e) && constraintOf(e) === 'invoices_transaction';
      if (e instanceof GatewayError || reused) {
        this.deps.log.warn(
          {
            invoice: invoice.id,
            reason: reused ? 'transacción ya usada por otra factura' : (e as Error).message,
          },
          'la pasarela no creó el pago',
        );
        throw new HttpError(502, msg.gatewayFailed, 'gateway');
      }
      throw e;
    }
  }

  /** A sandbox invoice by id (the built-in test gateway's payment page); undefined otherwise. */
  async sandboxInvoice(id: string): Promise<InvoiceRow | undefined> {
    if (!UUID_RE.test(id)) return undefined;
    const [row] = await this.db.select().from(invoices).where(eq(invoices.id, id));
    return row?.gateway === 'sandbox' ? row : undefined;
  }

  async getOwned(customerId: number, id: string): Promise<InvoiceRow> {
    if (!UUID_RE.test(id)) throw notFound(msg.invoiceNotFound);
    const [row] = await this.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.id, id), eq(invoices.customerId, customerId)));
    if (!row) throw notFound(msg.invoiceNotFound);
    return row;
  }

  /**
   * The invoice as the payment-result page shows it. A pending invoice of a gateway that can be asked
   * (QvaPay) is checked with it first, at most once per {@link CHECK_EVERY} per invoice whatever the
   * number of polls, tabs or instances (the check is claimed in the row); the polls in between show
   * what the last check said.
   */
  async present(customerId: number, id: string): Promise<Invoice> {
    let row = await this.getOwned(customerId, id);
    if (row.status === 'pending' && (await this.gatewayOf(row.gateway))?.verify) {
      await this.checkClaimed(row, ['pending']);
      row = await this.getOwned(customerId, id);
    }
    const message = row.gatewayMessage;
    let peerName = row.newPeerName ?? '';
    if (row.peerId !== null) {
      const [peer] = await this.db.select({ name: peers.name }).from(peers).where(eq(peers.id, row.peerId));
      peerName = peer?.name ?? peerName;
    }
    return {
      id: row.id,
      plan_name: row.planName,
      peer_name: peerName,
      amount: Number(row.amount),
      currency: row.currency,
      status: row.status as Invoice['status'],
      gateway: row.gateway,
      transaction_uuid: row.transactionUuid,
      created: row.createdAt.toISOString(),
      paid: row.paidAt?.toISOString() ?? null,
      delivered: row.creditedAt !== null,
      operation: row.operation as Invoice['operation'],
      peer_id: row.peerId,
      ...(message && row.status === 'pending' ? { message } : {}),
    };
  }

  /** The gateway an invoice was created with, with the credentials in force (null: none now). */
  async gatewayOf(name: string): Promise<Gateway | null> {
    if (name === 'qvapay') return this.deps.qvapay();
    if (name === 'remesita') return this.deps.remesita();
    return null;
  }

  /**
   * Asks the invoice's gateway about its payment and credits it only if the answer pays exactly
   * this invoice ({@link refusalOf}). A gateway that cannot be asked credits nothing (logged).
   */
  async confirm(row: InvoiceRow): Promise<Confirmation> {
    // A payment for an invoice canceled or expired meanwhile is still the customer's money.
    if (!(CONFIRMABLE as readonly string[]).includes(row.status)) return { credited: false, message: null };
    const gateway = await this.gatewayOf(row.gateway);
    let paid: VerifiedPayment;
    try {
      if (!gateway?.verify) throw new GatewayError('la pasarela no está configurada');
      paid = await gateway.verify({ id: row.id, transactionUuid: row.transactionUuid });
    } catch (err) {
      this.deps.log.warn(
        { invoice: row.id, gateway: row.gateway, reason: err instanceof Error ? err.message : String(err) },
        'no se pudo comprobar el pago con la pasarela',
      );
      return { credited: false, message: msg.paymentUnverifiable };
    }
    if (!paid.paid) return { credited: false, message: null };
    const refusal = refusalOf(row, paid);
    if (refusal) {
      this.deps.log.warn({ invoice: row.id, gateway: row.gateway, reason: refusal }, 'pago rechazado');
      // Money of ours that arrived and covers nothing stays in sight of the operator.
      if (refusal === msg.paymentAmountLow && paid.transactionUuid) {
        const reference = paid.transactionUuid;
        await this.db.transaction(async (tx) => {
          const [fresh] = await tx
            .insert(paymentNotices)
            .values({
              gateway: row.gateway,
              reference,
              invoiceId: row.id,
              amount: paid.amount !== null ? paid.amount.toFixed(2) : null,
              currency: paid.currency ?? row.currency,
              gatewayStatus: 'paid',
              outcome: 'unmatched',
              reason: billingMsg.noticeAmountLow
                .replace('{amount}', (paid.amount ?? 0).toFixed(2))
                .replace('{price}', Number(row.amount).toFixed(2)),
            })
            .onConflictDoNothing()
            .returning({ id: paymentNotices.id });
          // Heard for the first time: the operators' "Pagos sin factura abierta" shows it live.
          if (fresh) await announceUnmatchedPayment(tx, fresh.id);
        });
      }
      return { credited: false, message: refusal };
    }
    try {
      return { credited: await this.credit(row.id, paid.transactionUuid, CONFIRMABLE), message: null };
    } catch (err) {
      // The gateway's reference already settled another invoice: one payment credits once.
      if (isUniqueViolation(err) && constraintOf(err) === 'invoices_transaction') {
        this.deps.log.warn({ invoice: row.id, gateway: row.gateway }, 'pago ya usado por otra factura');
        return { credited: false, message: msg.paymentNotThisInvoice };
      }
      throw err;
    }
  }

  /**
   * A QvaPay notification: it names a transaction, which must be the one stored when this invoice
   * was created (and the invoice it names, if any, must be that one). Then QvaPay itself is asked.
   */
  async confirmQvapay(transactionUuid: string, remoteId: string | null): Promise<Confirmation> {
    if (!transactionUuid || transactionUuid.length > 100)
      return { credited: false, message: msg.paymentNotFound };
    const [row] = await this.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.gateway, 'qvapay'), eq(invoices.transactionUuid, transactionUuid)));
    if (!row) return { credited: false, message: msg.paymentNotFound };
    if (remoteId !== null && remoteId !== row.id)
      return { credited: false, message: msg.paymentNotThisInvoice };
    // Anyone can call the webhook, as often as they like: QvaPay is asked about an invoice at most
    // once per CHECK_EVERY, shared with the payment page's polls (issue 26). In between, the answer is
    // what the last check said.
    if (!(CONFIRMABLE as readonly string[]).includes(row.status)) return { credited: false, message: null };
    const checked = await this.checkClaimed(row, CONFIRMABLE);
    return checked ?? { credited: false, message: row.gatewayMessage };
  }

  /**
   * Asks the gateway about the invoice if this call claims the check (the row's `gateway_checked_at`
   * older than {@link CHECK_EVERY}, with a status in `statuses`: one conditional update, so polls,
   * webhooks and instances share it) and keeps what it said for the payment page. Null when a check
   * ran within CHECK_EVERY.
   */
  private async checkClaimed(row: InvoiceRow, statuses: readonly string[]): Promise<Confirmation | null> {
    const [claimed] = await this.db
      .update(invoices)
      .set({ gatewayCheckedAt: sql`now()` })
      .where(
        and(
          eq(invoices.id, row.id),
          inArray(invoices.status, [...statuses]),
          or(
            isNull(invoices.gatewayCheckedAt),
            lte(invoices.gatewayCheckedAt, sql`now() - ${CHECK_EVERY}::interval`),
          ),
        ),
      )
      .returning({ id: invoices.id });
    if (!claimed) return null;
    const confirmation = await this.confirm(row);
    await this.db
      .update(invoices)
      .set({ gatewayMessage: confirmation.message })
      .where(eq(invoices.id, row.id));
    return confirmation;
  }

  /** Remesita's IPN: see {@link notifyRemesita} (services/billing/remesitaIpn.ts). */
  notifyRemesita(invoiceId: string, secret: string, notice: Record<string, unknown>): Promise<IpnOutcome> {
    return notifyRemesita(
      {
        db: this.db,
        remesita: this.deps.remesita,
        log: this.deps.log,
        cancel: (id) => this.cancel(id),
        paid: (id) => this.afterPaid(id),
      },
      invoiceId,
      secret,
      notice,
    );
  }

  /**
   * Marks the invoice paid (once: the pending → paid update is conditional) and delivers what it
   * bought. Returns whether this call marked it paid. A delivery that fails here (no active server,
   * a database error) is logged and left to the scheduler, which retries until it is done
   * ({@link deliverPending}): the payment is never lost, and the customer sees "delivery pending".
   */
  async credit(
    invoiceId: string,
    transactionUuid: string | null,
    from: readonly string[] = ['pending'],
  ): Promise<boolean> {
    const [paid] = await this.db
      .update(invoices)
      .set({
        status: 'paid',
        paidAt: sql`now()`,
        transactionUuid: transactionUuid ?? sql`${invoices.transactionUuid}`,
      })
      .where(and(eq(invoices.id, invoiceId), inArray(invoices.status, [...from])))
      .returning({ id: invoices.id });
    if (!paid) return false;
    await this.afterPaid(paid.id);
    return true;
  }

  /** After an invoice is marked paid (committed): the console hears it, and what it bought is delivered. */
  private async afterPaid(invoiceId: string): Promise<void> {
    await announceInvoice(this.deps.bus, invoiceId, 'paid');
    await this.deliver(invoiceId);
  }

  /**
   * Delivers a paid invoice, exactly once: the invoice row is locked, and the peer (or the added
   * plan) and `credited_at` are written in that one transaction, so a crash leaves either both or
   * neither. A concurrent or replayed delivery finds it credited and does nothing; the unique
   * plan_history.invoice_id refuses a second one regardless. Never throws: a failure is logged
   * (invoice id and reason) and the next attempt is scheduled. Returns whether this call delivered.
   */
  async deliver(invoiceId: string): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        const done = await this.db.transaction(async (tx) => {
          const [row] = await tx
            .select()
            .from(invoices)
            .where(and(eq(invoices.id, invoiceId), eq(invoices.status, 'paid'), isNull(invoices.creditedAt)))
            .for('update');
          if (!row) return null;
          return row.operation === 'new_peer' ? this.createPeer(tx, row) : this.extend(tx, row);
        });
        if (!done) return false;
        await this.announce(invoiceId, done);
        return true;
      } catch (err) {
        if (isUniqueViolation(err) && constraintOf(err) === 'plan_history_invoice') {
          // Its plan is already in place (credited_at was lost): a record to repair, not a second delivery.
          await this.markDelivered(invoiceId);
          return false;
        }
        // Two peers created at once may pick the same address: the unique index refuses one; retry.
        if (isUniqueViolation(err) && attempt < 5) continue;
        await this.deliveryFailed(invoiceId, err);
        return false;
      }
    }
  }

  /** After a delivery is committed: its agents and the owner (`created_peer` / `updated_peer`) are told. */
  private async announce(invoiceId: string, done: Delivered): Promise<void> {
    try {
      if (done.created) await this.deps.peers.announceCreated(done, done.customerId);
      else await this.deps.peers.announceUpdated(done);
      // The console's Facturas list shows delivery too.
      await announceInvoice(this.deps.bus, invoiceId, 'paid');
    } catch (err) {
      // Delivered all the same: agents converge from the change log on their next sync, and the
      // customer's list is read again when their socket reconnects.
      this.deps.log.error(
        { invoice: invoiceId, reason: reasonOf(err) },
        'factura entregada, pero no se pudo avisar al agente o al cliente',
      );
    }
  }

  /**
   * The scheduler's catch-up: every paid invoice not delivered yet whose retry time has come (one
   * failure waits 15 s, then 30 s, then every minute). `now` is for tests.
   */
  async deliverPending(now = new Date(), limit = 50): Promise<number> {
    // Claimed, not just read: the due rows are locked with SKIP LOCKED and their retry time moved
    // 2 minutes on, in one statement, so instances running this at once take different invoices
    // instead of all trying the same 50 (issue 33). A delivery's outcome sets the retry time
    // again; an instance that dies holding some leaves them to the others after those 2 minutes.
    const due = await this.db
      .update(invoices)
      .set({ deliveryRetryAt: sql`now() + interval '2 minutes'` })
      .where(
        inArray(
          invoices.id,
          this.db
            .select({ id: invoices.id })
            .from(invoices)
            .where(
              and(
                eq(invoices.status, 'paid'),
                isNull(invoices.creditedAt),
                or(isNull(invoices.deliveryRetryAt), lte(invoices.deliveryRetryAt, now)),
              ),
            )
            .orderBy(asc(invoices.paidAt))
            .limit(limit)
            .for('update', { skipLocked: true }),
        ),
      )
      .returning({ id: invoices.id, paidAt: invoices.paidAt });
    due.sort((a, b) => (a.paidAt?.getTime() ?? 0) - (b.paidAt?.getTime() ?? 0));
    let delivered = 0;
    for (const { id } of due) if (await this.deliver(id)) delivered++;
    return delivered;
  }

  private async markDelivered(invoiceId: string): Promise<void> {
    await this.db
      .update(invoices)
      .set({
        creditedAt: sql`now()`,
        deliveryRetryAt: null,
        peerId: sql`coalesce(${invoices.peerId}, (select ${planHistory.peerId} from ${planHistory} where ${planHistory.invoiceId} = ${invoiceId}))`,
      })
      .where(and(eq(invoices.id, invoiceId), isNull(invoices.creditedAt)));
    this.deps.log.warn(
      { invoice: invoiceId },
      'factura ya entregada sin marcar: marcada, nada se entrega dos veces',
    );
  }

  private async deliveryFailed(invoiceId: string, err: unknown): Promise<void> {
    // The reason only (a Spanish message such as "No hay servidores disponibles", or the failed
    // query's name and SQLSTATE): never the row, which holds the transaction reference, nor a
    // database error's message, which quotes the query's values.
    const reason = reasonOf(err);
    try {
      const [row] = await this.db
        .update(invoices)
        .set({
          deliveryAttempts: sql`${invoices.deliveryAttempts} + 1`,
          deliveryRetryAt: sql`now() + least(15 * power(2, ${invoices.deliveryAttempts}), 60) * interval '1 second'`,
        })
        .where(eq(invoices.id, invoiceId))
        .returning({ attempts: invoices.deliveryAttempts, retryAt: invoices.deliveryRetryAt });
      this.deps.log.error(
        { invoice: invoiceId, attempts: row?.attempts, retryAt: row?.retryAt, reason },
        'factura pagada sin entregar: se reintentará',
      );
    } catch (e) {
      this.deps.log.error(
        { invoice: invoiceId, reason, error: reasonOf(e) },
        'factura pagada sin entregar: no se pudo programar el reintento',
      );
    }
  }

  /** new_peer, inside the delivery transaction: on the least-loaded live server, with a free name. */
  private async createPeer(tx: Db, paid: InvoiceRow): Promise<Delivered> {
    const server = await pickServerForNewPeer(tx);
    const [plan] = await tx.select().from(plans).where(eq(plans.id, paid.planId));
    if (!plan) throw new Error('el plan de la factura ya no existe');
    const wanted = paid.newPeerName ?? 'Peer';
    let name = wanted;
    // A name the customer already uses gets a suffix rather than losing a paid peer.
    for (let i = 2; await this.nameTaken(tx, paid.customerId, name); i++) name = `${wanted} (${i})`;
    const created = await this.deps.peers.insertPeer(tx, {
      customerId: paid.customerId,
      server,
      name,
      plan,
      manualPayment: false,
      invoiceId: paid.id,
    });
    await tx
      .update(invoices)
      .set({ peerId: created.id, creditedAt: sql`now()`, deliveryRetryAt: null })
      .where(eq(invoices.id, paid.id));
    return { ...created, customerId: paid.customerId, created: true };
  }

  private async nameTaken(db: Db, customerId: number, name: string): Promise<boolean> {
    const rows = await db
      .select({ id: peers.id })
      .from(peers)
      .where(and(eq(peers.customerId, customerId), sql`lower(${peers.name}) = lower(${name})`));
    return rows.length > 0;
  }

  /**
   * add_plan, inside the delivery transaction: the peer service's one extend path (max(now, expiry)
   * + validity, switched on).
   */
  private async extend(tx: Db, paid: InvoiceRow): Promise<Delivered> {
    if (paid.peerId === null) throw new Error('el peer de la factura ya no existe');
    const [plan] = await tx.select().from(plans).where(eq(plans.id, paid.planId));
    if (!plan) throw new Error('el plan de la factura ya no existe');
    const done = await this.deps.peers.extendIn(
      tx,
      paid.peerId,
      // The history shows what was paid, even if the plan's name or price changed since.
      { ...plan, name: paid.planName, price: paid.amount },
      { invoiceId: paid.id },
    );
    await tx
      .update(invoices)
      .set({ creditedAt: sql`now()`, deliveryRetryAt: null })
      .where(eq(invoices.id, paid.id));
    return { ...done, created: false };
  }

  async cancel(invoiceId: string): Promise<boolean> {
    const rows = await this.db
      .update(invoices)
      .set({ status: 'canceled' })
      .where(and(eq(invoices.id, invoiceId), eq(invoices.status, 'pending')))
      .returning({ id: invoices.id });
    if (rows.length > 0) await announceInvoice(this.deps.bus, invoiceId, 'canceled');
    return rows.length > 0;
  }
}

/** The states a gateway's confirmed payment credits from: open, or closed before the money arrived. */
const CONFIRMABLE = ['pending', 'canceled', 'expired'] as const;

/** How often a customer's polls may ask a gateway about one invoice. */
const CHECK_EVERY = '30 seconds';
