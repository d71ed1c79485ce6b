import { EventEmitter } from 'node:events';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { AdminPush, Permission, PushMessage } from '@vpn/contracts';
import { sql } from 'drizzle-orm';
import type { Database, Db } from '../db/client.ts';

/**
 * Events that must reach every control-plane instance: a message for one user's sockets, or a
 * server whose desired state changed (the instance holding that agent's socket sends the delta).
 */
export type BusEvent =
  | { kind: 'user'; realm: 'customer' | 'manager'; userId: number; message: PushMessage }
  /**
   * Many users' messages in one event (a scheduler pass telling thousands of owners at once, issue
   * 33): one notification (stored when big) instead of one notifying commit per message, which are
   * serialized cluster-wide and held the other requests' connections (bench:fleet, 10,000 expiring).
   */
  | { kind: 'users'; pushes: { realm: 'customer' | 'manager'; userId: number; message: PushMessage }[] }
  | { kind: 'server'; serverId: number; revision: number }
  | { kind: 'acked'; serverId: number; revision: number }
  /** A server's agent token was rotated, or the server deleted: every instance drops its agent socket. */
  | { kind: 'agent_revoked'; serverId: number }
  /** "Actualizar agente": the instance holding that server's agent socket sends it `upgrade`. */
  | { kind: 'agent_upgrade'; serverId: number }
  /** For every manager console whose role has `permission` (live server status, invoices, audit). */
  | { kind: 'managers'; permission: Permission; message: AdminPush }
  /**
   * A user's sessions were revoked (password changed, disabled, role changed, deleted…), or with
   * `session` one session only (logout): every instance closes those open sockets, which were
   * admitted with a token that is no longer valid.
   */
  | { kind: 'revoked'; realm: 'customer' | 'manager'; userId: number; session?: string }
  /**
   * Local only, never published: this instance may have missed events (PostgresBus listens again
   * after its connection dropped). Listeners catch up from the database.
   */
  | { kind: 'reconnected' };

export interface Bus {
  publish(event: BusEvent): Promise<void>;
  subscribe(listener: (event: BusEvent) => void): () => void;
  close(): Promise<void>;
  /**
   * Between instances only (PostgresBus): `listener` gets, for each notification heard from the
   * bus, the seconds from its publish to its arrival here (/metrics: vpn_bus_notify_lag_seconds).
   */
  onLag?(listener: (seconds: number) => void): void;
}

/** One process (PGlite): an in-memory emitter. */
export class LocalBus implements Bus {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  async publish(event: BusEvent): Promise<void> {
    // Asynchronous like the database bus, so callers never depend on synchronous delivery.
    queueMicrotask(() => this.emitter.emit('event', event));
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    this.emitter.on('event', listener);
    return () => this.emitter.off('event', listener);
  }

  async close(): Promise<void> {
    this.emitter.removeAllListeners();
  }
}

/** The database channel events travel on. */
export const BUS_CHANNEL = 'vpn_events';
const CHANNEL = BUS_CHANNEL;

/**
 * Publishes `event` from inside a transaction (`notifyInTransaction(tx, …)`, the audit tail, a
 * revoked session, a payment): PostgreSQL and PGlite deliver a notification only when its
 * transaction commits, so a rolled-back change is never announced. Inline only (pg_notify's limit):
 * these events are a few ids.
 */
export async function notifyInTransaction(tx: Pick<Db, 'execute'>, event: BusEvent): Promise<void> {
  await tx.execute(sql`select pg_notify(${CHANNEL}, ${withSent(JSON.stringify(event))})`);
}

/** A notification's event, without the send time it travelled with. */
function eventOf<T>(payload: string): T {
  const parsed = JSON.parse(payload) as T & { sent?: number };
  delete parsed.sent;
  return parsed;
}

/** One process on PGlite: in-memory delivery, plus the notifications committed transactions send. */
export class PgliteBus implements Bus {
  private readonly local = new LocalBus();
  private unlisten: (() => Promise<void>) | undefined;

  static async connect(pglite: PGlite): Promise<PgliteBus> {
    const bus = new PgliteBus();
    bus.unlisten = await pglite.listen(CHANNEL, (payload) => {
      try {
        void bus.local.publish(eventOf<BusEvent>(payload));
      } catch {
        // Only this code notifies on the channel; a malformed payload is ignored.
      }
    });
    return bus;
  }

