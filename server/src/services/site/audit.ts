import { and, count, desc, eq, or, type SQL } from 'drizzle-orm';
import type { AuditEntry, AuditQuery, Paged } from '@vpn/contracts';
import { auditLog } from '../../db/schema.ts';
import type { Db } from '../../db/client.ts';
import { notifyInTransaction, type Bus, type BusEvent } from '../../realtime/bus.ts';
import { lowerContains, pageOf } from '../../db/listing.ts';
import { auditInWords, loadAuditNames } from './auditWords.ts';

/** Who did something in the manager area (for the audit log). */
export interface Actor {
  id: number;
  username: string;
  ip?: string;
}

export interface FieldChange {
  before: unknown;
  after: unknown;
}

/** Field names whose values never reach the audit log: the change is recorded, not the value. */
const SECRET = /pass|secret|token|private|preshared|totp|recovery|key_enc|hash/i;
export const REDACTED = '[oculto]';

/**
 * The fields that differ between two presented states, as `{ field: { before, after } }`; secret
 * fields appear with their values hidden. Compare presented (API) shapes, not rows.
 */
export function diffFields(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
): Record<string, FieldChange> {
  const out: Record<string, FieldChange> = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    const b = before?.[key] ?? null;
    const a = after?.[key] ?? null;
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    out[key] = SECRET.test(key) ? { before: REDACTED, after: REDACTED } : { before: b, after: a };
  }
  return out;
}

export interface AuditEntryInput {
  /** A stable verb: `customer.disable`, `plan.update`, `invoice.mark_paid`… */
  action: string;
  targetType: string;
  targetId: string | number | null;
  changes?: Record<string, FieldChange>;
  reason?: string;
  /** Other non-secret facts worth keeping (e.g. the plan granted). */
  extra?: Record<string, unknown>;
}

/**
 * Writes one audit entry. Call it with the transaction that makes the change, so the entry and
 * the change commit (or roll back) together.
 */
export async function writeAudit(tx: Db, actor: Actor, entry: AuditEntryInput): Promise<number> {
  const [row] = await tx
    .insert(auditLog)
    .values({
      actorRealm: 'manager',
      actorId: actor.id,
      actorName: actor.username,
      action: entry.action,
      targetType: entry.targetType,
      targetId: entry.targetId === null ? null : String(entry.targetId),
      target: entry.targetId === null ? entry.targetType : `${entry.targetType}:${entry.targetId}`,
      data: {
        changes: entry.changes ?? {},
        ...(entry.reason ? { reason: entry.reason } : {}),
        ...(entry.extra ? { extra: entry.extra } : {}),
      },
      ip: actor.ip ?? null,
    })
    .returning({ id: auditLog.id });
  const id = row!.id;
  // The audit page's live tail: announced by the database at commit (never for a rolled-back
  // change), to managers who may read the audit log, on every instance.
  const event: BusEvent = {
    kind: 'managers',
    permission: 'audit.read',
    message: { type: 'admin_audit', entry_id: id },
  };
  await notifyInTransaction(tx, event);
  return id;
}

type AuditedWork<T> = (tx: Db, audit: (entry: AuditEntryInput) => Promise<number>) => Promise<T>;

/**
 * Runs a manager's change in one transaction with its audit entries (`audit(entry)` writes one
 * inside it); the work's result is returned. The entries are announced when it commits.
 */
export async function auditedTransaction<T>(db: Db, actor: Actor, work: AuditedWork<T>): Promise<T>;
/**
 * The form written while the caller's bus announced the entries after commit. The database does
 * that now (see writeAudit); the bus argument is accepted so those callers keep working.
 */
export async function auditedTransaction<T>(db: Db, bus: Bus, actor: Actor, work: AuditedWork<T>): Promise<T>;
export async function auditedTransaction<T>(
  db: Db,
  ...args: [Actor, AuditedWork<T>] | [Bus, Actor, AuditedWork<T>]
): Promise<T> {
  const [actor, work] = args.length === 3 ? [args[1], args[2]] : args;
  return db.transaction(async (tx) => work(tx, (entry) => writeAudit(tx, actor, entry)));
}

interface StoredData {
  changes?: Record<string, FieldChange>;
  reason?: string;
  extra?: Record<string, unknown>;
  /** Entries of the old generic hook: the names of the body fields, no values. */
  fields?: string[];
}

type AuditRow = typeof auditLog.$inferSelect;

/** An audit row as stored, before its words (auditWords.ts). */
function rawAuditEntry(row: AuditRow): Omit<AuditEntry, 'summary' | 'details'> {
  const data = (row.data ?? {}) as StoredData;
  const extra = data.extra ?? (data.fields ? { fields: data.fields } : null);
  return {
    id: row.id,
    manager: row.actorName,
    manager_id: row.actorRealm === 'manager' ? row.actorId : null,
    action: row.action,
    target_type: row.targetType,
    target_id: row.targetId ?? (row.targetType ? null : row.target),
    changes: data.changes ?? {},
    reason: data.reason ?? null,
    extra,
    ip: row.ip,
    created: row.createdAt.toISOString(),
  };
}

/**
 * The audit log, newest first, filtered by manager and by target and searched in the action, the
 * manager's name and the target id. Filters by manager or target are served by the indexes on
 * (actor_id, created_at) and (target_type, target_id, created_at).
 */
export async function listAudit(db: Db, query: AuditQuery): Promise<Paged<AuditEntry>> {
  const where: (SQL | undefined)[] = [];
  if (query.manager !== undefined)
    where.push(and(eq(auditLog.actorRealm, 'manager'), eq(auditLog.actorId, query.manager)));
  if (query.target_type) where.push(eq(auditLog.targetType, query.target_type));
  if (query.target_id) where.push(eq(auditLog.targetId, query.target_id));
  if (query.q)
    where.push(
      or(
        lowerContains(auditLog.action, query.q),
        lowerContains(auditLog.actorName, query.q),
        lowerContains(auditLog.targetId, query.q),
      ),
    );
  const condition = and(...where);
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(auditLog)
      .where(condition)
      .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(auditLog).where(condition),
  ]);
  const raw = rows.map(rawAuditEntry);
  const names = await loadAuditNames(db, raw);
  return { count: total?.n ?? 0, results: raw.map((e) => ({ ...e, ...auditInWords(e, names) })) };
}
