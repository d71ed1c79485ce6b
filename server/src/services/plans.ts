import { asc, eq } from 'drizzle-orm';
import type { Plan } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { plans } from '../db/schema.ts';

type PlanRow = typeof plans.$inferSelect;

/** Postgres renders intervals as '30 days' or '1 day 02:00:00'; the API always says 'N days HH:MM:SS'. */
export function formatValidity(interval: string): string {
  const m = /^(?:(\d+) days?)?\s*(?:(\d+):(\d{2}):(\d{2}))?$/.exec(interval.trim());
  if (!m) return interval;
  const pad = (v: string | undefined) => (v ?? '0').padStart(2, '0');
  return `${Number(m[1] ?? 0)} days ${pad(m[2])}:${pad(m[3])}:${pad(m[4])}`;
}

export function presentPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    price: Number(row.price),
    validity: formatValidity(row.validity),
  };
}

export async function listActivePlans(db: Db): Promise<Plan[]> {
  const rows = await db
    .select()
    .from(plans)
    .where(eq(plans.active, true))
    .orderBy(asc(plans.sortOrder), asc(plans.id));
  return rows.map(presentPlan);
}
