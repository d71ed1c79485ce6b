/**
 * New peers: provisioning after a payment or a manager's grant, and the owner's push.
 */
import { and, eq, sql } from 'drizzle-orm';
import { msg, type Peer } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { peers, planHistory, plans } from '../../db/schema.ts';
import { encrypt, generatePresharedKey, generateWireguardKeyPair } from '../../lib/crypto.ts';
import { badRequest, conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import { ipv4FromIndex, nextAddressIndex } from '../fleet/addresses.ts';
import { recordChanges, type Revision } from '../fleet/desiredState.ts';
import { type ServerRow } from '../fleet/servers.ts';
import { bytesOfGb, newPeriod, speedTerms } from './planTerms.ts';
import { newMirrorToken } from './mirrorTokens.ts';
import { mirrorColumns } from './presentation.ts';
import { PeerMoves } from './moves.ts';

export class PeerCreation extends PeerMoves {
  /**
   * Creates a peer for a customer with a plan: keys, a fleet-wide address for life, a mirror token,
   * the plan's expiry and a history entry; then tells the server's agent and the owner.
   */
  async provision(input: {
    customerId: number;
    planId: number;
    name: string;
    server: ServerRow;
    manualPayment: boolean;
    origin?: string;
    /** Runs inside the creating transaction with the new peer's id (a manager's audit entry). */
    inTx?: (tx: Db, peerId: number) => Promise<void>;
  }): Promise<Peer> {
    const name = input.name.trim();
    if (!name) throw badRequest(msg.peerNameRequired, { name: msg.peerNameRequired });
    if (name.length > 40) throw badRequest(msg.peerNameTooLong, { name: msg.peerNameTooLong });
    const [plan] = await this.db.select().from(plans).where(eq(plans.id, input.planId));
    if (!plan) throw notFound(msg.planNotFound);
    const [clash] = await this.db
      .select({ id: peers.id })
      .from(peers)
      .where(and(eq(peers.customerId, input.customerId), sql`lower(${peers.name}) = lower(${name})`));
    if (clash) throw conflict(msg.peerNameTaken);
    for (let attempt = 0; ; attempt++) {
      try {
        const created = await this.db.transaction(async (tx) => {
          const made = await this.insertPeer(tx, { ...input, name, plan });
          await input.inTx?.(tx, made.id);
          return made;
        });
        return await this.announceCreated(created, input.customerId, input.origin);
      } catch (e) {
        // Two peers created at once may pick the same address: the unique index refuses one; retry.
        if (isUniqueViolation(e) && attempt < 5) continue;
        throw e;
      }
    }
  }

  /**
   * The rows of a new peer, inside the caller's transaction (a paid invoice delivers in the same
   * transaction that marks it delivered): address, keys, mirror token, expiry, the plan-history
   * entry (unique per invoice) and the change for its server's agent.
   */
  async insertPeer(
    tx: Db,
    input: {
      customerId: number;
      server: ServerRow;
      name: string;
      plan: typeof plans.$inferSelect;
      manualPayment: boolean;
      invoiceId?: string;
    },
  ): Promise<{ id: number; revisions: Revision[] }> {
    const key = this.deps.encryptionKey;
    const keys = generateWireguardKeyPair();
    const index = await nextAddressIndex(tx);
    const [created] = await tx
      .insert(peers)
      .values({
        customerId: input.customerId,
        serverId: input.server.id,
        name: input.name,
        addressIndex: index,
        address: ipv4FromIndex(index),
        publicKey: keys.publicKey,
        privateKeyEnc: encrypt(key, keys.privateKey),
        presharedKeyEnc: encrypt(key, generatePresharedKey()),
        ...mirrorColumns(newMirrorToken(key)),
        expiresAt: sql`now() + ${input.plan.validity}::interval`,
        manualPayment: input.manualPayment,
        ...newPeriod(input.plan.dataGb),
        ...speedTerms(input.plan),
      })
      .returning({ id: peers.id });
    await tx.insert(planHistory).values({
      peerId: created!.id,
      planId: input.plan.id,
      planName: input.plan.name,
      planPrice: input.plan.price,
      validity: input.plan.validity,
      dataBytes: bytesOfGb(input.plan.dataGb),
      invoiceId: input.invoiceId,
    });
    const revisions = await recordChanges(tx, [{ serverId: input.server.id, upsertPeerIds: [created!.id] }]);
    return { id: created!.id, revisions };
  }

  /** After a new peer is committed: its agent is told, the owner gets `created_peer`. */
  async announceCreated(
    created: { id: number; revisions: Revision[] },
    customerId: number,
    origin?: string,
  ): Promise<Peer> {
    for (const r of created.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    // The owner's push never carries the caller's origin (a manager's Host is not the customer's):
    // PUBLIC_URL, or a relative link the customer's SPA resolves against its own address.
    const peer = await this.presentOne(created.id);
    await this.push(customerId, { type: 'created_peer', peer });
    return origin ? this.presentOne(created.id, origin) : peer;
  }
}