  publish(event: BusEvent): Promise<void> {
    return this.local.publish(event);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  async close(): Promise<void> {
    await this.unlisten?.().catch(() => {});
    await this.local.close();
  }
}

/** Events up to this size travel in the notification itself (pg_notify's limit is 8000 bytes). */
export const INLINE_PAYLOAD_BYTES = 7000;

/** A published event's text with its send time appended as the last field (`{…,"sent":1764…}`). */
function withSent(text: string): string {
  return `${text.slice(0, -1)},"sent":${Date.now()}}`;
}

/**
 * The send time (ms) a notification of this bus ends with (undefined for any other). Read from the
 * text's end, without parsing: the notification handler runs for every event and must not wait.
 */
function sentAtOf(payload: string): number | undefined {
  const at = payload.lastIndexOf(',"sent":');
  if (at < 0 || !payload.endsWith('}')) return undefined;
  const ms = Number(payload.slice(at + 8, -1));
  return Number.isFinite(ms) ? ms : undefined;
}

/** The LISTEN connection's application_name (operators, and tests, find it in pg_stat_activity). */
export const LISTEN_APPLICATION_NAME = 'vpn-bus';

/**
 * Many instances on one PostgreSQL: LISTEN/NOTIFY on a dedicated connection, re-listening after a
 * drop. Notifications sent while it was down are lost, so once listening again it tells its own
 * subscribers (`reconnected`) to catch up from the database.
 */
export class PostgresBus implements Bus {
  private readonly local = new LocalBus();
  private client: pg.Client | undefined;
  private closed = false;
  private received: Promise<unknown> = Promise.resolve();
  private lagListener: ((seconds: number) => void) | undefined;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly connectionString: string,
  ) {}

  static async connect(pool: pg.Pool, connectionString: string): Promise<PostgresBus> {
    const bus = new PostgresBus(pool, connectionString);
    await bus.listen();
    return bus;
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({
      connectionString: this.connectionString,
      application_name: LISTEN_APPLICATION_NAME,
    });
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      const payload = n.payload;
      const lag = sentAtOf(payload);
      if (lag !== undefined) this.lagListener?.(Math.max(0, Date.now() - lag) / 1000);
      // One at a time, so a stored event read from the database keeps its place among the others.
      this.received = this.received
        .then(() => this.resolve(payload))
        .then((event) => event && this.local.publish(event))
        .catch(() => {
          // A malformed notification is ignored (only this code publishes on the channel); a stored
          // event that can no longer be read is lost like a notification missed while reconnecting.
        });
    });
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (err) {
      await client.end().catch(() => {});
      throw err;
    }
    this.client = client;
  }

  private reconnect(old: pg.Client): void {
    if (this.closed || this.client !== old) return;
    this.client = undefined;
    const retry = () => {
      if (this.closed) return;
      this.listen().then(
        () => this.local.publish({ kind: 'reconnected' }),
        () => setTimeout(retry, 1000),
      );
    };
    setTimeout(retry, 200);
  }

  /**
   * pg_notify refuses payloads of 8000 bytes or more: a bigger event is stored in bus_payloads and
   * only its id notified, in one statement (so it is readable when the notification is heard).
   * Every notification ends with `"sent":<ms since the epoch>` (SENT_FIELD), which the listeners read
   * as the notification's lag (the instances' clocks are assumed in step, as NTP keeps them).
   */
  async publish(event: BusEvent): Promise<void> {
    const text = JSON.stringify(event);
    if (Buffer.byteLength(text) <= INLINE_PAYLOAD_BYTES) {
      await this.pool.query('select pg_notify($1, $2)', [CHANNEL, withSent(text)]);
      return;
    }
    await this.pool.query(
      `with stored as (insert into bus_payloads (payload) values ($2) returning id)
       select pg_notify($1, '{"kind":"stored","id":' || id || ',"sent":' || $3::bigint || '}') from stored`,
      [CHANNEL, text, Date.now()],
    );
    // Every instance reads a stored event within moments; old ones are dropped by the next big one.
    await this.pool.query(`delete from bus_payloads where created_at < now() - interval '5 minutes'`);
  }

  /** A notification's event: inline, or read from bus_payloads for a stored one. */
  private async resolve(payload: string): Promise<BusEvent | undefined> {
    const parsed = eventOf<BusEvent | { kind: 'stored'; id: number }>(payload);
    if (parsed.kind !== 'stored') return parsed;
    const { rows } = await this.pool.query<{ payload: string }>(
      'select payload from bus_payloads where id = $1',
      [parsed.id],
    );
    return rows[0] ? (JSON.parse(rows[0].payload) as BusEvent) : undefined;
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
  }

  onLag(listener: (seconds: number) => void): void {
    this.lagListener = listener;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.local.close();
    await this.client?.end().catch(() => {});
  }
}

export async function createBus(database: Database): Promise<Bus> {
  if (database.kind === 'postgres' && database.pool && database.url)
    return PostgresBus.connect(database.pool, database.url);
  if (database.kind === 'pglite' && database.pglite) return PgliteBus.connect(database.pglite);
  return new LocalBus();
}
