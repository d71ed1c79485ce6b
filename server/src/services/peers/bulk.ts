/**
 * Bulk actions on peers by filter (issue 34): extend expiry by N days (an outage's compensation),
 * disable, enable, or move to another server every peer of a server, a plan or a state. Each is a
 * fixed number of statements whatever the count (10,000 peers: one UPDATE, not 10,000), one audit
 * entry with its count, and one notice per customer, not per peer: the dashboard's push at once,
 * and an e-mail and a Telegram message where the customer has them (notices.ts).
 *
 * A bulk extend changes expiry only: the agents get nothing, except for the peers that were off
 * because they had expired and are back within their period (switched on again, their servers'
 * desired state records them). A manager's switch-off (`manager_disabled_at`) is never lifted by it.
 */
import { and, eq, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import {
  BULK_REAUTH_OVER,
  fill,
  msg,
  type BulkFilter,
  type BulkPeersAnswer,
  type BulkPeersBody,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import type { Bus } from '../../realtime/bus.ts';
import { peers, plans, servers } from '../../db/schema.ts';
import { badRequest, notFound } from '../../lib/errors.ts';
import { recordChanges, type Revision } from '../fleet/desiredState.ts';
import type { ServerRow } from '../fleet/servers.ts';
import { writeAudit, type Actor } from '../site/audit.ts';
import { recordNotices, type Notice } from './notices.ts';
import type { PeerService } from './peers.ts';

/** "tu peer" / "tus 3 peers". */
const yours = (n: number) => (n === 1 ? 'tu peer' : `tus ${n.toLocaleString('es-ES')} peers`);

/**
 * The notice each affected customer gets, once (tú; by e-mail and Telegram where linked, see
 * notices.ts), naming how many of their peers changed.
 */
export function noticeOf(
  body: Pick<BulkPeersBody, 'operation' | 'days'>,
  peerCount: number,
  target?: string,
): Omit<Notice, 'customerId'> {
  const days = body.days ?? 0;
  const them = yours(peerCount);
  switch (body.operation) {
    case 'extend':
      return {
        subject: `Ampliamos tu servicio ${days} ${days === 1 ? 'día' : 'días'}`,
        message: `Ampliamos en ${days} ${days === 1 ? 'día' : 'días'} el vencimiento de ${them} para compensar una interrupción. No tienes que hacer nada.`,
      };
    case 'disable':
      return {
        subject: peerCount === 1 ? 'Desactivamos tu peer' : 'Desactivamos tus peers',
        message: `Un administrador desactivó ${them}. Si no sabes por qué, contacta con soporte.`,
      };
    case 'enable':
      return {
        subject: peerCount === 1 ? 'Tu peer vuelve a estar activo' : 'Tus peers vuelven a estar activos',
        message: `Un administrador volvió a activar ${them}. Ya puedes conectarte.`,
      };
    case 'move':
      return {
        subject: `Cambiamos de servidor ${them}`,
        message: `Movimos ${them} al servidor ${target ?? ''}. Si usas el archivo .conf o el código QR, descárgalo de nuevo desde tu panel; el enlace espejo ya tiene la configuración nueva.`,
      };
  }
}

/** One notice per customer of `customerIds` (one entry per changed peer). */
function noticesOf(
  body: Pick<BulkPeersBody, 'operation' | 'days'>,
  customerIds: number[],
  target?: string,
): Notice[] {
  const counts = new Map<number, number>();
  for (const id of customerIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].map(([customerId, n]) => ({ customerId, ...noticeOf(body, n, target) }));
}

/** Pushes sent side by side: on PostgreSQL each is a pg_notify round trip (10,000 in a row: most of a bulk's time). */
const PUSHES_AT_ONCE = 8;

/** Runs `fn` over `items`, PUSHES_AT_ONCE at a time. */
async function eachAtOnce<T>(items: T[], fn: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(PUSHES_AT_ONCE, items.length) }, worker));
}

/** Peers moved per transaction (as a drain does). */
const MOVE_BATCH = 1000;

/** The filter as SQL on `peers`. */
function whereOf(filter: BulkFilter): SQL {
  const parts: SQL[] = [];
  if (filter.server !== undefined) parts.push(eq(peers.serverId, filter.server));
  if (filter.plan !== undefined)
    parts.push(sql`(select h.plan_id from plan_history h where h.peer_id = ${peers.id}
      order by h.created_at desc, h.id desc limit 1) = ${filter.plan}`);
  if (filter.state === 'active') parts.push(eq(peers.active, true));
  if (filter.state === 'disabled') parts.push(eq(peers.active, false));
  if (filter.state === 'expired') parts.push(sql`${peers.expiresAt} <= now()`);
  return parts.length ? and(...parts)! : sql`true`;
}

