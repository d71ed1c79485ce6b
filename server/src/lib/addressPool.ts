/**
 * The fleet-wide address pool (architecture decision 4): every peer gets one address for life,
 * whatever server it sits on. Index 0 is the network, 1 the servers' own tunnel address
 * (the same on every server: clients only ever talk to their own), the last one is broadcast.
 */
export const POOL_BASE = (10 << 24) | (64 << 16); // 10.64.0.0
export const POOL_PREFIX = 10;
export const POOL_SIZE = 2 ** (32 - POOL_PREFIX);
export const FIRST_PEER_INDEX = 2;
export const SERVER_TUNNEL_ADDRESS = `${ipv4FromIndex(1)}/${POOL_PREFIX}`;
export const POOL_CIDR = `${ipv4FromIndex(0)}/${POOL_PREFIX}`;

export function ipv4FromIndex(index: number): string {
  const n = (POOL_BASE + index) >>> 0;
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}
