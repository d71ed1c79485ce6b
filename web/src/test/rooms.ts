/** Rooms (Salas) for component tests, shaped like the control plane's answers. */
import type { Peer } from '@vpn/contracts';
import type { Room } from '@vpn/contracts';
import { laptop, samplePeer } from './peers';

/** The signed-in customer of the rooms tests ('juan', alias 'juanito'). */
export const ALIAS = 'juanito';

/** A room juan owns, with his peer 'movil' in it. */
export function ownedRoom(overrides: Partial<Room> = {}): Room {
  return {
    id: 21,
    name: 'LAN Viernes',
    created: '2025-03-05T10:00:00.000Z',
    peers: [{ id: 11, name: 'movil', user: ALIAS, private_ip: '10.8.0.2' }],
    user: ALIAS,
    password: 'abcDEF2345',
    processing: false,
    discovery: true,
    ...overrides,
  };
}

/** Pedro's room, where juan's 'tablet' is a guest. */
export function guestRoom(overrides: Partial<Room> = {}): Room {
  return {
    id: 31,
    name: 'Clan Norte',
    created: '2025-06-20T18:30:00.000Z',
    peers: [
      { id: 40, name: 'pc-pedro', user: 'pedro', private_ip: '10.8.0.9' },
      { id: 14, name: 'tablet', user: ALIAS, private_ip: '10.8.0.5' },
    ],
    user: 'pedro',
    password: null,
    processing: false,
    discovery: true,
    ...overrides,
  };
}

/** A free peer on a server that allows rooms. */
export const consola = (overrides: Partial<Peer> = {}) =>
  samplePeer({
    id: 13,
    name: 'consola',
    address: '10.8.0.4',
    mirror_link: 'https://vpn.example.com/api/mirror/ccccccccccccccccccccccccccccccccccccccccccc',
    ...overrides,
  });

/** juan's peers: movil in 'LAN Viernes', tablet in 'Clan Norte', consola free, portatil on a room-less server. */
export function roomPeers(): Peer[] {
  return [
    samplePeer({ party: { id: 21, name: 'LAN Viernes' } }),
    laptop(),
    consola(),
    samplePeer({ id: 14, name: 'tablet', address: '10.8.0.5', party: { id: 31, name: 'Clan Norte' } }),
  ];
}