/** What an operation changes among the filtered peers. */
function changingOf(body: BulkPeersBody): SQL {
  switch (body.operation) {
    case 'extend':
      return and(whereOf(body.filter), isNotNull(peers.expiresAt))!;
    case 'disable':
      return and(whereOf(body.filter), eq(peers.active, true))!;
    case 'enable':
      // Peers a manager switched off; an expired one stays off (extend it instead).
      return and(
        whereOf(body.filter),
        eq(peers.active, false),
        sql`(${peers.expiresAt} is null or ${peers.expiresAt} > now())`,
      )!;
    case 'move':
      return and(whereOf(body.filter), sql`${peers.serverId} <> ${body.to_server ?? 0}`)!;
  }
}

export class BulkPeers {
  constructor(private readonly deps: { db: Db; bus: Bus; peers: PeerService }) {}

  /** Whether applying `body` needs X-Reauth: more than BULK_REAUTH_OVER peers, or any move. */
  async needsReauth(body: BulkPeersBody): Promise<boolean> {
    return body.operation === 'move' || (await this.count(body)) > BULK_REAUTH_OVER;
  }

  async count(body: BulkPeersBody): Promise<number> {
    this.check(body);
    const [row] = await this.deps.db
      .select({ n: sql<number>`count(*)::int` })
      .from(peers)
      .where(changingOf(body));
    return row?.n ?? 0;
  }

  private check(body: BulkPeersBody): void {
    if (body.operation === 'extend' && body.days === undefined)
      throw badRequest('Indique los días (1 a 365)');
    if (body.operation === 'move' && body.to_server === undefined)
      throw badRequest('Elija el servidor de destino');
  }

  async preview(body: BulkPeersBody): Promise<BulkPeersAnswer> {
    const count = await this.count(body);
    return {
      count,
      customers: 0,
      agent_changes: 0,
      reauth: body.operation === 'move' || count > BULK_REAUTH_OVER,
    };
  }

  /** Applies `body` (the route has checked X-Reauth where needed). */
  async apply(actor: Actor, body: BulkPeersBody): Promise<BulkPeersAnswer> {
    this.check(body);
    if (body.operation === 'move') return this.move(actor, body);
    const { db } = this.deps;
    const label = await this.describe(body);
    const days = body.days ?? 0;
    const done = await db.transaction(async (tx) => {
      let rows: { id: number; customer_id: number; server_id: number; woke: boolean }[];
      if (body.operation === 'extend') {
        // One statement: every expiry + N days; a peer off only because it had expired, and within
        // its period again, is switched back on (the only ones its agent hears of).
        rows = (
          await tx.execute<{ id: number; customer_id: number; server_id: number; woke: boolean }>(sql`
          with old as (
            select ${peers.id} as id, ${peers.active} as active from ${peers}
            where ${changingOf(body)} for update
          )
          update peers p set
            expires_at = p.expires_at + make_interval(days => ${days}),
            active = p.active or (p.manager_disabled_at is null and p.expires_at <= now()
              and p.expires_at + make_interval(days => ${days}) > now()),
            updated_at = now()
          from old where p.id = old.id
          returning p.id, p.customer_id, p.server_id, (p.active and not old.active) as woke`)
        ).rows;
      } else {
        const on = body.operation === 'enable';
        const changed = await tx
          .update(peers)
          .set({
            active: on,
            managerDisabledAt: on ? null : sql`now()`,
            updatedAt: sql`now()`,
          })
          .where(changingOf(body))
          .returning({ id: peers.id, customer_id: peers.customerId, server_id: peers.serverId });
        rows = changed.map((r) => ({ ...r, woke: true }));
      }
      // The agents: only the peers whose liveness changed, one change per server.
      const byServer = new Map<number, number[]>();
      for (const r of rows)
        if (r.woke) byServer.set(r.server_id, [...(byServer.get(r.server_id) ?? []), r.id]);
      const revisions = await recordChanges(
        tx,
        [...byServer].map(([serverId, upsertPeerIds]) => ({ serverId, upsertPeerIds })),
      );
      const customers = [...new Set(rows.map((r) => r.customer_id))];
      const agentChanges = rows.filter((r) => r.woke).length;
      await recordNotices(
        tx,
        noticesOf(
          body,
          rows.map((r) => r.customer_id),
        ),
      );
      await writeAudit(tx, actor, {
        action: `bulk.${body.operation}`,
        targetType: 'bulk',
        targetId: null,
        ...(body.reason ? { reason: body.reason } : {}),
        extra: {
          count: rows.length,
          customers: customers.length,
          agent_changes: agentChanges,
          filter: label,
          ...(body.operation === 'extend' ? { days } : {}),
        },
      });
      return { count: rows.length, customers, agentChanges, revisions };
    });
    await this.announce(done.revisions);
    await this.tell(done.customers, body);
    return {
      count: done.count,
      customers: done.customers.length,
      agent_changes: done.agentChanges,
      reauth: done.count > BULK_REAUTH_OVER,
    };
  }

