import { z } from './zod.ts';

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
});
export type Plan = z.infer<typeof Plan>;
export const PlanList = z.array(Plan);
