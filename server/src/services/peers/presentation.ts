/**
 * Peers as customers and managers see them: lookups through the owner, the spec's Peer, the .conf
 * and MikroTik files, mirror links, and the pushes to a peer's owner. The base of PeerService
 * (services/peers/peers.ts), which is split by what it does into a chain of classes.
 */
import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { msg, type Peer, type PeerOperation, type PushMessage } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, peerStats, peers, planHistory, servers } from '../../db/schema.ts';
import { decrypt } from '../../lib/crypto.ts';
import { badRequest, conflict, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { endpointOf, presentPeerServer, type ServerRow } from '../fleet/servers.ts';
import { ONLINE_WINDOW } from '../fleet/serverView.ts';
import { renderMikrotik, renderWgQuick, type ClientConfigInput, type ConfigScope } from './wgconfig.ts';
import type { newMirrorToken } from './mirrorTokens.ts';
import { mirrorTokenHash, openMirrorToken } from './mirrorTokens.ts';
import { concurrentUseOf } from './concurrentUseFields.ts';
import { graceEnd, presentSpeed } from '../fleet/peerSpeed.ts';

/** What a peer row keeps of a new mirror token. */
export const mirrorColumns = ({
  mirrorTokenEnc,
  mirrorTokenHash: hash,
}: ReturnType<typeof newMirrorToken>) => ({
  mirrorTokenEnc,
  mirrorTokenHash: hash,
});

export type PeerRow = typeof peers.$inferSelect;

/** The peer has a handshake within the online window (as `present` reads it), for one statement's columns. */
export const peerOnline = () =>
  sql<boolean>`exists (select 1 from ${peerStats} where ${peerStats.peerId} = ${peers.id} and ${peerStats.latestHandshake} > now() - ${ONLINE_WINDOW})`;

/**
 * What a caller already read in the same request, so `present` does not read it again (issue 33:
 * a re-key read the peer's row six times and its server three).
 */
export interface Known {
  /** Server rows; a peer on a server not among them has its server read. */
  servers?: ServerRow[];
  /** Ids of the peers online, when read with the rows (`peerOnline`): then not read again. */
  online?: Set<number>;
}

/** What a peer waits for: each server's agent acknowledging at least that revision. */
export interface Pending {
  op: PeerOperation;
  /** Origin of the request that started it, for the mirror link in the pushes that end it. */
  origin?: string;
  waits: { s: number; r: number }[];
  since: number;
}

export interface PeerServiceDeps {
  db: Db;
  encryptionKey: Buffer;
  bus: Bus;
  /**
   * Base URL for mirror links: PUBLIC_URL; else the requester's origin in answers to that requester,
   * and a relative link (resolved by the SPA) everywhere else.
   */
  publicUrl?: string;
}

export class PeerView {
  /** Also run after every ack (rooms waiting on agents settle there). */
  onSettled: (serverId: number) => Promise<void> = async () => {};

  constructor(protected readonly deps: PeerServiceDeps) {}

  protected get db() {
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

  async present(rows: PeerRow[], origin?: string, known: Known = {}): Promise<Peer[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((r) => r.id);
    const knownServers = known.servers ?? [];
    const serverIds = [
      ...new Set(rows.map((r) => r.serverId).filter((id) => !knownServers.some((s) => s.id === id))),
    ];
    const roomIds = [...new Set(rows.map((r) => r.roomId).filter((id): id is number => id !== null))];
    const [serverRows, history, roomRows, onlineRows] = await Promise.all([
      serverIds.length ? this.db.select().from(servers).where(inArray(servers.id, serverIds)) : [],
      this.db
        .select()
        .from(planHistory)
        .where(inArray(planHistory.peerId, ids))
        .orderBy(desc(planHistory.createdAt), desc(planHistory.id)),
      roomIds.length
        ? this.db.select({ id: rooms.id, name: rooms.name }).from(rooms).where(inArray(rooms.id, roomIds))
        : [],
      known.online
        ? []
        : this.db
            .select({ id: peerStats.peerId })
            .from(peerStats)
            .where(
              and(
                inArray(peerStats.peerId, ids),
                sql`${peerStats.latestHandshake} > now() - ${ONLINE_WINDOW}`,
              ),
            ),
    ]);
    const online = known.online ?? new Set(onlineRows.map((r) => r.id));
    const serverById = new Map([...knownServers, ...serverRows].map((s) => [s.id, s]));
    const roomById = new Map(roomRows.map((p) => [p.id, p]));
    return rows.map((row) => {
      const pending = row.pendingRevision as Pending | null;
      return {
        id: row.id,
        name: row.name,
        active: isLive(row),
        manager_disabled: row.managerDisabledAt !== null,
        expiration_date: row.expiresAt?.toISOString() ?? null,
        data:
          row.dataAllowance === null
            ? null
            : { used: Math.min(row.dataUsed, row.dataAllowance), allowance: row.dataAllowance },
        created: row.createdAt.toISOString(),
        address: row.address.replace(/\/\d+$/, ''),
        plans_history: history
          .filter((h) => h.peerId === row.id)
          .map((h) => ({
            plan_name: h.planName,
            plan_price: Number(h.planPrice),
            created: h.createdAt.toISOString(),
            ...(h.refundedAt ? { refunded: h.refundedAt.toISOString() } : {}),
          })),
        server: presentPeerServer(serverById.get(row.serverId)!),
        mirror_link: this.mirrorLink(openMirrorToken(this.deps.encryptionKey, row.mirrorTokenEnc), origin),
        party: row.roomId !== null ? (roomById.get(row.roomId) ?? null) : null,
        manual_payment: row.manualPayment,
        processing: pending?.op ?? null,
        online: online.has(row.id),
        concurrent_use: concurrentUseOf(row),
        speed: presentSpeed(row),
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

  /** The peer as it is now; its online state is read with its row (one statement fewer). */
  async presentOne(peerId: number, origin?: string, known: Omit<Known, 'online'> = {}): Promise<Peer> {
    const [found] = await this.db
      .select({ row: peers, online: peerOnline() })
      .from(peers)
      .where(eq(peers.id, peerId));
    if (!found) throw notFound(msg.peerNotFound);
    const online = new Set(found.online ? [peerId] : []);
    return (await this.present([found.row], origin, { ...known, online }))[0]!;
  }

  protected async configInput(row: PeerRow): Promise<ClientConfigInput> {
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

  /**
   * The `.conf` (or MikroTik script) of an active peer of this customer. `room` is the room-only
   * tunnel, offered only to a peer that is in a room: it routes the whole pool, so it stays valid
   * when mates come and go (and after the peer leaves it simply reaches nobody).
   */
  async config(
    customerId: number,
    peerId: number,
    format: 'conf' | 'mikrotik' = 'conf',
    scope: ConfigScope = 'full',
  ): Promise<{ name: string; text: string }> {
    const row = await this.getOwned(customerId, peerId);
    if (!isLive(row)) throw badRequest(msg.peerInactiveDownload);
    if (scope === 'room' && row.roomId === null) throw conflict(msg.peerNotInRoom);
    const input = await this.configInput(row);
    return {
      name: row.name,
      text: format === 'mikrotik' ? renderMikrotik(input, scope) : renderWgQuick(input, scope),
    };
  }

  /**
   * The mirror link's answer: the current `.conf` of the peer with this token, if it is live or
   * only expired (or out of data). An expired peer's tunnel is off on its server, but its link keeps answering the
   * same configuration, so a renewal needs no new import; a peer a manager switched off does not.
   */
  async configByMirrorToken(
    token: string,
  ): Promise<{ id: number; name: string; text: string; expiresAt: Date | null } | null> {
    if (!/^[A-Za-z0-9_-]{32,64}$/.test(token)) return null;
    const [row] = await this.db
      .select()
      .from(peers)
      .where(eq(peers.mirrorTokenHash, mirrorTokenHash(token)));
    // Out of time or out of data: off on its server, but a plan brings it back as it was.
    const expired =
      (row?.expiresAt != null && row.expiresAt.getTime() <= Date.now()) || row?.dataExhaustedAt != null;
    // A manager's switch-off wins over everything, expiry and exhaustion included (issue 26).
    if (!row || row.managerDisabledAt !== null || !(isLive(row) || expired)) return null;
    // A disabled customer's peers are off their servers: their mirror links serve nothing either.
    const [owner] = await this.db
      .select({ active: customers.active })
      .from(customers)
      .where(eq(customers.id, row.customerId));
    if (!owner?.active) return null;
    return {
      id: row.id,
      name: row.name,
      text: renderWgQuick(await this.configInput(row)),
      expiresAt: row.expiresAt,
    };
  }

  async push(customerId: number, message: PushMessage): Promise<void> {
    await this.deps.bus.publish({ kind: 'user', realm: 'customer', userId: customerId, message });
  }

  /** Many customers' messages, PUSH_BATCH per bus event (in order). */
  async pushMany(pushes: { customerId: number; message: PushMessage }[]): Promise<void> {
    for (let i = 0; i < pushes.length; i += PUSH_BATCH)
      await this.deps.bus.publish({
        kind: 'users',
        pushes: pushes
          .slice(i, i + PUSH_BATCH)
          .map((p) => ({ realm: 'customer' as const, userId: p.customerId, message: p.message })),
      });
  }
}

/** Messages per bus event of pushMany (~0.7 KB each: a stored event of ~350 KB). */
const PUSH_BATCH = 500;

export function isLive(row: PeerRow): boolean {
  return (
    row.active &&
    // Within its expiry, or its plan's grace days after it at the reduced speed (issue 35).
    (graceEnd(row)?.getTime() ?? Infinity) > Date.now() &&
    // Within its data, or out of it on a plan that reduces the speed instead of cutting (issue 35).
    (row.dataAllowance === null || row.dataUsed < row.dataAllowance || row.reduceOnExhausted)
  );
}
