import { asc, eq } from 'drizzle-orm';
import type { Plan } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { plans } from '../../db/schema.ts';
import { ShortCache } from '../../lib/cache.ts';
import { mbitOfKbit } from '../fleet/peerSpeed.ts';

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
    data_gb: row.dataGb === null ? null : Number(row.dataGb),
    ...presentPlanSpeed(row),
  };
}

/** A plan's speed terms as every plan shape shows them (issue 35). */
export function presentPlanSpeed(
  row: Pick<PlanRow, 'speedDownKbit' | 'speedUpKbit' | 'dataExhaustedAction' | 'reducedKbit' | 'graceDays'>,
) {
  return {
    speed_down_mbit: mbitOfKbit(row.speedDownKbit),
    speed_up_mbit: mbitOfKbit(row.speedUpKbit),
    on_data_exhausted: row.dataExhaustedAction,
    reduced_kbit: row.reducedKbit,
    grace_days: row.graceDays,
  };
}

const caches = new WeakMap<Db, ShortCache<Plan[]>>();

/** Plans on sale, in display order; every visitor asks, so kept for one second per database handle. */
export function listActivePlans(db: Db): Promise<Plan[]> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new ShortCache(() => readActivePlans(db));
    caches.set(db, cache);
  }
  return cache.get();
}

/** Whoever changes plans calls this so this instance shows the change at once. */
export function invalidatePlans(db: Db): void {
  caches.get(db)?.invalidate();
}

async function readActivePlans(db: Db): Promise<Plan[]> {
  const rows = await db
    .select()
    .from(plans)
    .where(eq(plans.active, true))
    .orderBy(asc(plans.sortOrder), asc(plans.id));
  return rows.map(presentPlan);
}
