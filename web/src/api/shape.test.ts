/**
 * The zod-free answer checks (`shape.ts`, issue 28) must accept and refuse what the contracts' zod
 * schemas accept and refuse: each case is parsed by both and the verdicts compared.
 */
import { describe, expect, it } from 'vitest';
import * as contracts from '@vpn/contracts';
import { sampleUser } from '../test/api';
import { samplePeer } from '../test/peers';
import { ownedRoom } from '../test/rooms';
import {
  CurrentUserShape,
  MessageBodyShape,
  PeerListShape,
  PeerShape,
  PushMessageShape,
  RoomShape,
  TokenPairShape,
} from './shape';
import type { Schema } from './http';

const peer = samplePeer();
const cases: [string, Schema<unknown>, { safeParse(v: unknown): { success: boolean } }, unknown][] = [
  ['token pair', TokenPairShape, contracts.TokenPair, { access: 'a', refresh: 'r' }],
  ['token pair without refresh', TokenPairShape, contracts.TokenPair, { access: 'a' }],
  ['token pair with a number', TokenPairShape, contracts.TokenPair, { access: 'a', refresh: 1 }],
  ['message', MessageBodyShape, contracts.MessageBody, { message: 'Party eliminada' }],
  ['message null', MessageBodyShape, contracts.MessageBody, null],
  ['current user', CurrentUserShape, contracts.CurrentUser, sampleUser],
  ['current user, id as text', CurrentUserShape, contracts.CurrentUser, { ...sampleUser, id: '1' }],
  ['current user, fractional id', CurrentUserShape, contracts.CurrentUser, { ...sampleUser, id: 1.5 }],
  ['current user with an unknown key', CurrentUserShape, contracts.CurrentUser, { ...sampleUser, extra: 1 }],
  ['peer', PeerShape, contracts.Peer, peer],
  ['peer list', PeerListShape, contracts.PeerList, [peer, samplePeer({ id: 2, party: null })]],
  ['peer list with a broken peer', PeerListShape, contracts.PeerList, [peer, { ...peer, server: null }]],
  ['peer list, not a list', PeerListShape, contracts.PeerList, { peers: [peer] }],
  ['room', RoomShape, contracts.Room, ownedRoom()],
  ['room without peers', RoomShape, contracts.Room, { ...ownedRoom(), peers: undefined }],
  ['push: updated peer', PushMessageShape, contracts.PushMessage, { type: 'updated_peer', peer }],
  ['push: deleted peer', PushMessageShape, contracts.PushMessage, { type: 'deleted_peer', peer_id: 3 }],
  ['push: deleted peer, no id', PushMessageShape, contracts.PushMessage, { type: 'deleted_peer' }],
  ['push: unknown type', PushMessageShape, contracts.PushMessage, { type: 'bogus', peer_id: 3 }],
  [
    'push: auth with a bad status',
    PushMessageShape,
    contracts.PushMessage,
    { type: 'auth', status: 'maybe' },
  ],
  ['push: room update', PushMessageShape, contracts.PushMessage, { type: 'updated_owner_party', party: {} }],
];

describe('answer checks without zod', () => {
  it.each(cases)('%s: same verdict as the zod schema', (_name, shape, zod, value) => {
    expect(shape.safeParse(value).success).toBe(zod.safeParse(value).success);
  });

  it('refuses a changed answer and accepts the real one (both verdicts occur)', () => {
    const verdicts = new Set(cases.map(([, shape, , value]) => shape.safeParse(value).success));
    expect(verdicts).toEqual(new Set([true, false]));
  });

  it('returns the answer itself when it fits', () => {
    const result = PeerShape.safeParse(peer);
    expect(result).toEqual({ success: true, data: peer });
  });
});
