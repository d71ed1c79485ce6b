import type { RoomLists } from '@vpn/contracts';
import { describe, expect, it } from 'vitest';
import { consola, guestRoom, ownedRoom } from '../test/rooms';
import { laptop, samplePeer } from '../test/peers';
import { testQueryClient } from '../test/render';
import { freePeers, removeCachedRoom, upsertCachedRoom } from './rooms';
import { queryKeys } from './queries';
import { applyPushToCache } from './realtime';

function cached(lists: RoomLists = { owned_partys: [ownedRoom()], guest_partys: [guestRoom()] }) {
  const queryClient = testQueryClient();
  queryClient.setQueryData(queryKeys.rooms, lists);
  const read = () => queryClient.getQueryData<RoomLists>(queryKeys.rooms)!;
  return { queryClient, read };
}

describe('rooms cache', () => {
  it('writes an updated room in place, adds a new one in id order, and drops deleted ones', () => {
    const { queryClient, read } = cached();
    upsertCachedRoom(queryClient, 'owned', ownedRoom({ id: 5, name: 'Primera' }));
    upsertCachedRoom(queryClient, 'owned', ownedRoom({ name: 'Renombrada' }));
    expect(read().owned_partys.map((p) => p.name)).toEqual(['Primera', 'Renombrada']);
    removeCachedRoom(queryClient, 31);
    expect(read().guest_partys).toEqual([]);
  });

  it('does nothing while no lists are cached', () => {
    const queryClient = testQueryClient();
    upsertCachedRoom(queryClient, 'owned', ownedRoom());
    expect(queryClient.getQueryData(queryKeys.rooms)).toBeUndefined();
  });

  it('applies the room pushes: processing on and off, updated rooms to their list, deletions', () => {
    const { queryClient, read } = cached();
    applyPushToCache(queryClient, { type: 'new_party_operation', party_id: 21 });
    expect(read().owned_partys[0]!.processing).toBe(true);
    applyPushToCache(queryClient, { type: 'stop_party_operation', party_id: 21 });
    expect(read().owned_partys[0]!.processing).toBe(false);
    applyPushToCache(queryClient, {
      type: 'updated_guest_party',
      party: guestRoom({ id: 40, name: 'Nueva' }),
    });
    expect(read().guest_partys.map((p) => p.name)).toEqual(['Clan Norte', 'Nueva']);
    applyPushToCache(queryClient, { type: 'deleted_owner_party', party_id: 21 });
    applyPushToCache(queryClient, { type: 'deleted_guest_party', party_id: 31 });
    expect(read()).toEqual({ owned_partys: [], guest_partys: [guestRoom({ id: 40, name: 'Nueva' })] });
  });

  it('ignores an updated room that does not match the contract', () => {
    const { queryClient, read } = cached();
    applyPushToCache(queryClient, { type: 'updated_owner_party', party: { id: 21, name: 'rota' } });
    expect(read().owned_partys[0]!.name).toBe('LAN Viernes');
  });
});

describe('free peers', () => {
  it('are active, outside any room and on a server with rooms; room-less servers are listed apart', () => {
    const peers = [
      samplePeer({ party: { id: 21, name: 'LAN Viernes' } }),
      consola(),
      consola({ id: 16, name: 'apagado', active: false }),
      laptop(),
    ];
    const free = freePeers(peers);
    expect(free.usable.map((p) => p.name)).toEqual(['consola']);
    expect(free.blocked.map((p) => p.name)).toEqual(['portatil']);
    expect(freePeers(undefined)).toEqual({ usable: [], blocked: [] });
  });
});
