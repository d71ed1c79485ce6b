import { and, count, desc, eq, gt, isNotNull, lte, not, or, sql, type SQL } from 'drizzle-orm';
import {
  EXPIRING_DAYS,
  msg,
  type AdminPeer,
  type AdminPeerDetail,
  type AdminPeerPatch,
  type AdminPeerQuery,
  type Paged,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import {
  customers,
  managers,
  rooms,
  peers,
  peerStats,
  planHistory,
  plans,
  servers,
} from '../../db/schema.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { diffFields, writeAudit, type Actor } from '../site/audit.ts';
import { containsPattern, pageOf } from '../../db/listing.ts';
import type { PeerService } from './peers.ts';
import { pickServerForNewPeer, type ServerRow } from '../fleet/servers.ts';
import { peerUsage, usageSince } from './usage.ts';
import { adminConcurrentUseOf } from './concurrentUseFields.ts';
import { graceEnd, presentSpeed, withinGrace } from '../fleet/peerSpeed.ts';

/** Switched on and not expired, or within its plan's grace after expiry (the peer's own state). */
const live = sql`(${peers.active} and ${withinGrace()})`;
/**
 * Owned by a disabled customer: off its server whatever its own switch says. `in (subquery)` is
 * planned as a hashed subplan: the disabled customers' ids are read once into a hash table, and each
 * peer costs one lookup. (`= any(array(…))` compared each peer with every disabled id: with 1,000
 * of them, counting 100,000 peers took 247 ms instead of 19 ms on PostgreSQL.)
 */
const ownerDisabled = sql`${peers.customerId} in (select ${customers.id} from ${customers} where not ${customers.active})`;

/** `%q%` for a case-sensitive LIKE (public keys are base64: case matters). */
const rawContains = (q: string) => `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The WHERE of the peers list. Each search branch is one of migration 0005's trigram expressions
 * (lower(name), public_key, host(address)); the owner branch resolves matching usernames first
 * through the customers' trigram index (`= any(array(…))` runs once, as an init plan), so the
 * branches combine as a bitmap OR and no branch scans the table.
 */
function peerFilter(query: AdminPeerQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [];
  if (query.q) {
    const lower = containsPattern(query.q);
    conditions.push(
      or(
        sql`lower(${peers.name}) like ${lower}`,
        sql`${peers.publicKey} like ${rawContains(query.q)}`,
        sql`host(${peers.address}) like ${lower}`,
        sql`${peers.customerId} = any(array(select ${customers.id} from ${customers} where lower(${customers.username}) like ${lower}))`,
      ),
    );
  }
  if (query.server !== undefined) conditions.push(eq(peers.serverId, query.server));
  if (query.state === 'active') conditions.push(live, not(ownerDisabled));
  if (query.state === 'disabled') conditions.push(or(not(live), ownerDisabled));
  if (query.state === 'concurrent_use') conditions.push(isNotNull(peers.concurrentUseSeenAt));
  if (query.state === 'expiring')
    conditions.push(
      and(
        eq(peers.active, true),
        not(ownerDisabled),
        gt(peers.expiresAt, sql`now()`),
        lte(peers.expiresAt, sql`now() + ${`${EXPIRING_DAYS} days`}::interval`),
      ),
    );
  return and(...conditions);
}

const listColumns = {
  peer: peers,
  username: customers.username,
  ownerActive: customers.active,
  serverName: servers.name,
  roomName: rooms.name,
};
type ListRow = {
  peer: typeof peers.$inferSelect;
  username: string;
  ownerActive: boolean;
  serverName: string;
  roomName: string | null;
};

function present(r: ListRow): AdminPeer {
  const p = r.peer;
  return {
    id: p.id,
    name: p.name,
    owner: { id: p.customerId, username: r.username, disabled: !r.ownerActive },
    server: { id: p.serverId, name: r.serverName },
    address: p.address.replace(/\/\d+$/, ''),
    public_key: p.publicKey,
    // Within its grace after expiry it is still online, at its reduced speed (issue 35).
    active: r.ownerActive && p.active && (graceEnd(p)?.getTime() ?? Infinity) > Date.now(),
    enabled: p.active,
    expires_at: p.expiresAt?.toISOString() ?? null,
    manual_payment: p.manualPayment,
    party: p.roomId !== null ? { id: p.roomId, name: r.roomName ?? '' } : null,
    processing: p.pendingOperation,
    created: p.createdAt.toISOString(),
    concurrent_use: adminConcurrentUseOf(p),
    speed: presentSpeed(p),
  };
}

const joined = (db: Db) =>
  db
    .select(listColumns)
    .from(peers)
    .innerJoin(customers, eq(customers.id, peers.customerId))
    .innerJoin(servers, eq(servers.id, peers.serverId))
    .leftJoin(rooms, eq(rooms.id, peers.roomId));

/** The peers list: searched, filtered and paged by the database, newest first. */
export async function listPeers(db: Db, query: AdminPeerQuery): Promise<Paged<AdminPeer>> {
  const where = peerFilter(query);
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    joined(db).where(where).orderBy(desc(peers.id)).limit(limit).offset(offset),
    db.select({ n: count() }).from(peers).where(where),
  ]);
  return { count: total?.n ?? 0, results: rows.map(present) };
}

/** One peer with its plan history (who granted what, and why) and its traffic. */
/**
 * A client address as a role that does not change peers sees it (support): its /24 (IPv4) or /48
 * (IPv6) network, no port — enough to tell a country or a carrier, as the concurrent-use view does.
 */
function networkOf(endpoint: string): string | null {
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.\d{1,3}(?::\d+)?$/.exec(endpoint);
  if (v4) return `${v4[1]}.${v4[2]}.${v4[3]}.0/24`;
  const v6 = /^\[?([0-9a-fA-F:]+)\]?(?::\d+)?$/.exec(endpoint);
  if (!v6 || !v6[1]!.includes(':')) return null;
  const [head = '', tail = ''] = v6[1]!.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = v6[1]!.includes('::')
    ? [...left, ...Array(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 3)
    .map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/48`;
}

