import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import {
  catalogMsg,
  msg,
  type AdminPlan,
  type AdminPlanCreate,
  type AdminPlanPatch,
  type ListQuery,
  type Paged,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { invoices, plans } from '../../db/schema.ts';
import { conflict, notFound } from '../../lib/errors.ts';
import { auditedTransaction, diffFields, type Actor } from '../site/audit.ts';
import { lowerContains, pageOf } from '../../db/listing.ts';
import { invalidatePlans, presentPlanSpeed } from './plans.ts';
import { kbitOfMbit } from '../fleet/peerSpeed.ts';

/** The speed columns a create or patch sets (issue 35): only the fields sent. */
function speedColumns(body: AdminPlanPatch) {
  return {
    ...(body.speed_down_mbit !== undefined ? { speedDownKbit: kbitOfMbit(body.speed_down_mbit) } : {}),
    ...(body.speed_up_mbit !== undefined ? { speedUpKbit: kbitOfMbit(body.speed_up_mbit) } : {}),
    ...(body.on_data_exhausted !== undefined ? { dataExhaustedAction: body.on_data_exhausted } : {}),
    ...(body.reduced_kbit !== undefined ? { reducedKbit: body.reduced_kbit } : {}),
    ...(body.grace_days !== undefined ? { graceDays: body.grace_days } : {}),
  };
}

type PlanRow = typeof plans.$inferSelect;

/** Whole days of a plan's validity interval (plans are sold in days). */
const validityDays = sql<number>`round(extract(epoch from ${plans.validity}) / 86400)::int`;

const columns = {
  id: plans.id,
  name: plans.name,
  description: plans.description,
  price: plans.price,
  validityDays,
  active: plans.active,
  sortOrder: plans.sortOrder,
  dataGb: plans.dataGb,
  speedDownKbit: plans.speedDownKbit,
  speedUpKbit: plans.speedUpKbit,
  dataExhaustedAction: plans.dataExhaustedAction,
  reducedKbit: plans.reducedKbit,
  graceDays: plans.graceDays,
  createdAt: plans.createdAt,
};
type PlanView = {
  [K in keyof typeof columns]: K extends 'validityDays' ? number : PlanRow[Exclude<K, 'validityDays'>];
};

function present(row: PlanView, invoiceCount: number): AdminPlan {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: Number(row.price).toFixed(2),
    validity_days: row.validityDays,
    hidden: !row.active,
    data_gb: row.dataGb === null ? null : Number(row.dataGb),
    sort_order: row.sortOrder,
    ...presentPlanSpeed(row),
    invoices: invoiceCount,
    created: row.createdAt.toISOString(),
  };
}

/** The fields a manager edits, for the audit's before/after. */
const editable = (p: AdminPlan) => ({
  name: p.name,
  description: p.description,
  price: p.price,
  validity_days: p.validity_days,
  hidden: p.hidden,
  data_gb: p.data_gb,
  sort_order: p.sort_order,
  speed_down_mbit: p.speed_down_mbit,
  speed_up_mbit: p.speed_up_mbit,
  on_data_exhausted: p.on_data_exhausted,
  reduced_kbit: p.reduced_kbit,
  grace_days: p.grace_days,
});

async function invoiceCounts(db: Db, ids: number[]): Promise<Map<number, number>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ planId: invoices.planId, n: count() })
    .from(invoices)
    .where(inArray(invoices.planId, ids))
    .groupBy(invoices.planId);
  return new Map(rows.map((r) => [r.planId, r.n]));
}

async function readOne(db: Db, id: number, lock = false): Promise<AdminPlan> {
  const query = db.select(columns).from(plans).where(eq(plans.id, id));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFound(msg.planNotFound);
  return present(row, (await invoiceCounts(db, [id])).get(id) ?? 0);
}

