import { z } from './zod.ts';

/**
 * What happens when a plan's data allowance runs out (issue 35): `cut` takes the peer off its
 * server until a plan is applied; `reduce` keeps it online at the plan's reduced speed until then.
 */
export const DataExhaustedAction = z.enum(['cut', 'reduce']);
export type DataExhaustedAction = z.infer<typeof DataExhaustedAction>;

/**
 * A plan's speed terms (issue 35), shared by the public, dashboard and console shapes. Mbit/s are
 * 10^6 bit/s, kbit/s 10^3 bit/s; a null speed is unlimited. `reduced_kbit` is the speed of a peer
 * past its allowance on a `reduce` plan or within its `grace_days` after expiry (0 = no grace).
 */
export const planSpeedShape = {
  speed_down_mbit: z.number().nullable(),
  speed_up_mbit: z.number().nullable(),
  on_data_exhausted: DataExhaustedAction,
  reduced_kbit: z.number().int(),
  grace_days: z.number().int(),
};

/** A plan as the public and the dashboard see it. */
export const Plan = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** USD, as a number with two decimals. */
  price: z.number(),
  /** 'N days HH:MM:SS' */
  validity: z.string(),
  /** Data for the validity in GB (10^9 bytes), or null: unlimited. */
  data_gb: z.number().nullable(),
  ...planSpeedShape,
});
export type Plan = z.infer<typeof Plan>;
export const PlanList = z.array(Plan);
