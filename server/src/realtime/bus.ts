import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { PushMessage } from '@vpn/contracts';
import type { Database } from '../db/client.ts';

/**
 * Events that must reach every control-plane instance: a message for one user's sockets, or a
 * server whose desired state changed (the instance holding that agent's socket sends the delta).
 */
export type BusEvent =
  | { kind: 'user'; realm: 'customer' | 'manager'; userId: number; message: PushMessage }
  | { kind: 'server'; serverId: number; revision: number }
  | { kind: 'acked'; serverId: number; revision: number };

export interface Bus {
  publish(event: BusEvent): Promise<void>;
  subscribe(listener: (event: BusEvent) => void): () => void;
  close(): Promise<void>;
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

const CHANNEL = 'vpn_events';

/** Many instances on one PostgreSQL: LISTEN/NOTIFY on a dedicated connection, re-listening after a drop. */
export class PostgresBus implements Bus {
  private readonly local = new LocalBus();
  private client: pg.Client | undefined;
  private closed = false;

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
    const client = new pg.Client({ connectionString: this.connectionString });
    client.on('notification', (n) => {
      if (n.channel !== CHANNEL || !n.payload) return;
      try {
        void this.local.publish(JSON.parse(n.payload) as BusEvent);
      } catch {
        // A malformed notification is ignored: only this code publishes on the channel.
      }
    });
    client.on('error', () => this.reconnect(client));
    client.on('end', () => this.reconnect(client));
    await client.connect();
    await client.query(`listen ${CHANNEL}`);
    this.client = client;
  }

  private reconnect(old: pg.Client): void {
    if (this.closed || this.client !== old) return;
    this.client = undefined;
    const retry = () => {
      if (this.closed) return;
      this.listen().catch(() => setTimeout(retry, 1000));
    };
    setTimeout(retry, 200);
  }

  async publish(event: BusEvent): Promise<void> {
    await this.pool.query('select pg_notify($1, $2)', [CHANNEL, JSON.stringify(event)]);
  }

  subscribe(listener: (event: BusEvent) => void): () => void {
    return this.local.subscribe(listener);
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
  return new LocalBus();
}
