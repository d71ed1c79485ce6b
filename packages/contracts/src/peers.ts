import { z } from './zod.ts';

/** A server as a peer's owner sees it: where the tunnel ends, and whether it works now. */
/**
 * Why a server is or is not usable, in the words customer and console share: `active` (switched on,
 * its agent heard within 45 s: "Activo"), `offline` (switched on, its agent not answering: "Sin
 * conexión"), `inactive` (switched off by a manager: "Inactivo"). Added to the spec's `active`.
 */
export const ServerStatus = z.enum(['active', 'offline', 'inactive']);
export type ServerStatus = z.infer<typeof ServerStatus>;

export const PeerServer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** host:port clients dial. */
  address: z.string(),
  /** Active flag and a live agent together (shown Activo / Inactivo). */
  active: z.boolean(),
  ubication: z.string(),
  allow_partys: z.boolean(),
  status: ServerStatus,
});
export type PeerServer = z.infer<typeof PeerServer>;

export const PlanHistoryEntry = z.object({
  plan_name: z.string(),
  plan_price: z.number(),
  created: z.string(),
  /** When its payment was refunded and its period taken back; absent (or null) otherwise. */
  refunded: z.string().nullable().optional(),
});
export type PlanHistoryEntry = z.infer<typeof PlanHistoryEntry>;

export const PeerOperation = z.enum(['regenerate', 'change_server']);
export type PeerOperation = z.infer<typeof PeerOperation>;

/**
 * Issue 19: the peer's keys seem to run on more than one device (its endpoint alternates between
 * source addresses). `detected_at`: when this episode was first seen; `endpoints`: how many distinct
 * addresses alternated. Cleared after 24 h without alternation, or at once by a regenerate.
 */
export const ConcurrentUse = z.object({
  detected_at: z.string(),
  endpoints: z.number().int(),
});
export type ConcurrentUse = z.infer<typeof ConcurrentUse>;

/**
 * A peer's speed (issue 35): its current plan's, both directions in Mbit/s (null = unlimited), and
 * `reduced` while it is held at the plan's reduced speed: why (`data`: the allowance ran out on a
 * plan that reduces instead of cutting; `expired`: within the plan's grace days after expiry), at
 * what speed, since when, and until when (the period's end for `data`, the grace's end for
 * `expired`: then it is cut). Null otherwise.
 */
export const PeerSpeed = z.object({
  down_mbit: z.number().nullable(),
  up_mbit: z.number().nullable(),
  reduced: z
    .object({
      reason: z.enum(['data', 'expired']),
      kbit: z.number().int(),
      since: z.string(),
      until: z.string().nullable(),
    })
    .nullable(),
});
export type PeerSpeed = z.infer<typeof PeerSpeed>;

/** A customer's peer (device). */
export const Peer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Shown Activo / Deshabilitado. */
  active: z.boolean(),
  /**
   * A manager switched it off (issue 17, L9): it stays off, even if a plan is added, until a manager
   * switches it on; the card says so. Added to the spec's shape, like `data` and `online`.
   */
  manager_disabled: z.boolean(),
  /** ISO date, or null (shown Indeterminado). */
  expiration_date: z.string().nullable(),
  created: z.string(),
  /** The peer's private tunnel address (kept for life). */
  address: z.string(),
  plans_history: z.array(PlanHistoryEntry),
  server: PeerServer,
  mirror_link: z.string(),
  party: z.object({ id: z.number().int(), name: z.string() }).nullable(),
  manual_payment: z.boolean(),
  /** An operation waiting for the servers to apply it; actions stay disabled meanwhile. */
  processing: PeerOperation.nullable(),
  /** A handshake within the last 3 minutes (from the agents' reports). */
  online: z.boolean(),
  /**
   * The current period's data allowance in bytes and what the peer used of it (both directions),
   * or null when the plan has none (unlimited). At the allowance the peer is off until a plan.
   */
  data: z.object({ used: z.number().int(), allowance: z.number().int() }).nullable(),
  /** In use on more than one device (issue 19), or null. */
  concurrent_use: ConcurrentUse.nullable(),
  /** Its speed and whether it is reduced now (issue 35). */
  speed: PeerSpeed,
});
export type Peer = z.infer<typeof Peer>;

/**
 * GET /api/client/accounts/peers/{id}/usage: what the peer's details show. Bytes from the
 * customer's side (upload = sent through the tunnel). `days`: the last 30 UTC days, oldest first,
 * `days_from` the first of them; two plain arrays keep the payload small.
 */
export const PeerUsage = z.object({
  online: z.boolean(),
  /** ISO date of the last handshake, or null (never). */
  last_handshake: z.string().nullable(),
  period: z.object({
    /** ISO date the current period began (the last plan granted). */
    since: z.string(),
    upload: z.number().int(),
    download: z.number().int(),
    /** The plan's allowance in bytes, or null when unlimited. */
    allowance: z.number().int().nullable(),
    /** Bytes counted against the allowance since the period began (0 when unlimited). */
    used: z.number().int(),
  }),
  days_from: z.string(),
  upload: z.array(z.number().int()),
  download: z.array(z.number().int()),
});
export type PeerUsage = z.infer<typeof PeerUsage>;
export const PeerList = z.array(Peer);

/**
 * Query of GET /api/client/accounts/peers/{id}: the file's format (`.conf` or MikroTik script) and
 * its scope: `full` (everything through the VPN) or `room` (only the peer's room: the room-only
 * tunnel, for a peer in a room).
 */
export const PeerConfigQuery = z.object({
  format: z.enum(['conf', 'mikrotik']).default('conf'),
  scope: z.enum(['full', 'room']).default('full'),
});
export type PeerConfigQuery = z.infer<typeof PeerConfigQuery>;

/** Body of PATCH /api/client/accounts/peers/{id}. */
export const PeerPatchBody = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('regenerate_token') }),
  z.object({ operation: z.literal('regenerate') }),
  z.object({ operation: z.literal('change_server'), server: z.coerce.number().int().positive() }),
]);
export type PeerPatchBody = z.infer<typeof PeerPatchBody>;

/** GET /api/client/network/{peerId}: servers the peer may move to. */
export const AvailableServer = z.object({
  id: z.number().int(),
  name: z.string(),
  address: z.string(),
  active: z.boolean(),
  ubication: z.string(),
  allow_partys: z.boolean(),
  status: ServerStatus,
});
export type AvailableServer = z.infer<typeof AvailableServer>;
export const AvailableServerList = z.array(AvailableServer);
