import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import type { Database, Db } from '../src/db/client.ts';
import * as schema from '../src/db/schema.ts';

/** One statement a service ran, and what PostgreSQL read to run it. */
export interface StatementCost {
  sql: string;
  /** Shared buffers hit or read by the statement's plan (its children included). */
  buffers: number;
  /** Rows the statement's plan answered or wrote. */
  rows: number;
}

interface PlanNode {
  'Shared Hit Blocks'?: number;
  'Shared Read Blocks'?: number;
  'Actual Rows'?: number;
}

/**
 * Runs `work` against `database` through a Db that records every statement, then replays each one
 * under `EXPLAIN (ANALYZE, BUFFERS)` inside a rolled-back transaction: what the work reads, counted
 * in buffers and statements instead of timed (the scale guards compare these on small and large
 * tables). Works on PGlite and PostgreSQL alike.
 */
export async function planCost(
  database: Database,
  work: (db: Db) => Promise<unknown>,
): Promise<{ statements: StatementCost[]; buffers: number; queries: number }> {
  const seen: { sql: string; params: unknown[] }[] = [];
  const logger = { logQuery: (sql: string, params: unknown[]) => void seen.push({ sql, params }) };
  const db = (database.pool
    ? drizzlePg(database.pool, { schema, logger })
    : drizzlePglite(database.pglite!, { schema, logger })) as unknown as Db;
  await work(db);
  const statements: StatementCost[] = [];
  for (const s of seen) {
    if (/^\s*(begin|commit|rollback|savepoint|release)/i.test(s.sql) || /pg_advisory/i.test(s.sql)) continue;
    const plan = await explain(database, s.sql, s.params);
    statements.push({
      sql: s.sql,
      buffers: (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0),
      rows: plan['Actual Rows'] ?? 0,
    });
  }
  return {
    statements,
    buffers: statements.reduce((n, s) => n + s.buffers, 0),
    queries: statements.length,
  };
}

async function explain(database: Database, sql: string, params: unknown[]): Promise<PlanNode> {
  const text = `explain (analyze, buffers, format json) ${sql}`;
  if (database.pool) {
    const client = await database.pool.connect();
    try {
      await client.query('begin');
      const res = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(text, params);
      return res.rows[0]!['QUERY PLAN'][0].Plan;
    } finally {
      await client.query('rollback');
      client.release();
    }
  }
  return database.pglite!.transaction(async (tx) => {
    const res = await tx.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(text, params);
    const plan = res.rows[0]!['QUERY PLAN'][0].Plan;
    await tx.rollback();
    return plan;
  });
}
