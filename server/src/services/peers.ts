import { and, asc, desc, eq, inArray, isNotNull, lte, sql } from 'drizzle-orm';
import { msg, type Peer, type PeerOperation, type PushMessage } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { parties, peers, planHistory, plans, servers } from '../db/schema.ts';
import {
  decrypt,
  encrypt,
  generatePresharedKey,
  generateWireguardKeyPair,
  randomToken,
} from '../lib/crypto.ts';
import { badRequest, conflict, isUniqueViolation, notFound } from '../lib/errors.ts';
import type { Bus } from '../realtime/bus.ts';
import { ipv4FromIndex, nextAddressIndex } from './addresses.ts';
import { recordChanges, type Change, type Revision } from './desiredState.ts';
import { agentOnline, endpointOf, presentPeerServer, type ServerRow } from './servers.ts';
import { renderMikrotik, renderWgQuick, type ClientConfigInput } from './wgconfig.ts';

type PeerRow = typeof peers.$inferSelect;

/** What a peer waits for: each server's agent acknowledging at least that revision. */
interface Pending {
  op: PeerOperation;
  /** Origin of the request that started it, for the mirror link in the pushes that end it. */
  origin?: string;
  waits: { s: number; r: number }[];
  since: number;
}

/** A busy peer whose agents have not answered by then stops being busy (with an `info` push). */
export const PENDING_TIMEOUT_MS = 30_000;

const fill = (text: string, values: Record<string, string>) =>
  text.replace(/\{(\w+)\}/g, (_, k: string) => values[k] ?? '');
export interface PeerServiceDeps {
  db: Db;
  encryptionKey: Buffer;
  bus: Bus;
  /** Base URL for mirror links (PUBLIC_URL, else the request's origin). */
  publicUrl?: string;
}

/** Everything a customer (and a manager) can do to peers; every lookup goes through the owner. */
export class PeerService {
  /** Also run after every ack (rooms waiting on agents settle there). */
  onSettled: (serverId: number) => Promise<void> = async () => {};

  constructor(private readonly deps: PeerServiceDeps) {}

  private get db() {
    return this.deps.db;
  }

  mirrorLink(token: string, origin?: string): string {
    return `${this.deps.publicUrl ?? origin ?? ''}/api/mirror/${token}`;
  }

  /** The peer, only if it belongs to this customer (another customer's id is simply not found). */
  async getOwned(customerId: number, peerId: number): Promise<PeerRow> {
    const [row] = await this.db
      .select()
      .from(peers)
      .where(and(eq(peers.id, peerId), eq(peers.customerId, customerId)));
    if (!row) throw notFound(msg.peerNotFound);
    return row;
  }

  async present(rows: PeerRow[], origin?: string): Promise<Peer[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const serverIds = [...new Set(rows.map((r) => r.serverId))];
    const partyIds = [...new Set(rows.map((r) => r.partyId).filter((id): id is number => id !== null))];
    const [serverRows, history, partyRows] = await Promise.all([
      this.db.select().from(servers).where(inArray(servers.id, serverIds)),
      this.db
        .select()
        .from(planHistory)
        .where(inArray(planHistory.peerId, ids))
        .orderBy(desc(planHistory.createdAt), desc(planHistory.id)),
      partyIds.length
        ? this.db
            .select({ id: parties.id, name: parties.name })
            .from(parties)
            .where(inArray(parties.id, partyIds))
        : [],
    ]);
    const serverById = new Map(serverRows.map((s) => [s.id, s]));
    const partyById = new Map(partyRows.map((p) => [p.id, p]));
    return rows.map((row) => {
      const pending = row.pendingRevision as Pending | null;
      return {
        id: row.id,
        name: row.name,
        active: row.active && (row.expiresAt === null || row.expiresAt.getTime() > Date.now()),
        expiration_date: row.expiresAt?.toISOString() ?? null,
        created: row.createdAt.toISOString(),
        address: row.address.replace(/\/\d+$/, ''),
        plans_history: history
          .filter((h) => h.peerId === row.id)
          .map((h) => ({
            plan_name: h.planName,
            plan_price: Number(h.planPrice),
            created: h.createdAt.toISOString(),
          })),
        server: presentPeerServer(serverById.get(row.serverId)!),
        mirror_link: this.mirrorLink(row.mirrorToken, origin),
        party: row.partyId !== null ? (partyById.get(row.partyId) ?? null) : null,
        manual_payment: row.manualPayment,
        processing: pending?.op ?? null,
      };
    });
  }

