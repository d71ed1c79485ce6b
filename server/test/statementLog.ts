import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type pg from 'pg';
import type { Database, Db } from '../src/db/client.ts';
import * as schema from '../src/db/schema.ts';

/** One statement the app ran: its text and the rows it answered. */
export interface LoggedStatement {
  sql: string;
  rows: number;
}

/**
 * `database` with a Db that records every statement the app runs through it and the rows each
 * answered (transactions' own statements included; their begin and commit are not counted): a
 * guard counts the work of one request instead of timing it. The driver is wrapped, not drizzle,
 * so what is counted is what reached the database. PGlite and PostgreSQL alike.
 */
export function statementLog(database: Database): { database: Database; log: LoggedStatement[] } {
  const log: LoggedStatement[] = [];
  const record = (text: unknown, result: unknown) => {
    const sql = typeof text === 'string' ? text : ((text as { text?: string }).text ?? '');
    if (/^\s*(begin|commit|rollback|savepoint|release)\b/i.test(sql)) return;
    const rows = (result as { rows?: unknown[] } | undefined)?.rows;
    log.push({ sql, rows: Array.isArray(rows) ? rows.length : 0 });
  };
  // A query function that records what it ran once it answered.
  const counted = <F extends (...args: never[]) => Promise<unknown>>(query: F): F =>
    (async (...args: Parameters<F>) => {
      const result = await query(...args);
      record(args[0], result);
      return result;
    }) as F;
  if (database.pool) {
    const pool = database.pool;
    const wrapClient = (client: pg.PoolClient) =>
      new Proxy(client, {
        get: (target, key) =>
          key === 'query'
            ? counted(target.query.bind(target) as never)
            : (Reflect.get(target, key, target) as unknown),
      });
    const wrappedPool = new Proxy(pool, {
      get: (target, key) => {
        if (key === 'query') return counted(target.query.bind(target) as never);
        if (key === 'connect') return async () => wrapClient(await target.connect());
        const value = Reflect.get(target, key, target) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    return { database: { ...database, db: drizzlePg(wrappedPool, { schema }) as unknown as Db }, log };
  }
  const pglite = database.pglite!;
  const wrapTx = (tx: Transaction) =>
    new Proxy(tx, {
      get: (target, key) =>
        key === 'query' ? counted(target.query.bind(target) as never) : (Reflect.get(target, key) as unknown),
    });
  const wrapped = new Proxy(pglite, {
    get: (target, key) => {
      if (key === 'query') return counted(target.query.bind(target) as never);
      if (key === 'transaction')
        return <T>(fn: (tx: Transaction) => Promise<T>) => target.transaction((tx) => fn(wrapTx(tx)));
      const value = Reflect.get(target, key, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as PGlite;
  return { database: { ...database, db: drizzlePglite(wrapped, { schema }) as unknown as Db }, log };
}
