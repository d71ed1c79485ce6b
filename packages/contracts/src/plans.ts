import { z } from 'zod';

/** A plan as the public and the dashboard see it. */
export const Plan = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  /** USD, as a number with two decimals. */
  price: z.number(),
  /** 'N days HH:MM:SS' */
  validity: z.string(),
});
export type Plan = z.infer<typeof Plan>;
export const PlanList = z.array(Plan);
