/**
 * Bulk actions on peers by filter (issue 34): after an outage, extend everyone's expiry on a server
 * by N days; disable, enable or move the peers of a server, a plan or a state together. A preview
 * answers how many rows would change; the change itself is one audit entry with its count.
 */
import { z } from './zod.ts';

/** Changing more peers than this at once needs the manager's fresh confirmation (X-Reauth). */
export const BULK_REAUTH_OVER = 100;

const Id = z
  .number()
  .int()
  .positive()
  .max(2 ** 31 - 1);

export const BulkFilter = z
  .object({
    server: Id.optional(),
    /** The plan of the peer's latest period. */
    plan: Id.optional(),
    /** `active`: switched on; `disabled`: off; `expired`: its expiry has passed. */
    state: z.enum(['active', 'disabled', 'expired']).optional(),
  })
  .strict();
export type BulkFilter = z.infer<typeof BulkFilter>;

export const BulkPeersBody = z
  .object({
    filter: BulkFilter,
    operation: z.enum(['extend', 'disable', 'enable', 'move'], { message: 'Elija la acción' }),
    /** extend: days added to each expiry. */
    days: z
      .number({ message: 'Indique los días (1 a 365)' })
      .int('Indique los días (1 a 365)')
      .min(1, 'Indique los días (1 a 365)')
      .max(365, 'Indique los días (1 a 365)')
      .optional(),
    /** move: the server they go to. */
    to_server: Id.optional(),
    /** True: only count what would change. */
    preview: z.boolean().optional(),
    reason: z.string().trim().max(300, 'El motivo admite hasta 300 caracteres').optional(),
  })
  .strict();
export type BulkPeersBody = z.infer<typeof BulkPeersBody>;

export const BulkPeersAnswer = z.object({
  /** Peers that change (preview: that would). */
  count: z.number().int(),
  /** Customers told (0 in a preview). */
  customers: z.number().int(),
  /** Peers the agents had to change (a bulk extend touches agents only for peers off for expiry). */
  agent_changes: z.number().int(),
  /** Whether applying it needs X-Reauth (count over BULK_REAUTH_OVER, or a move). */
  reauth: z.boolean(),
});
export type BulkPeersAnswer = z.infer<typeof BulkPeersAnswer>;
