/** Peers and servers for component tests, shaped like the control plane's answers. */
import type { AvailableServer, Peer } from '@vpn/contracts';

export function samplePeer(overrides: Partial<Peer> = {}): Peer {
  return {
    id: 11,
    name: 'movil',
    active: true,
    manager_disabled: false,
    expiration_date: '2025-04-05T10:00:00.000Z',
    created: '2025-03-05T10:00:00.000Z',
    address: '10.8.0.2',
    plans_history: [{ plan_name: 'Básico', plan_price: 5, created: '2025-03-05T10:00:00.000Z' }],
    server: {
      id: 1,
      name: 'Madrid 1',
      address: 'mad1.vpn.example.com:51820',
      active: true,
      ubication: 'Madrid, España',
      allow_partys: true,
      status: 'active',
    },
    mirror_link: 'https://vpn.example.com/api/mirror/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    party: null,
    manual_payment: true,
    processing: null,
    online: false,
    data: null,
    concurrent_use: null,
    speed: { down_mbit: null, up_mbit: null, reduced: null },
    ...overrides,
  };
}

export const laptop = (overrides: Partial<Peer> = {}) =>
  samplePeer({
    id: 12,
    name: 'portatil',
    address: '10.8.0.3',
    server: {
      id: 2,
      name: 'Miami 1',
      address: 'mia1.vpn.example.com:51820',
      active: false,
      ubication: 'Miami, EE. UU.',
      allow_partys: false,
      status: 'offline',
    },
    mirror_link: 'https://vpn.example.com/api/mirror/bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb',
    ...overrides,
  });

export const sampleServers: AvailableServer[] = [
  {
    id: 2,
    name: 'Miami 1',
    address: 'mia1.vpn.example.com:51820',
    active: true,
    ubication: 'Miami, EE. UU.',
    allow_partys: false,
    status: 'active',
  },
  {
    id: 3,
    name: 'Toronto 1',
    address: 'tor1.vpn.example.com:51820',
    active: false,
    ubication: 'Toronto, Canadá',
    allow_partys: true,
    status: 'offline',
  },
];

/** The same peer after the control plane applied an operation (busy state over). */
export function settled(peer: Peer, changes: Partial<Peer> = {}): Peer {
  return { ...peer, processing: null, ...changes };
}