/**
 * A peer with its history and usage. `exactEndpoint` false (a role without `peers.write`): the
 * client's address cut to its network (issue 26; support answers customers, it does not debug
 * their connections).
 */
export async function getPeer(db: Db, id: number, exactEndpoint = true): Promise<AdminPeerDetail> {
  const [row] = await joined(db).where(eq(peers.id, id));
  if (!row) throw notFound(msg.peerNotFound);
  // One after another: inside a transaction (the audit's after state) they share one connection.
  const history = await db
    .select({
      h: planHistory,
      days: sql<number>`round(extract(epoch from ${planHistory.validity}) / 86400)::int`,
      grantedBy: managers.username,
    })
    .from(planHistory)
    .leftJoin(managers, eq(managers.id, planHistory.grantedBy))
    .where(eq(planHistory.peerId, id))
    .orderBy(desc(planHistory.createdAt), desc(planHistory.id));
  const [stats] = await db
    .select({ handshake: peerStats.latestHandshake, endpoint: peerStats.endpoint })
    .from(peerStats)
    .where(eq(peerStats.peerId, id));
  const now = Date.now();
  const all = (await usageSince(db, [id], new Date(0))).get(id);
  const last30 = (await usageSince(db, [id], new Date(now - 30 * 86_400_000))).get(id);
  const view = await peerUsage(db, id);
  return {
    ...present(row),
    plans_history: history.map(({ h, days, grantedBy }) => ({
      plan_name: h.planName,
      plan_price: Number(h.planPrice).toFixed(2),
      validity_days: days,
      created: h.createdAt.toISOString(),
      invoice_id: h.invoiceId,
      manual: h.manual,
      reason: h.reason,
      granted_by: h.manual ? (grantedBy ?? null) : null,
      refunded: h.refundedAt?.toISOString() ?? null,
    })),
    usage: {
      rx_bytes: all?.rx ?? 0,
      tx_bytes: all?.tx ?? 0,
      rx_bytes_30d: last30?.rx ?? 0,
      tx_bytes_30d: last30?.tx ?? 0,
      last_handshake: stats?.handshake?.toISOString() ?? null,
      endpoint: stats?.endpoint ? (exactEndpoint ? stats.endpoint : networkOf(stats.endpoint)) : null,
      online: view.online,
      period: view.period,
      days_from: view.days_from,
      upload: view.upload,
      download: view.download,
    },
  };
}

