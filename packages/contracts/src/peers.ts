import { z } from 'zod';

/** A server as a peer's owner sees it: where the tunnel ends, and whether it works now. */
export const PeerServer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** host:port clients dial. */
  address: z.string(),
  /** Active flag and a live agent together (shown Activo / Inactivo). */
  active: z.boolean(),
  ubication: z.string(),
  allow_partys: z.boolean(),
});
export type PeerServer = z.infer<typeof PeerServer>;

export const PlanHistoryEntry = z.object({
  plan_name: z.string(),
  plan_price: z.number(),
  created: z.string(),
});
export type PlanHistoryEntry = z.infer<typeof PlanHistoryEntry>;

export const PeerOperation = z.enum(['regenerate', 'change_server']);
export type PeerOperation = z.infer<typeof PeerOperation>;

/** A customer's peer (device). */
export const Peer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** Shown Activo / Deshabilitado. */
  active: z.boolean(),
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
});
export type Peer = z.infer<typeof Peer>;
export const PeerList = z.array(Peer);

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
});
export type AvailableServer = z.infer<typeof AvailableServer>;
export const AvailableServerList = z.array(AvailableServer);
