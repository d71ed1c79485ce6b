import { z } from './zod.ts';
import { Peer } from './peers.ts';

/**
 * Push messages on `/ws?token=…` (server → browser). Each reaches only its owner.
 * `auth` answers the connection; the others follow the spec's section 4.
 */
export const PushMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('auth'), status: z.enum(['ok', 'error']), message: z.string().optional() }),
  z.object({ type: z.literal('success'), message: z.string(), peer_id: z.number().int().optional() }),
  z.object({ type: z.literal('error'), message: z.string(), peer_id: z.number().int().optional() }),
  z.object({ type: z.literal('info'), message: z.string(), peer_id: z.number().int().optional() }),
  z.object({ type: z.literal('created_peer'), peer: Peer }),
  z.object({ type: z.literal('updated_peer'), peer: Peer }),
  z.object({ type: z.literal('deleted_peer'), peer_id: z.number().int() }),
  z.object({ type: z.literal('new_party_operation'), party_id: z.number().int() }),
  z.object({ type: z.literal('stop_party_operation'), party_id: z.number().int() }),
  z.object({ type: z.literal('updated_owner_party'), party: z.unknown() }),
  z.object({ type: z.literal('updated_guest_party'), party: z.unknown() }),
  z.object({ type: z.literal('deleted_owner_party'), party_id: z.number().int() }),
  z.object({ type: z.literal('deleted_guest_party'), party_id: z.number().int() }),
]);
export type PushMessage = z.infer<typeof PushMessage>;
