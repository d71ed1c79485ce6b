import { and, asc, count, eq, sql } from 'drizzle-orm';
import {
  msgManagers,
  type AdminManager,
  type ManagerListQuery,
  type ManagerPatchBody,
  type NewManagerBody,
  type Paged,
  type Role,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { managers } from '../../db/schema.ts';
import { hashPassword } from '../../lib/crypto.ts';
import { conflict, isUniqueViolation, notFound } from '../../lib/errors.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, diffFields, REDACTED, type Actor } from '../site/audit.ts';
import { lowerContains, pageOf } from '../../db/listing.ts';
import type { SessionService } from './sessions.ts';

export interface ManagerAdminDeps {
  db: Db;
  bus: Bus;
  sessions: SessionService;
}

type ManagerRow = typeof managers.$inferSelect;

export function presentManager(row: ManagerRow): AdminManager {
  return {
    id: row.id,
    username: row.username,
    role: row.role as Role,
    disabled: !row.active,
    totp_enabled: row.totpEnabledAt !== null,
    created: row.createdAt.toISOString(),
  };
}

/** What the audit compares: the presented manager without the creation time. */
const audited = (m: AdminManager | null) =>
  m && { username: m.username, role: m.role, disabled: m.disabled, totp_enabled: m.totp_enabled };

/**
 * The console's managers (owner only): list, create, edit, delete. Guard rails: the last active
 * owner can be neither disabled, demoted nor deleted (or nobody could manage managers again), and
 * nobody deletes or disables their own account. Disabling a manager, changing their role or their
 * password revokes their sessions at once, and their open console sockets are closed on every
 * instance.
 */
export class ManagerAdminService {
  constructor(private readonly deps: ManagerAdminDeps) {}

  async list(query: ManagerListQuery): Promise<Paged<AdminManager>> {
    const where = and(
      lowerContains(managers.username, query.q),
      query.role ? eq(managers.role, query.role) : undefined,
    );
    const { limit, offset } = pageOf(query);
    const [rows, [total]] = await Promise.all([
      this.deps.db.select().from(managers).where(where).orderBy(asc(managers.id)).limit(limit).offset(offset),
      this.deps.db.select({ n: count() }).from(managers).where(where),
    ]);
    return { count: total?.n ?? 0, results: rows.map(presentManager) };
  }

  async get(id: number): Promise<AdminManager> {
    const [row] = await this.deps.db.select().from(managers).where(eq(managers.id, id));
    if (!row) throw notFound(msgManagers.notFound);
    return presentManager(row);
  }

  async create(actor: Actor, body: NewManagerBody): Promise<AdminManager> {
    const passwordHash = await hashPassword(body.password);
    try {
      return await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
        const [row] = await tx
          .insert(managers)
          .values({
            username: body.username,
            passwordHash,
            role: body.role,
            active: !(body.disabled ?? false),
          })
          .returning();
        const created = presentManager(row!);
        await audit({
          action: 'manager.create',
          targetType: 'manager',
          targetId: created.id,
          changes: { ...diffFields(null, audited(created)), password: { before: null, after: REDACTED } },
        });
        return created;
      });
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(msgManagers.usernameTaken);
      throw e;
    }
  }

  async update(actor: Actor, id: number, body: ManagerPatchBody): Promise<AdminManager> {
    if (body.disabled === true && id === actor.id) throw conflict(msgManagers.disableSelf);
    const passwordHash = body.password === undefined ? undefined : await hashPassword(body.password);
    try {
      const updated = await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
        const before = await this.lockWithOwners(tx, id);
        const losesOwner =
          before.role === 'owner' &&
          before.active &&
          ((body.role !== undefined && body.role !== 'owner') || body.disabled === true);
        if (losesOwner) await this.assertAnotherOwner(tx, id);
        const [row] = await tx
          .update(managers)
          .set({
            username: body.username,
            passwordHash,
            role: body.role,
            active: body.disabled === undefined ? undefined : !body.disabled,
          })
          .where(eq(managers.id, id))
          .returning();
        const after = presentManager(row!);
        const was = presentManager(before);
        const revoked =
          passwordHash !== undefined || after.role !== was.role || (after.disabled && !was.disabled);
        // Also closes their open sockets on every instance when this commits.
        if (revoked) await this.deps.sessions.revokeAll({ realm: 'manager', id }, tx);
        const changes = diffFields(audited(was), audited(after));
        if (passwordHash !== undefined) changes.password = { before: REDACTED, after: REDACTED };
        if (Object.keys(changes).length > 0)
          await audit({ action: 'manager.update', targetType: 'manager', targetId: id, changes });
        return after;
      });
      return updated;
    } catch (e) {
      if (isUniqueViolation(e)) throw conflict(msgManagers.usernameTaken);
      throw e;
    }
  }

  async remove(actor: Actor, id: number): Promise<void> {
    if (id === actor.id) throw conflict(msgManagers.deleteSelf);
    await auditedTransaction(this.deps.db, actor, async (tx, audit) => {
      const before = await this.lockWithOwners(tx, id);
      if (before.role === 'owner' && before.active) await this.assertAnotherOwner(tx, id);
      await this.deps.sessions.revokeAll({ realm: 'manager', id }, tx);
      await tx.delete(managers).where(eq(managers.id, id));
      await audit({
        action: 'manager.delete',
        targetType: 'manager',
        targetId: id,
        changes: diffFields(audited(presentManager(before)), null),
      });
    });
  }

  /**
   * Locks the active owners and the target row. Two owners demoting each other at once would both
   * see "another owner exists" without this; with it, the second waits and then sees the first's change.
   */
  private async lockWithOwners(tx: Db, id: number): Promise<ManagerRow> {
    await tx
      .select({ id: managers.id })
      .from(managers)
      .where(and(eq(managers.role, 'owner'), eq(managers.active, true)))
      .orderBy(asc(managers.id))
      .for('update');
    const [row] = await tx.select().from(managers).where(eq(managers.id, id)).for('update');
    if (!row) throw notFound(msgManagers.notFound);
    return row;
  }

  private async assertAnotherOwner(tx: Db, id: number): Promise<void> {
    const [others] = await tx
      .select({ n: count() })
      .from(managers)
      .where(and(eq(managers.role, 'owner'), eq(managers.active, true), sql`${managers.id} <> ${id}`));
    if ((others?.n ?? 0) === 0) throw conflict(msgManagers.lastOwner);
  }
}
