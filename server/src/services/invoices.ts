import { and, eq, sql } from 'drizzle-orm';
import { msg, type Invoice, type InvoiceBody } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { invoices, peers, planHistory, plans } from '../db/schema.ts';
import { badRequest, HttpError, notFound, UUID_RE } from '../lib/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { recordChanges } from './desiredState.ts';
import { GatewayError, type Gateway } from './gateways.ts';
import type { PeerService } from './peers.ts';
import { pickServerForNewPeer } from './servers.ts';
import { getSiteSettings } from './settings.ts';

type InvoiceRow = typeof invoices.$inferSelect;

export interface InvoiceDeps {
  db: Db;
  bus: Bus;
  peers: PeerService;
  qvapay: Gateway | null;
  sandbox: Gateway | null;
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

  /** The gateway new invoices go to: QvaPay when switched on and configured, else the sandbox if enabled. */
  async gateway(): Promise<Gateway | null> {
    const site = await getSiteSettings(this.db);
    if (site.allow_payments_qvapay && this.deps.qvapay) return this.deps.qvapay;
    return this.deps.sandbox;
  }

  async create(
    customerId: number,
    body: InvoiceBody,
    origin: string,
  ): Promise<{ id: string; payment_url: string }> {
    const [plan] = await this.db
      .select()
      .from(plans)
      .where(and(eq(plans.id, body.plan), eq(plans.active, true)));
    if (!plan) throw notFound(msg.planNotFound);
    let peerId: number | null = null;
    let newPeerName: string | null = null;
    if (body.operation === 'add_plan') {
      if (typeof body.peer !== 'number') throw badRequest(msg.purchasePeerRequired);
      const peer = await this.deps.peers.getOwned(customerId, body.peer);
      if (peer.manualPayment) throw badRequest(msg.purchaseManualPeer);
      peerId = peer.id;
    } else {
      newPeerName = typeof body.peer === 'string' ? body.peer.trim() : '';
      if (!newPeerName) throw badRequest(msg.purchasePeerRequired);
      if (newPeerName.length > 40) throw badRequest(msg.peerNameTooLong);
    }
    const gateway = await this.gateway();
    if (!gateway) throw badRequest(msg.noGateway);
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
      })
      .returning();
    const invoice = row!;
    try {
      const payment = await gateway.create(
        {
          id: invoice.id,
          amount: Number(plan.price),
          description: `${plan.name} — ${newPeerName ?? `peer ${peerId}`}`,
        },
        origin,
      );
      await this.db
        .update(invoices)
        .set({
          paymentUrl: payment.paymentUrl,
          transactionUuid: payment.transactionUuid,
          remoteId: invoice.id,
        })
        .where(eq(invoices.id, invoice.id));
      return { id: invoice.id, payment_url: payment.paymentUrl };
    } catch (e) {
      await this.db.update(invoices).set({ status: 'failed' }).where(eq(invoices.id, invoice.id));
      if (e instanceof GatewayError) throw new HttpError(502, msg.gatewayFailed, 'gateway');
      throw e;
    }
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

  /** The invoice as the payment-result page shows it; a pending QvaPay invoice is checked with QvaPay first. */
  async present(customerId: number, id: string): Promise<Invoice> {
    let row = await this.getOwned(customerId, id);
    if (row.status === 'pending' && row.gateway === 'qvapay' && row.transactionUuid) {
      await this.confirmQvapay(row.transactionUuid, row.id).catch(() => false);
      row = await this.getOwned(customerId, id);
    }
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
    };
  }

  /**
   * A QvaPay notification (or a status check): believed only after asking QvaPay itself, and only
   * if the transaction belongs to this invoice and pays its full amount.
   */
  async confirmQvapay(transactionUuid: string, remoteId: string | null): Promise<boolean> {
    if (!this.deps.qvapay || !transactionUuid || transactionUuid.length > 100) return false;
    const verified = await this.deps.qvapay.verify(transactionUuid);
    const invoiceId = verified.remoteId ?? remoteId;
    if (!verified.paid || !invoiceId || !UUID_RE.test(invoiceId)) return false;
    if (remoteId && verified.remoteId && remoteId !== verified.remoteId) return false;
    const [row] = await this.db
      .select()
      .from(invoices)
      .where(and(eq(invoices.id, invoiceId), eq(invoices.gateway, 'qvapay')));
    if (!row || (verified.amount !== null && verified.amount + 1e-9 < Number(row.amount))) return false;
    return this.credit(row.id, transactionUuid);
  }

  /** Marks paid and delivers what was bought, once. Returns whether this call did it. */
  async credit(invoiceId: string, transactionUuid: string | null): Promise<boolean> {
    const [paid] = await this.db
      .update(invoices)
      .set({
        status: 'paid',
        paidAt: sql`now()`,
        transactionUuid: transactionUuid ?? sql`${invoices.transactionUuid}`,
      })
      .where(and(eq(invoices.id, invoiceId), eq(invoices.status, 'pending')))
      .returning();
    if (!paid) return false;
    if (paid.operation === 'new_peer') {
      const server = await pickServerForNewPeer(this.db);
      let name = paid.newPeerName ?? 'Peer';
      // A name the customer already uses gets a suffix rather than losing a paid peer.
      for (let i = 2; await this.nameTaken(paid.customerId, name); i++) name = `${paid.newPeerName} (${i})`;
      const peer = await this.deps.peers.provision({
        customerId: paid.customerId,
        planId: paid.planId,
        name,
        server,
        manualPayment: false,
        invoiceId: paid.id,
      });
      await this.db
        .update(invoices)
        .set({ peerId: peer.id, creditedAt: sql`now()` })
        .where(eq(invoices.id, paid.id));
    } else if (paid.peerId !== null) {
      await this.extend(paid);
    }
    return true;
  }

  private async nameTaken(customerId: number, name: string): Promise<boolean> {
    const rows = await this.db
      .select({ id: peers.id })
      .from(peers)
      .where(and(eq(peers.customerId, customerId), sql`lower(${peers.name}) = lower(${name})`));
    return rows.length > 0;
  }

  /** add_plan: expiry moves from max(now, current expiry) by the plan's validity; the peer is switched on. */
  private async extend(paid: InvoiceRow): Promise<void> {
    const [plan] = await this.db.select().from(plans).where(eq(plans.id, paid.planId));
    const revisions = await this.db.transaction(async (tx) => {
      const [peer] = await tx
        .update(peers)
        .set({
          expiresAt: sql`greatest(now(), coalesce(${peers.expiresAt}, now())) + ${plan!.validity}::interval`,
          active: true,
          updatedAt: sql`now()`,
        })
        .where(eq(peers.id, paid.peerId!))
        .returning();
      await tx.insert(planHistory).values({
        peerId: peer!.id,
        planId: plan!.id,
        planName: paid.planName,
        planPrice: paid.amount,
        validity: plan!.validity,
        invoiceId: paid.id,
      });
      await tx
        .update(invoices)
        .set({ creditedAt: sql`now()` })
        .where(eq(invoices.id, paid.id));
      return recordChanges(tx as unknown as Db, [{ serverId: peer!.serverId, upsertPeerIds: [peer!.id] }]);
    });
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    await this.deps.peers.push(paid.customerId, {
      type: 'updated_peer',
      peer: await this.deps.peers.presentOne(paid.peerId!),
    });
  }

  async cancel(invoiceId: string): Promise<boolean> {
    const rows = await this.db
      .update(invoices)
      .set({ status: 'canceled' })
      .where(and(eq(invoices.id, invoiceId), eq(invoices.status, 'pending')))
      .returning({ id: invoices.id });
    return rows.length > 0;
  }
}
