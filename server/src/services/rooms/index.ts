import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { PeerService } from '../peers/peers.ts';
import { RoomService } from './rooms.ts';

/** The rooms domain's entry point (its files keep "party" until the rename of rooms → rooms). */
export interface RoomsDeps {
  db: Db;
  bus: Bus;
  keys: Keys;
  peers: PeerService;
}

export interface Rooms {
  rooms: RoomService;
}

export function createRooms(deps: RoomsDeps): Rooms {
  const { db, bus, keys, peers } = deps;
  return { rooms: new RoomService({ db, encryptionKey: keys.encryption, bus, peers }) };
}
