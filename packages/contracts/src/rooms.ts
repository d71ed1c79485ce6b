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

export { MAX_OWNED_ROOMS, ROOM_MEMBER_LIMIT } from './limits.ts';

/** A peer inside a room, as every member sees it. */
export const RoomPeer = z.object({
  id: z.number().int(),
  name: z.string(),
  /** The peer owner's alias (or username when no alias is set). */
  user: z.string(),
  private_ip: z.string(),
});
export type RoomPeer = z.infer<typeof RoomPeer>;

/** A room (Sala). `password` only for its owner. */
export const Room = z.object({
  id: z.number().int(),
  name: z.string(),
  created: z.string(),
  peers: z.array(RoomPeer),
  /** The owner's alias. */
  user: z.string(),
  password: z.string().nullable(),
  /** Servers are still applying a change to this room. */
  processing: z.boolean(),
  /**
   * LAN games find each other here (issue 25): the site's discovery switch is on and so is the switch
   * of every server that hosts a member (a member's broadcasts are relayed by its own server).
   */
  discovery: z.boolean(),
});
export type Room = z.infer<typeof Room>;

export const RoomLists = z.object({ owned_partys: z.array(Room), guest_partys: z.array(Room) });
export type RoomLists = z.infer<typeof RoomLists>;

export const CreateRoomBody = z.object({ name, peer: id });
export const JoinRoomBody = z.object({ operation: z.literal('join'), name, password: text, peer: id });
export const RoomPatchBody = z.discriminatedUnion('operation', [
  z.object({ operation: z.literal('regenerate_password') }),
  z.object({ operation: z.literal('leave'), peer: id }),
  z.object({ operation: z.literal('remove_peer'), peer: id }),
  z.object({ operation: z.literal('add_peer'), peer: id }),
]);
export type RoomPatchBody = z.infer<typeof RoomPatchBody>;
