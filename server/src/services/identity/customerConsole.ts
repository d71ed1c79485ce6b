import { and, asc, count, desc, eq, gt, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import {
  customersMsg,
  msg,
  type AdminCustomer,
  type AdminCustomerDetail,
  type CustomerListQuery,
  type CustomerPatch,
  type Paged,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, peers, refreshTokens, servers } from '../../db/schema.ts';
import { badRequest, conflict, HttpError, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { AccountService } from './account.ts';
import { revocationTime } from './sessions.ts';
import { invoicePage } from '../billing/invoiceConsole.ts';
import { auditedTransaction, diffFields, writeAudit, type Actor } from '../site/audit.ts';
import { peerIsLive, recordChanges, type Change } from '../fleet/desiredState.ts';
import { lowerContains, pageOf } from '../../db/listing.ts';
import type { Mailer } from '../site/mailer.ts';

type CustomerRow = typeof customers.$inferSelect;

export interface CustomerAdminDeps {
  db: Db;
  bus: Bus;
  account: AccountService;
  mailer: Mailer;
}

/** How many invoices the customer's detail carries (the Facturas page lists the rest). */
const DETAIL_INVOICES = 50;

/**
 * The manager console's Clientes: search, detail (peers, invoices, rooms, open sessions), disable /
 * enable, and a password-reset mail. Every change writes its audit entry in its own transaction.
 */
export class CustomerAdminService {
  constructor(private readonly deps: CustomerAdminDeps) {}

  private get db() {
    return this.deps.db;
  }

  /**
   * One page of customers, newest first. The search is `lower(col) LIKE '%q%'` on username, e-mail
   * and alias (the trigram indexes of migration 0005 serve each; PostgreSQL ORs their bitmaps), and
   * the count uses the same WHERE.
   */
  async list(query: CustomerListQuery): Promise<Paged<AdminCustomer>> {
    const where = and(
      query.q
        ? or(
            lowerContains(customers.username, query.q),
            lowerContains(customers.email, query.q),
            lowerContains(customers.alias, query.q),
          )
        : undefined,
      query.state ? eq(customers.active, query.state === 'active') : undefined,
    );
    const { limit, offset } = pageOf(query);
    const [rows, [total]] = await Promise.all([
      this.db
        .select()
        .from(customers)
        .where(where)
        .orderBy(desc(customers.createdAt), desc(customers.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(customers).where(where),
    ]);
    return { count: total?.n ?? 0, results: await this.present(rows) };
  }

  /** Presents a page of rows; their peer counts come from one grouped query, not one per row. */
  private async present(rows: CustomerRow[]): Promise<AdminCustomer[]> {
    if (rows.length === 0) return [];
    const counts = await this.db
      .select({
        customerId: peers.customerId,
        total: count(),
        live: sql<number>`count(*) filter (where ${peers.active} and (${peers.expiresAt} is null or ${peers.expiresAt} > now()))::int`,
      })
      .from(peers)
      .where(
        inArray(
          peers.customerId,
          rows.map((r) => r.id),
        ),
      )
      .groupBy(peers.customerId);
    const byId = new Map(counts.map((c) => [c.customerId, c]));
    return rows.map((r) => ({
      id: r.id,
      username: r.username,
      email: r.email,
      email_verified: r.emailVerified,
      alias: r.alias,
      disabled: !r.active,
      created: r.createdAt.toISOString(),
      peers: byId.get(r.id)?.total ?? 0,
      // A disabled customer's peers are off their servers whatever their own switch says.
      live_peers: r.active ? (byId.get(r.id)?.live ?? 0) : 0,
    }));
  }

  private async load(id: number): Promise<CustomerRow> {
    const [row] = await this.db.select().from(customers).where(eq(customers.id, id));
    if (!row) throw notFound(msg.customerNotFound);
    return row;
  }

  /** The customer with their peers, newest invoices, rooms and open sessions. */
  async detail(id: number): Promise<AdminCustomerDetail> {
    const row = await this.load(id);
    const [[summary], peerRows, invoices, sessions] = await Promise.all([
      this.present([row]),
      this.db
        .select({
          peer: peers,
          serverName: servers.name,
          roomName: rooms.name,
          live: sql<boolean>`(${peerIsLive()})`,
        })
        .from(peers)
        .innerJoin(servers, eq(servers.id, peers.serverId))
        .leftJoin(rooms, eq(rooms.id, peers.roomId))
        .where(eq(peers.customerId, id))
        .orderBy(asc(peers.id)),
      invoicePage(this.db, { customer: id, page: 1, page_size: DETAIL_INVOICES }),
      this.sessions(id),
    ]);
    return {
      ...summary!,
      peer_list: peerRows.map(({ peer, serverName, roomName, live }) => ({
        id: peer.id,
        name: peer.name,
        address: peer.address.replace(/\/\d+$/, ''),
        server: { id: peer.serverId, name: serverName },
        active: peer.active,
        live: Boolean(live),
        expires_at: peer.expiresAt?.toISOString() ?? null,
        party: peer.roomId !== null ? { id: peer.roomId, name: roomName ?? '' } : null,
        created: peer.createdAt.toISOString(),
      })),
      invoices: invoices.results,
      invoice_count: invoices.count,
      rooms: await this.rooms(
        id,
        peerRows.map((p) => p.peer.roomId).filter((p): p is number => p !== null),
      ),
      sessions,
    };
  }

  /** Rooms the customer owns or has a peer in, with their member counts. */
  private async rooms(customerId: number, memberOf: number[]): Promise<AdminCustomerDetail['rooms']> {
    const rows = await this.db
      .select({ id: rooms.id, name: rooms.name, ownerId: rooms.ownerId })
      .from(rooms)
      .where(or(eq(rooms.ownerId, customerId), memberOf.length ? inArray(rooms.id, memberOf) : undefined))
      .orderBy(asc(rooms.id));
    if (rows.length === 0) return [];
    const members = await this.db
      .select({ roomId: peers.roomId, n: count() })
      .from(peers)
      .where(
        inArray(
          peers.roomId,
          rows.map((r) => r.id),
        ),
      )
      .groupBy(peers.roomId);
    const byRoom = new Map(members.map((m) => [m.roomId, m.n]));
    return rows.map((r) => ({
      id: r.id,
      name: r.name,
      role: r.ownerId === customerId ? 'owner' : 'member',
      members: byRoom.get(r.id) ?? 0,
    }));
  }

  /**
   * Open sessions: the live head (unspent, unrevoked, unexpired refresh token) of each family, with
   * when the family started. Token values never leave the server (only hashes are stored anyway).
   */
  private async sessions(customerId: number): Promise<AdminCustomerDetail['sessions']> {
    const heads = await this.db
      .select()
      .from(refreshTokens)
      .where(
        and(
          eq(refreshTokens.realm, 'customer'),
          eq(refreshTokens.subjectId, customerId),
          isNull(refreshTokens.revokedAt),
          isNull(refreshTokens.usedAt),
          gt(refreshTokens.expiresAt, sql`now()`),
        ),
      )
      .orderBy(desc(refreshTokens.createdAt));
    if (heads.length === 0) return [];
    const starts = await this.db
      .select({ familyId: refreshTokens.familyId, started: sql<Date>`min(${refreshTokens.createdAt})` })
      .from(refreshTokens)
      .where(
        inArray(
          refreshTokens.familyId,
          heads.map((h) => h.familyId),
        ),
      )
      .groupBy(refreshTokens.familyId);
    const startOf = new Map(starts.map((s) => [s.familyId, new Date(s.started)]));
    return heads.map((h) => ({
      id: h.familyId,
      started: (startOf.get(h.familyId) ?? h.createdAt).toISOString(),
      last_used: h.createdAt.toISOString(),
      expires_at: h.expiresAt.toISOString(),
      remember: h.remember,
      ip: h.ip,
      user_agent: h.userAgent,
    }));
  }

  /**
   * Disables or re-enables a customer. Disabling refuses every session at once (access tokens by
   * `sessions_valid_after`, refresh tokens revoked) and takes their live peers off their servers;
   * re-enabling puts back exactly the peers that are active and not expired. The customer row, the
   * sessions, the servers' change log and the audit entry commit together; agents are told after.
   */
  async setDisabled(actor: Actor, id: number, patch: CustomerPatch): Promise<AdminCustomerDetail> {
    if (patch.disabled && !patch.reason) throw badRequest(customersMsg.reasonRequired);
    const revisions = await auditedTransaction(this.db, actor, async (tx, audit) => {
      const [row] = await tx.select().from(customers).where(eq(customers.id, id)).for('update');
      if (!row) throw notFound(msg.customerNotFound);
      if (row.active === !patch.disabled)
        throw conflict(
          patch.disabled ? customersMsg.customerAlreadyDisabled : customersMsg.customerAlreadyEnabled,
        );
      await tx
        .update(customers)
        .set({
          active: !patch.disabled,
          ...(patch.disabled ? { sessionsValidAfter: revocationTime() } : {}),
        })
        .where(eq(customers.id, id));
      if (patch.disabled)
        await tx
          .update(refreshTokens)
          .set({ revokedAt: sql`now()` })
          .where(
            and(
              eq(refreshTokens.realm, 'customer'),
              eq(refreshTokens.subjectId, id),
              isNull(refreshTokens.revokedAt),
            ),
          );
      // The peers that are (or become) live by their own state: removed by key, or re-sent by id.
      const own: SQL = and(
        eq(peers.customerId, id),
        eq(peers.active, true),
        or(isNull(peers.expiresAt), gt(peers.expiresAt, sql`now()`)),
      )!;
      const affected = await tx
        .select({ id: peers.id, serverId: peers.serverId, publicKey: peers.publicKey })
        .from(peers)
        .where(own);
      const byServer = new Map<number, Change>();
      for (const p of affected) {
        const change = byServer.get(p.serverId) ?? {
          serverId: p.serverId,
          upsertPeerIds: [],
          removeKeys: [],
        };
        if (patch.disabled) change.removeKeys!.push(p.publicKey);
        else change.upsertPeerIds!.push(p.id);
        byServer.set(p.serverId, change);
      }
      await audit({
        action: patch.disabled ? 'customer.disable' : 'customer.enable',
        targetType: 'customer',
        targetId: id,
        changes: diffFields({ disabled: !row.active }, { disabled: patch.disabled }),
        reason: patch.reason,
        extra: { username: row.username, peers_affected: affected.length },
      });
      return recordChanges(tx, [...byServer.values()]);
    });
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    // Their open push sockets were admitted with tokens that no longer count: every instance closes them.
    if (patch.disabled) await this.deps.bus.publish({ kind: 'revoked', realm: 'customer', userId: id });
    return this.detail(id);
  }

  /**
   * Mails the customer a password-reset link (the recovery path's own mail and one-time token), and
   * records who sent it. Only to a verified address, and only while mail is on.
   */
  async sendPasswordReset(actor: Actor, id: number): Promise<{ message: string }> {
    const row = await this.load(id);
    if (!this.deps.mailer.enabled) throw badRequest(customersMsg.resetMailOff);
    if (!row.active) throw badRequest(customersMsg.resetDisabled);
    if (!row.email || !row.emailVerified) throw badRequest(customersMsg.resetNoEmail);
    const email = row.email;
    // The entry is written in the link's own transaction (and announced when it commits).
    const sent = await this.deps.account.sendRecoveryLink(
      { id: row.id, username: row.username, email },
      async (tx) => {
        await writeAudit(tx, actor, {
          action: 'customer.password_reset',
          targetType: 'customer',
          targetId: id,
          extra: { username: row.username, email },
        });
      },
    );
    if (!sent) throw new HttpError(502, customersMsg.resetSendFailed, 'mail');
    return { message: customersMsg.resetSent.replace('{email}', email) };
  }
}