/** What the audit records of a peer's state. */
const auditable = (p: AdminPeer) => ({
  enabled: p.enabled,
  expires_at: p.expires_at,
  server: p.server.name,
});

/**
 * A manager's change to a peer: switch on/off and expiry, grant a plan, or move it to another
 * server. Each goes through the customer's own flow in PeerService (agents, busy state, pushes)
 * with the audit entry written inside the change's transaction.
 */
export async function patchPeer(
  db: Db,
  service: PeerService,
  actor: Actor,
  id: number,
  body: AdminPeerPatch,
): Promise<AdminPeerDetail> {
  const before = await getPeer(db, id);
  if (body.operation === 'grant') {
    const [plan] = await db.select().from(plans).where(eq(plans.id, body.plan!));
    // Hidden plans may be granted: hiding stops public sales, not a manager's courtesy.
    if (!plan) throw notFound(msg.planNotFound);
    await service.extendWithPlan(
      id,
      plan,
      { manual: { reason: body.reason!, grantedBy: actor.id } },
      async (tx) => {
        const after = await getPeer(tx, id);
        await writeAudit(tx, actor, {
          action: 'peer.grant',
          targetType: 'peer',
          targetId: id,
          changes: diffFields(auditable(before), auditable(after)),
          reason: body.reason,
          extra: { plan: { id: plan.id, name: plan.name, price: plan.price } },
        });
      },
    );
  } else if (body.operation === 'change_server') {
    await service.adminChangeServer(id, body.server!, async (tx) => {
      const after = await getPeer(tx, id);
      await writeAudit(tx, actor, {
        action: 'peer.change_server',
        targetType: 'peer',
        targetId: id,
        changes: diffFields(auditable(before), auditable(after)),
        reason: body.reason,
      });
    });
  } else {
    await service.adminUpdate(
      id,
      {
        active: body.active,
        expiresAt:
          body.expires_at === undefined
            ? undefined
            : body.expires_at === null
              ? null
              : new Date(body.expires_at),
      },
      undefined,
      async (tx) => {
        const after = await getPeer(tx, id);
        await writeAudit(tx, actor, {
          action:
            body.active === false ? 'peer.disable' : body.active === true ? 'peer.enable' : 'peer.update',
          targetType: 'peer',
          targetId: id,
          changes: diffFields(auditable(before), auditable(after)),
          reason: body.reason,
        });
      },
    );
  }
  return getPeer(db, id);
}

/** A peer for a customer who paid another way (manual payment): audited in its own transaction. */
export async function createManualPeer(
  db: Db,
  service: PeerService,
  actor: Actor,
  input: { username: string; plan: number; name: string; server?: number; origin?: string },
) {
  const [customer] = await db
    .select({ id: customers.id })
    .from(customers)
    .where(sql`lower(${customers.username}) = lower(${input.username.trim()})`);
  if (!customer) throw notFound(msg.customerNotFound);
  let server: ServerRow;
  if (input.server !== undefined) {
    const [row] = await db.select().from(servers).where(eq(servers.id, input.server));
    if (!row) throw notFound(msg.serverNotFound);
    if (!row.active) throw badRequest(msg.serverUnavailable);
    server = row;
  } else {
    server = await pickServerForNewPeer(db);
  }
  const peer = await service.provision({
    customerId: customer.id,
    planId: input.plan,
    name: input.name,
    server,
    manualPayment: true,
    origin: input.origin,
    inTx: async (tx, peerId) => {
      const after = await getPeer(tx, peerId);
      await writeAudit(tx, actor, {
        action: 'peer.create',
        targetType: 'peer',
        targetId: peerId,
        changes: diffFields(null, { name: after.name, owner: after.owner.username, ...auditable(after) }),
        extra: { plan: input.plan, manual_payment: true },
      });
    },
  });
  return peer;
}
