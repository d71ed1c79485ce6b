import type { Db } from '../../db/client.ts';
import type { Keys } from '../../lib/crypto.ts';
import type { Bus } from '../../realtime/bus.ts';
import type { PeerService } from '../peers/peers.ts';
import { PartyService } from './parties.ts';

/** The rooms domain's entry point (its files keep "party" until the rename of parties → rooms). */
export interface RoomsDeps {
  db: Db;
  bus: Bus;
  keys: Keys;
  peers: PeerService;
}

export interface Rooms {
  parties: PartyService;
}

export function createRooms(deps: RoomsDeps): Rooms {
  const { db, bus, keys, peers } = deps;
  return { parties: new PartyService({ db, encryptionKey: keys.encryption, bus, peers }) };
}