  async list(customerId: number, origin?: string): Promise<Peer[]> {
    const rows = await this.db
      .select()
      .from(peers)
      .where(eq(peers.customerId, customerId))
      .orderBy(asc(peers.id));
    return this.present(rows, origin);
  }

  async presentOne(peerId: number, origin?: string): Promise<Peer> {
    const [row] = await this.db.select().from(peers).where(eq(peers.id, peerId));
    if (!row) throw notFound(msg.peerNotFound);
    return (await this.present([row], origin))[0]!;
  }

  private async configInput(row: PeerRow): Promise<ClientConfigInput> {
    const [server] = await this.db.select().from(servers).where(eq(servers.id, row.serverId));
    const key = this.deps.encryptionKey;
    return {
      name: row.name,
      privateKey: decrypt(key, row.privateKeyEnc),
      presharedKey: decrypt(key, row.presharedKeyEnc),
      address: row.address.replace(/\/\d+$/, ''),
      dns: server!.dns,
      mtu: server!.mtu,
      serverPublicKey: server!.publicKey,
      endpoint: endpointOf(server!),
      endpointHost: server!.host,
      endpointPort: server!.port,
    };
  }

  private static isLive(row: PeerRow): boolean {
    return row.active && (row.expiresAt === null || row.expiresAt.getTime() > Date.now());
  }