  /** Moves the filtered peers in batches through the drain's path (PeerService.moveMany). */
  private async move(actor: Actor, body: BulkPeersBody): Promise<BulkPeersAnswer> {
    const { db } = this.deps;
    const [target] = await db.select().from(servers).where(eq(servers.id, body.to_server!));
    if (!target) throw notFound('Servidor no encontrado');
    if (!target.active) throw badRequest('El servidor de destino está desactivado');
    const label = await this.describe(body);
    const where = and(changingOf(body), target.allowRooms ? undefined : isNull(peers.roomId));
    const rows = await db
      .select({ id: peers.id, serverId: peers.serverId, customerId: peers.customerId })
      .from(peers)
      .where(where);
    const moved: number[] = [];
    const byServer = new Map<number, number[]>();
    for (const r of rows) byServer.set(r.serverId, [...(byServer.get(r.serverId) ?? []), r.id]);
    for (const [from, ids] of byServer)
      for (let i = 0; i < ids.length; i += MOVE_BATCH)
        moved.push(
          ...(await this.deps.peers.moveMany(from, ids.slice(i, i + MOVE_BATCH), target as ServerRow)),
        );
    const movedSet = new Set(moved);
    const movedOwners = rows.filter((r) => movedSet.has(r.id)).map((r) => r.customerId);
    const customers = [...new Set(movedOwners)];
    const notices = noticesOf(body, movedOwners, target.name);
    await recordNotices(db, notices);
    await writeAudit(db, actor, {
      action: 'bulk.move',
      targetType: 'bulk',
      targetId: null,
      ...(body.reason ? { reason: body.reason } : {}),
      extra: {
        count: moved.length,
        customers: customers.length,
        filter: label,
        to_server: target.name,
        skipped: rows.length - moved.length,
      },
    });
    // moveMany tells each owner's open pages of each peer (updated_peer, success) as a customer's
    // own move does; the notice says it once per customer.
    await eachAtOnce(notices, (n) =>
      this.deps.peers.push(n.customerId, { type: 'info', message: n.message }),
    );
    return { count: moved.length, customers: customers.length, agent_changes: moved.length, reauth: true };
  }

  private async announce(revisions: Revision[]): Promise<void> {
    for (const r of revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
  }

  /** One notice per customer (the dashboard's toast and its peers re-read), not one per peer. */
  private async tell(customers: number[], body: BulkPeersBody): Promise<void> {
    const message =
      body.operation === 'extend'
        ? fill(msg.bulkExtended, { days: String(body.days ?? 0) })
        : body.operation === 'disable'
          ? msg.bulkDisabled
          : msg.bulkEnabled;
    await eachAtOnce(customers, (customerId) => this.deps.peers.push(customerId, { type: 'info', message }));
  }

  /** The filter in words, for the audit ("servidor Miami 1, plan Mensual, activos"). */
  private async describe(body: BulkPeersBody): Promise<string> {
    const { db } = this.deps;
    const parts: string[] = [];
    const f = body.filter;
    if (f.server !== undefined) {
      const [s] = await db.select({ name: servers.name }).from(servers).where(eq(servers.id, f.server));
      if (!s) throw notFound('Servidor no encontrado');
      parts.push(`servidor ${s.name}`);
    }
    if (f.plan !== undefined) {
      const [p] = await db
        .select({ name: plans.name })
        .from(plans)
        .where(inArray(plans.id, [f.plan]));
      if (!p) throw notFound('Plan no encontrado');
      parts.push(`plan ${p.name}`);
    }
    if (f.state) parts.push({ active: 'activos', disabled: 'desactivados', expired: 'vencidos' }[f.state]);
    return parts.length ? parts.join(', ') : 'todos los peers';
  }
}
