import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite, type PGliteOptions } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.ts';

export type Schema = typeof schema;
/**
 * One type for both back ends: services never know which one they run on. It is also the executor
 * type: drizzle's `PgTransaction` extends `PgDatabase`, so the `tx` of `db.transaction(async (tx) => …)`
 * is a `Db` as it is and goes to any function that takes one, without a cast. Inside a transaction,
 * such a function's queries join that transaction (the 29 call sites that pass `tx` typecheck only
 * while this holds, so a drizzle upgrade that breaks it fails the build).
 */
export type Db = PgDatabase<DbQueryResultHKT, Schema>;

/**
 * What a raw `db.execute(sql…)` answers on both back ends: node-postgres' QueryResult and PGlite's
 * Results both carry `rows`, so `(await db.execute<Row>(query)).rows` is typed without a cast.
 */
export interface DbQueryResultHKT extends PgQueryResultHKT {
  readonly type: RawRows<this['row']>;
}

/** The part of a raw query's result both back ends share. */
export interface RawRows<Row> {
  rows: Row[];
}

export const MIGRATIONS_DIR = fileURLToPath(new URL('../../drizzle', import.meta.url));

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  /**
   * The connection string for connections outside the pool (PostgreSQL only): LISTEN and
   * migrations. DATABASE_DIRECT_URL when the pool goes through a pooler, else the pool's own.
   */
  url?: string;
  /** The node-postgres pool (PostgreSQL only): LISTEN/NOTIFY needs raw connections. */
  pool?: pg.Pool;
  pglite?: PGlite;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string;
  /** LISTEN and migrations connect here (default: databaseUrl). */
  directUrl?: string;
  /** PGlite data directory; omitted → in-memory. */
  dataDir?: string;
  /** An existing PGlite instance (tests clone one from a dump). */
  pglite?: PGlite;
  poolSize?: number;
}

/** A PGlite instance with the extensions the migrations use (pg_trgm for the admin search). */
export function newPglite(opts: PGliteOptions = {}): PGlite {
  return new PGlite({ ...opts, extensions: { ...opts.extensions, pg_trgm } });
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const pool = new pg.Pool({
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      // An unreachable server fails the request (503) instead of holding it until the client gives up.
      connectionTimeoutMillis: 10_000,
    });
    // An idle client that errors (server restart) must not crash the process.
    pool.on('error', () => {});
    const db = drizzlePg(pool, { schema });
    const url = opts.directUrl ?? opts.databaseUrl;
    return { db, kind: 'postgres', url, pool, close: () => pool.end() };
  }
  let client = opts.pglite;
  if (!client) {
    if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
    client = newPglite({ dataDir: opts.dataDir });
  }
  await client.waitReady;
  const db = drizzlePglite(client, { schema });
  const pglite = client;
  return { db, kind: 'pglite', pglite, close: () => pglite.close() };
}

/** Applies the committed migrations; on PostgreSQL under an advisory lock so instances can start together. */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'postgres' && database.pool) {
    // On the direct connection: an advisory lock held across statements needs a session of its
    // own, which a pooler in transaction mode does not give.
    const client = database.url ? new pg.Client({ connectionString: database.url }) : null;
    const session = client ?? (await database.pool.connect());
    if (client) await client.connect();
    try {
      await session.query('select pg_advisory_lock(724001)');
      await migratePg(drizzlePg(session), { migrationsFolder: MIGRATIONS_DIR });
    } finally {
      await session.query('select pg_advisory_unlock(724001)').catch(() => {});
      if (client) await client.end();
      else (session as pg.PoolClient).release();
    }
    return;
  }
  if (!database.pglite) throw new Error('migrateDatabase: a PGlite database without its PGlite instance');
  // Its own drizzle over the same instance, typed as PGlite's (like node-postgres' client above).
  await migratePglite(drizzlePglite(database.pglite), { migrationsFolder: MIGRATIONS_DIR });
}