  /** The `.conf` of an active peer of this customer. */
  async config(
    customerId: number,
    peerId: number,
    format: 'conf' | 'mikrotik' = 'conf',
  ): Promise<{ name: string; text: string }> {
    const row = await this.getOwned(customerId, peerId);
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactiveDownload);
    const input = await this.configInput(row);
    return { name: row.name, text: format === 'mikrotik' ? renderMikrotik(input) : renderWgQuick(input) };
  }

  /** The mirror link's answer: the current `.conf` of the peer with this token, if it is live. */
  async configByMirrorToken(
    token: string,
  ): Promise<{ name: string; text: string; expiresAt: Date | null } | null> {
    if (!/^[A-Za-z0-9_-]{32,64}$/.test(token)) return null;
    const [row] = await this.db.select().from(peers).where(eq(peers.mirrorToken, token));
    if (!row || !PeerService.isLive(row)) return null;
    return { name: row.name, text: renderWgQuick(await this.configInput(row)), expiresAt: row.expiresAt };
  }

  /** New mirror token: the old URL stops working at once. */
  async regenerateMirror(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const row = await this.getOwned(customerId, peerId);
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactive);
    await this.db
      .update(peers)
      .set({ mirrorToken: randomToken(32), updatedAt: sql`now()` })
      .where(eq(peers.id, row.id));
    return this.presentOne(row.id, origin);
  }

  /** New key pair and preshared key; the address stays. Asynchronous: the peer is busy until the agent acks. */
  async regenerate(customerId: number, peerId: number, origin?: string): Promise<Peer> {
    const row = await this.getOwned(customerId, peerId);
    this.assertActionable(row);
    const keys = generateWireguardKeyPair();
    const revisions = await this.db.transaction(async (tx) => {
      await tx
        .update(peers)
        .set({
          publicKey: keys.publicKey,
          privateKeyEnc: encrypt(this.deps.encryptionKey, keys.privateKey),
          presharedKeyEnc: encrypt(this.deps.encryptionKey, generatePresharedKey()),
          updatedAt: sql`now()`,
        })
        .where(eq(peers.id, row.id));
      return recordChanges(tx as unknown as Db, [
        { serverId: row.serverId, upsertPeerIds: [row.id], removeKeys: [row.publicKey] },
      ]);
    });
    return this.afterChange(row, 'regenerate', revisions, origin);
  }

  /** Moves the peer to another active server; keys and address stay, so only the server part of the `.conf` changes. */
  async changeServer(customerId: number, peerId: number, serverId: number, origin?: string): Promise<Peer> {
    const row = await this.getOwned(customerId, peerId);
    this.assertActionable(row);
    if (serverId === row.serverId) throw badRequest(msg.sameServer);
    const [target] = await this.db.select().from(servers).where(eq(servers.id, serverId));
    if (!target) throw notFound(msg.serverNotFound);
    if (!target.active) throw badRequest(msg.serverUnavailable);
    // A peer in a room keeps its room: only to a server that allows rooms, and every server of its
    // room mates recomputes its mesh links.
    if (row.partyId !== null && !target.allowPartys) throw badRequest(msg.partyPeerServer);
    const mates =
      row.partyId !== null
        ? (await this.db.select({ s: peers.serverId }).from(peers).where(eq(peers.partyId, row.partyId))).map(
            (m) => m.s,
          )
        : [];
    const revisions = await this.db.transaction(async (tx) => {
      await tx
        .update(peers)
        .set({ serverId, updatedAt: sql`now()` })
        .where(eq(peers.id, row.id));
      const full = row.partyId !== null;
      return recordChanges(tx as unknown as Db, [
        { serverId: row.serverId, removeKeys: [row.publicKey], full },
        { serverId, upsertPeerIds: [row.id], full },
        ...[...new Set(mates)]
          .filter((s) => s !== serverId && s !== row.serverId)
          .map((s) => ({ serverId: s, full: true })),
      ]);
    });
    return this.afterChange(row, 'change_server', revisions, origin);
  }

  private assertActionable(row: PeerRow): void {
    if (!PeerService.isLive(row)) throw badRequest(msg.peerInactive);
    if (row.pendingOperation) throw conflict(msg.peerBusy);
  }

  /**
   * After a change is committed: tell the agents (bus), and either mark the peer busy until the
   * online agents ack, or — when an involved agent is offline — tell the owner it is queued.
   */
  private async afterChange(
    row: PeerRow,
    op: PeerOperation,
    revisions: Revision[],
    origin?: string,
  ): Promise<Peer> {
    const serverRows = await this.db
      .select()
      .from(servers)
      .where(
        inArray(
          servers.id,
          revisions.map((r) => r.serverId),
        ),
      );
    const byId = new Map(serverRows.map((s) => [s.id, s]));
    const offline = revisions
      .map((r) => byId.get(r.serverId))
      .filter((s): s is ServerRow => !!s && !agentOnline(s));
    // With an agent offline the change is queued for it and the owner told so: nothing to wait for.
    const waits = offline.length > 0 ? [] : revisions.map((r) => ({ s: r.serverId, r: r.revision }));
    if (waits.length > 0) {
      const pending: Pending = { op, origin, waits, since: Date.now() };
      await this.db
        .update(peers)
        .set({ pendingOperation: op, pendingRevision: pending })
        .where(eq(peers.id, row.id));
    }
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    if (offline.length > 0) {
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.agentOffline, { server: offline.map((s) => s.name).join(', '), name: row.name }),
      });
    }
    if (waits.length === 0) {
      const peer = await this.presentOne(row.id, origin);
      await this.push(row.customerId, { type: 'updated_peer', peer });
      return peer;
    }
    // Acks may already have arrived (fast agents); settle now rather than wait for the next one.
    for (const w of waits) await this.settleAcks(w.s);
    return this.presentOne(row.id, origin);
  }

  async push(customerId: number, message: PushMessage): Promise<void> {
    await this.deps.bus.publish({ kind: 'user', realm: 'customer', userId: customerId, message });
  }

  /**
   * Called when a server's agent acknowledges a revision: peers whose every wait is now satisfied
   * stop being busy, and their owners get `updated_peer` then `success`.
   */
  async settleAcks(serverId: number): Promise<void> {
    await this.onSettled(serverId);
    const candidates = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`${peers.pendingRevision} -> 'waits' @> ${JSON.stringify([{ s: serverId }])}::jsonb`,
        ),
      );
    if (candidates.length === 0) return;
    const involved = [
      ...new Set(candidates.flatMap((c) => (c.pendingRevision as Pending).waits.map((w) => w.s))),
    ];
    const acked = new Map(
      (
        await this.db
          .select({ id: servers.id, acked: servers.ackedRevision })
          .from(servers)
          .where(inArray(servers.id, involved))
      ).map((s) => [s.id, s.acked]),
    );
    for (const c of candidates) {
      const pending = c.pendingRevision as Pending;
      if (!pending.waits.every((w) => (acked.get(w.s) ?? 0) >= w.r)) continue;
      await this.finish(c, pending, 'success');
    }
  }

  /**
   * The agent of a server could not apply up to `revision`: peers waiting on it stop being busy
   * with an `error` push (the change stays desired; the agent keeps retrying).
   */
  async failPending(serverId: number, revision: number): Promise<void> {
    const candidates = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`${peers.pendingRevision} -> 'waits' @> ${JSON.stringify([{ s: serverId }])}::jsonb`,
        ),
      );
    for (const c of candidates) {
      const pending = c.pendingRevision as Pending;
      if (pending.waits.some((w) => w.s === serverId && w.r <= revision))
        await this.finish(c, pending, 'error');
    }
  }

  /** Ends a busy state once (of two instances racing, one wins) and tells the owner. */
  private async finish(
    row: PeerRow,
    pending: Pending,
    outcome: 'success' | 'timeout' | 'error',
  ): Promise<void> {
    const cleared = await this.db
      .update(peers)
      .set({ pendingOperation: null, pendingRevision: null })
      .where(and(eq(peers.id, row.id), sql`${peers.pendingRevision} = ${JSON.stringify(pending)}::jsonb`))
      .returning({ id: peers.id, serverId: peers.serverId });
    if (cleared.length === 0) return;
    const peer = await this.presentOne(row.id, pending.origin);
    await this.push(row.customerId, { type: 'updated_peer', peer });
    if (outcome === 'success') {
      const text = pending.op === 'regenerate' ? msg.peerRegenerated : msg.peerMoved;
      await this.push(row.customerId, {
        type: 'success',
        peer_id: row.id,
        message: fill(text, { name: row.name, server: peer.server.name }),
      });
    } else if (outcome === 'error') {
      await this.push(row.customerId, {
        type: 'error',
        peer_id: row.id,
        message: fill(msg.peerOpFailed, { name: row.name }),
      });
    } else {
      const [server] = await this.db.select().from(servers).where(eq(servers.id, cleared[0]!.serverId));
      await this.push(row.customerId, {
        type: 'info',
        peer_id: row.id,
        message: fill(msg.agentOffline, { server: server?.name ?? '', name: row.name }),
      });
    }
  }

  /** Busy states older than PENDING_TIMEOUT_MS end with an `info` (the change stays queued for the agent). */
  async expirePending(now = Date.now()): Promise<void> {
    const rows = await this.db
      .select()
      .from(peers)
      .where(
        and(
          isNotNull(peers.pendingOperation),
          sql`(${peers.pendingRevision} ->> 'since')::bigint <= ${now - PENDING_TIMEOUT_MS}`,
        ),
      );
    for (const row of rows) await this.finish(row, row.pendingRevision as Pending, 'timeout');
  }

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
    invoiceId?: string;
    origin?: string;
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
    const key = this.deps.encryptionKey;
    for (let attempt = 0; ; attempt++) {
      const keys = generateWireguardKeyPair();
      try {
        const { id, revisions } = await this.db.transaction(async (tx) => {
          const index = await nextAddressIndex(tx as unknown as Db);
          const [created] = await tx
            .insert(peers)
            .values({
              customerId: input.customerId,
              serverId: input.server.id,
              name,
              addressIndex: index,
              address: ipv4FromIndex(index),
              publicKey: keys.publicKey,
              privateKeyEnc: encrypt(key, keys.privateKey),
              presharedKeyEnc: encrypt(key, generatePresharedKey()),
              mirrorToken: randomToken(32),
              expiresAt: sql`now() + ${plan.validity}::interval`,
              manualPayment: input.manualPayment,
            })
            .returning({ id: peers.id });
          await tx.insert(planHistory).values({
            peerId: created!.id,
            planId: plan.id,
            planName: plan.name,
            planPrice: plan.price,
            validity: plan.validity,
            invoiceId: input.invoiceId,
          });
          const revisions = await recordChanges(tx as unknown as Db, [
            { serverId: input.server.id, upsertPeerIds: [created!.id] },
          ]);
          return { id: created!.id, revisions };
        });
        for (const r of revisions)
          await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
        const peer = await this.presentOne(id, input.origin);
        await this.push(input.customerId, { type: 'created_peer', peer });
        return peer;
      } catch (e) {
        // Two peers created at once may pick the same address: the unique index refuses one; retry.
        if (isUniqueViolation(e) && attempt < 5) continue;
        throw e;
      }
    }
  }

  /**
   * A manager switches a peer on or off or sets its expiry; its server converges (the delta
   * builder turns a peer that is no longer live into a removal) and the owner sees it live.
   */
  async adminUpdate(
    peerId: number,
    patch: { active?: boolean; expiresAt?: Date | null },
    origin?: string,
  ): Promise<Peer> {
    const [row] = await this.db.select().from(peers).where(eq(peers.id, peerId));
    if (!row) throw notFound(msg.peerNotFound);
    const revisions = await this.db.transaction(async (tx) => {
      await tx
        .update(peers)
        .set({
          ...(patch.active !== undefined ? { active: patch.active } : {}),
          ...(patch.expiresAt !== undefined ? { expiresAt: patch.expiresAt } : {}),
          updatedAt: sql`now()`,
        })
        .where(eq(peers.id, peerId));
      return recordChanges(tx as unknown as Db, [{ serverId: row.serverId, upsertPeerIds: [row.id] }]);
    });
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    const peer = await this.presentOne(peerId, origin);
    await this.push(row.customerId, { type: 'updated_peer', peer });
    return peer;
  }

  /** Disables peers whose plan ran out; their servers drop them and the owners see it live. */
  async disableExpired(): Promise<number> {
    const expired = await this.db.transaction(async (tx) => {
      const rows = await tx
        .update(peers)
        .set({ active: false, updatedAt: sql`now()` })
        .where(and(eq(peers.active, true), lte(peers.expiresAt, sql`now()`)))
        .returning({
          id: peers.id,
          customerId: peers.customerId,
          serverId: peers.serverId,
          publicKey: peers.publicKey,
        });
      const byServer = new Map<number, Change>();
      for (const r of rows) {
        const change = byServer.get(r.serverId) ?? { serverId: r.serverId, removeKeys: [] };
        change.removeKeys!.push(r.publicKey);
        byServer.set(r.serverId, change);
      }
      const revisions = await recordChanges(tx as unknown as Db, [...byServer.values()]);
      return { rows, revisions };
    });
    for (const r of expired.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    for (const r of expired.rows)
      await this.push(r.customerId, { type: 'updated_peer', peer: await this.presentOne(r.id) });
    return expired.rows.length;
  }
}