/** Every plan, hidden ones too, in the public display order; `q` searches the name. */
export async function listPlans(db: Db, query: ListQuery): Promise<Paged<AdminPlan>> {
  const where = lowerContains(plans.name, query.q);
  const { limit, offset } = pageOf(query);
  const [rows, [total]] = await Promise.all([
    db
      .select(columns)
      .from(plans)
      .where(where)
      .orderBy(asc(plans.sortOrder), asc(plans.id))
      .limit(limit)
      .offset(offset),
    db.select({ n: count() }).from(plans).where(where),
  ]);
  const counts = await invoiceCounts(
    db,
    rows.map((r) => r.id),
  );
  return { count: total?.n ?? 0, results: rows.map((r) => present(r, counts.get(r.id) ?? 0)) };
}

export function getPlan(db: Db, id: number): Promise<AdminPlan> {
  return readOne(db, id);
}

/** Public lists on this instance show the change at once; other instances within their 1 s cache. */
async function committed<T>(db: Db, work: Promise<T>): Promise<T> {
  const result = await work;
  invalidatePlans(db);
  return result;
}

export function createPlan(db: Db, actor: Actor, body: AdminPlanCreate): Promise<AdminPlan> {
  return committed(
    db,
    auditedTransaction(db, actor, async (tx, audit) => {
      const [row] = await tx
        .insert(plans)
        .values({
          name: body.name,
          description: body.description,
          price: Number(body.price).toFixed(2),
          validity: `${body.validity_days} days`,
          active: !body.hidden,
          sortOrder: body.sort_order,
          dataGb: body.data_gb === null ? null : body.data_gb.toFixed(3),
          ...speedColumns(body),
        })
        .returning({ id: plans.id });
      const plan = await readOne(tx, row!.id);
      await audit({
        action: 'plan.create',
        targetType: 'plan',
        targetId: plan.id,
        changes: diffFields(null, editable(plan)),
      });
      return plan;
    }),
  );
}

export function updatePlan(db: Db, actor: Actor, id: number, patch: AdminPlanPatch): Promise<AdminPlan> {
  return committed(
    db,
    auditedTransaction(db, actor, async (tx, audit) => {
      const before = await readOne(tx, id, true);
      await tx
        .update(plans)
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.description !== undefined ? { description: patch.description } : {}),
          ...(patch.price !== undefined ? { price: Number(patch.price).toFixed(2) } : {}),
          ...(patch.validity_days !== undefined ? { validity: `${patch.validity_days} days` } : {}),
          ...(patch.hidden !== undefined ? { active: !patch.hidden } : {}),
          ...(patch.sort_order !== undefined ? { sortOrder: patch.sort_order } : {}),
          ...(patch.data_gb !== undefined
            ? { dataGb: patch.data_gb === null ? null : patch.data_gb.toFixed(3) }
            : {}),
          ...speedColumns(patch),
        })
        .where(eq(plans.id, id));
      const after = await readOne(tx, id);
      const changes = diffFields(editable(before), editable(after));
      if (Object.keys(changes).length > 0)
        await audit({
          action: after.hidden !== before.hidden ? (after.hidden ? 'plan.hide' : 'plan.show') : 'plan.update',
          targetType: 'plan',
          targetId: id,
          changes,
        });
      return after;
    }),
  );
}

/** A plan nobody ever invoiced can go; one with invoices stays (hide it instead): 409. */
export function deletePlan(db: Db, actor: Actor, id: number): Promise<void> {
  return committed(
    db,
    auditedTransaction(db, actor, async (tx, audit) => {
      const before = await readOne(tx, id, true);
      if (before.invoices > 0) throw conflict(catalogMsg.planHasInvoices);
      await tx.delete(plans).where(eq(plans.id, id));
      await audit({
        action: 'plan.delete',
        targetType: 'plan',
        targetId: id,
        changes: diffFields(editable(before), null),
      });
    }).catch((e: unknown) => {
      // An invoice created for it meanwhile: the foreign key refuses the delete.
      const err = e as { code?: string; cause?: { code?: string } };
      if (err.code === '23503' || err.cause?.code === '23503') throw conflict(catalogMsg.planHasInvoices);
      throw e;
    }),
  );
}
