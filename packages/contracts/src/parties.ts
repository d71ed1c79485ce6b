import { z } from './zod.ts';
import { noControlChars } from './common.ts';

const text = z.preprocess((v) => (v === undefined || v === null ? '' : v), z.string().max(200));
/** A room's name: lenient like `text`, but never with control characters. */
const name = z.preprocess(
  (v) => (v === undefined || v === null ? '' : v),
  noControlChars(z.string().max(200)),
);
const id = z.preprocess(
  (v) => (v === '' || v === null ? undefined : v),
  z.coerce
    .number()
    .int()
    .positive()
    .max(2 ** 31 - 1)
    .optional(),
);

export const MAX_OWNED_PARTIES = 5;

/** A peer inside a room, as every member sees it. */
export const PartyPeer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The peer owner's alias (or username when no alias is set). */
  user: z.string(),
  private_ip: z.string(),
});
export type PartyPeer = z.infer<typeof PartyPeer>;

/** A room (Sala). `password` only for its owner. */
export const Party = z.object({
  id: z.number().int(),
  name: z.string(),
  created: z.string(),
  peers: z.array(PartyPeer),
  /** The owner's alias. */
  user: z.string(),
  password: z.string().nullable(),
  /** Servers are still applying a change to this room. */
  processing: z.boolean(),
});
export type Party = z.infer<typeof Party>;

export const PartyLists = z.object({ owned_partys: z.array(Party), guest_partys: z.array(Party) });
export type PartyLists = z.infer<typeof PartyLists>;

export const CreatePartyBody = z.object({ name, peer: id });
export const JoinPartyBody = z.object({ operation: z.literal('join'), name, password: text, peer: id });
export const PartyPatchBody = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('regenerate_password') }),
  z.object({ operation: z.literal('leave'), peer: id }),
  z.object({ operation: z.literal('remove_peer'), peer: id }),
  z.object({ operation: z.literal('add_peer'), peer: id }),
]);
export type PartyPatchBody = z.infer<typeof PartyPatchBody>;
