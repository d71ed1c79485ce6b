/**
 * Rooms (Salas): the calls of the rooms page and the helpers that keep the cached room lists current.
 *
 * The cached `{owned_partys, guest_partys}` (`queryKeys.rooms`) is the one source of truth the page
 * renders: the page's own calls write their answers into it, and the push websocket writes the
 * server's changes (see `realtime.ts`): a room marked `processing` by `new_party_operation` shows
 * its in-progress indicator until `stop_party_operation` or the updated room arrives.
 */
import type { QueryClient } from '@tanstack/react-query';
import { MAX_OWNED_ROOMS } from '@vpn/contracts/limits';
import type { MessageBody, Peer, Room, RoomLists } from '@vpn/contracts';
import type { Schema } from './http';
import { queryKeys } from './queries';
import { authRequest } from './session';
// Checked without zod (`shape.ts`): the push socket (`realtime.ts`) writes rooms with these helpers
// on every dashboard page.
import { MessageBodyShape, RoomShape } from './shape';

export type { Room, RoomPeer } from '@vpn/contracts';
export { MAX_OWNED_ROOMS };

/** Which of the two lists a room belongs to, from the signed-in customer's point of view. */
export type RoomRole = 'owned' | 'guest';

const BASE = '/api/client/network/partys';

/** `POST /api/client/network/partys`: a new room with one of my free peers in it. */
export function createRoom(body: { name: string; peer: number }): Promise<Room> {
  return authRequest('client', BASE, { method: 'POST', body }, RoomShape);
}

/** `PATCH /api/client/network/partys` (join): enters someone's room with one of my free peers. */
export function joinRoom(body: { name: string; password: string; peer: number }): Promise<Room> {
  return authRequest('client', BASE, { method: 'PATCH', body: { operation: 'join', ...body } }, RoomShape);
}

/** `PATCH …/partys/{id}` regenerate_password (owner): the room's new password. */
export async function regenerateRoomPassword(id: number): Promise<string> {
  const schema: Schema<{ password: string }> = {
    safeParse: (value) =>
      value && typeof value === 'object' && typeof (value as { password?: unknown }).password === 'string'
        ? { success: true, data: { password: (value as { password: string }).password } }
        : { success: false, error: new Error('password') },
  };
  const answer = await authRequest(
    'client',
    `${BASE}/${id}`,
    { method: 'PATCH', body: { operation: 'regenerate_password' } },
    schema,
  );
  return answer.password;
}

/** A room, or the server's `{message}` when the caller no longer sees the room (they left it). */
const RoomOrMessage: Schema<Room | MessageBody> = {
  safeParse(value) {
    const room = RoomShape.safeParse(value);
    return room.success ? room : MessageBodyShape.safeParse(value);
  },
};

/** `PATCH …/partys/{id}` leave (a guest takes one of their own peers out). */
export function leaveRoom(id: number, peer: number): Promise<Room | MessageBody> {
  return authRequest(
    'client',
    `${BASE}/${id}`,
    { method: 'PATCH', body: { operation: 'leave', peer } },
    RoomOrMessage,
  );
}

/** `PATCH …/partys/{id}` remove_peer (the owner takes any peer out). */
export function removeRoomPeer(id: number, peer: number): Promise<Room | MessageBody> {
  return authRequest(
    'client',
    `${BASE}/${id}`,
    { method: 'PATCH', body: { operation: 'remove_peer', peer } },
    RoomOrMessage,
  );
}

/** `PATCH …/partys/{id}` add_peer (the owner adds one of their own free peers). */
export function addRoomPeer(id: number, peer: number): Promise<Room> {
  return authRequest(
    'client',
    `${BASE}/${id}`,
    { method: 'PATCH', body: { operation: 'add_peer', peer } },
    RoomShape,
  );
}

/** `DELETE …/partys/{id}` (owner): answers `{message: 'Party eliminada'}`. */
export function deleteRoom(id: number): Promise<MessageBody> {
  return authRequest('client', `${BASE}/${id}`, { method: 'DELETE' }, MessageBodyShape);
}

export function isRoom(value: Room | MessageBody): value is Room {
  return 'id' in value;
}

// ---------------------------------------------------------------------------------------------
// Free peers (spec §5: only peers not in a room can create, join or be added)

export interface FreePeers {
  /** Active, outside any room, on a server that allows rooms: these can enter one. */
  usable: Peer[];
  /** Active and outside any room, but their server does not allow rooms. */
  blocked: Peer[];
}

export function freePeers(peers: Peer[] | undefined): FreePeers {
  const free = (peers ?? []).filter((p) => p.active && p.party === null);
  return {
    usable: free.filter((p) => p.server.allow_partys),
    blocked: free.filter((p) => !p.server.allow_partys),
  };
}

// ---------------------------------------------------------------------------------------------
// Cache helpers (used by the page's calls and by the push websocket)

const listKey: Record<RoomRole, keyof RoomLists> = { owned: 'owned_partys', guest: 'guest_partys' };

function update(queryClient: QueryClient, change: (lists: RoomLists) => RoomLists): void {
  queryClient.setQueryData<RoomLists>(queryKeys.rooms, (lists) => (lists ? change(lists) : lists));
}

/** Writes a room into its list (replacing it, or adding it in id order); drops it from the other. */
export function upsertCachedRoom(queryClient: QueryClient, role: RoomRole, room: Room): void {
  update(queryClient, (lists) => {
    const key = listKey[role];
    const other = listKey[role === 'owned' ? 'guest' : 'owned'];
    const list = lists[key].filter((p) => p.id !== room.id);
    list.push(room);
    list.sort((a, b) => a.id - b.id);
    return { ...lists, [key]: list, [other]: lists[other].filter((p) => p.id !== room.id) };
  });
}

/** Drops a room from both lists. */
export function removeCachedRoom(queryClient: QueryClient, id: number): void {
  update(queryClient, (lists) => ({
    owned_partys: lists.owned_partys.filter((p) => p.id !== id),
    guest_partys: lists.guest_partys.filter((p) => p.id !== id),
  }));
}

/** Changes one cached room in place, wherever it is. */
export function updateCachedRoom(queryClient: QueryClient, id: number, change: (room: Room) => Room): void {
  update(queryClient, (lists) => ({
    owned_partys: lists.owned_partys.map((p) => (p.id === id ? change(p) : p)),
    guest_partys: lists.guest_partys.map((p) => (p.id === id ? change(p) : p)),
  }));
}

/** Marks a room busy (servers applying a membership change) or not. */
export function setCachedRoomProcessing(queryClient: QueryClient, id: number, processing: boolean): void {
  updateCachedRoom(queryClient, id, (p) => (p.processing === processing ? p : { ...p, processing }));
}
