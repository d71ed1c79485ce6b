/**
 * Renders a peer's configuration for the official WireGuard apps and for MikroTik RouterOS ≥ 7.1.
 * Only keys the official apps accept are written (the Android app rejects unknown ones).
 *
 * Two scopes: `full` (the product's tunnel: everything goes through the VPN) and `room` (the
 * room-only tunnel of issue 25: only the fleet's pool and game discovery go through it, the rest
 * stays on the customer's own connection). docs/decisions.md, "Room-only tunnel", says why.
 */
import { CONTROL_CHARS } from '@vpn/contracts';
import { POOL_CIDR } from '../../lib/addressPool.ts';
export interface ClientConfigInput {
  name: string;
  privateKey: string;
  presharedKey: string;
  address: string;
  dns: string;
  mtu: number;
  serverPublicKey: string;
  endpoint: string;
  endpointHost: string;
  endpointPort: number;
}

const KEEPALIVE = 25;

/** Which traffic a configuration sends through the tunnel. */
export type ConfigScope = 'full' | 'room';

/**
 * What a room-only tunnel carries. The whole pool rather than today's room mates: every peer keeps
 * its pool address for life, so the pool covers any mate that joins later on any server, and the
 * file never goes stale; the servers' room rules (nftables) already drop traffic to anyone who is
 * not a mate. The limited broadcast and the multicast block are where LAN games look for each
 * other (the agent relays them to the room).
 */
const ROOM_ONLY_ALLOWED_IPS = [POOL_CIDR, '255.255.255.255/32', '224.0.0.0/4'] as const;

export function renderWgQuick(c: ClientConfigInput, scope: ConfigScope = 'full'): string {
  return [
    '[Interface]',
    `PrivateKey = ${c.privateKey}`,
    `Address = ${c.address}/32`,
    // No DNS in the room-only file: the customer's own resolver stays in use (and a DNS server the
    // tunnel does not route would only be reached around it anyway); names are not needed to play.
    ...(scope === 'full' ? [`DNS = ${c.dns}`] : []),
    `MTU = ${c.mtu}`,
    '',
    '[Peer]',
    `PublicKey = ${c.serverPublicKey}`,
    `PresharedKey = ${c.presharedKey}`,
    // ::/0 too, so IPv6 does not leak around the full tunnel on dual-stack networks.
    `AllowedIPs = ${scope === 'full' ? '0.0.0.0/0, ::/0' : ROOM_ONLY_ALLOWED_IPS.join(', ')}`,
    `Endpoint = ${c.endpoint}`,
    `PersistentKeepalive = ${KEEPALIVE}`,
    '',
  ].join('\n');
}

/** A safe interface/file name from a peer name: letters, digits, '-' and '_' only. */
export function safeName(name: string, max = 40): string {
  const cleaned = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, max);
  return cleaned || 'peer';
}

/**
 * RouterOS 7 script: interface, peer, address, and a routing table `vpn` whose default route goes
 * through the tunnel. The router's own traffic is untouched; a routing rule (commented) sends a LAN
 * through it, which is what a router owner usually wants. The room-only script routes just the pool
 * in the main table (the router and its LAN reach the room mates; nothing else changes).
 */
export function renderMikrotik(c: ClientConfigInput, scope: ConfigScope = 'full'): string {
  const iface = `wg-${safeName(c.name, 20)}`;
  // The name is printed on a comment line: RouterOS would run whatever follows a line break in it as
  // a command. Names are refused with control characters (contracts), and older ones are flattened here.
  const comment = c.name.replace(new RegExp(CONTROL_CHARS.source, 'gu'), ' ');
  const dns = c.dns.split(',')[0]?.trim() ?? '1.1.1.1';
  if (scope === 'room') {
    return [
      `# ${comment}: WireGuard solo para la Sala, MikroTik RouterOS 7.1 o superior`,
      '# Pegue este script en Terminal (Winbox o SSH). Solo el tráfico hacia la Sala pasa por la VPN.',
      `/interface wireguard add name=${iface} private-key="${c.privateKey}" mtu=${c.mtu}`,
      `/interface wireguard peers add interface=${iface} public-key="${c.serverPublicKey}" preshared-key="${c.presharedKey}" endpoint-address=${c.endpointHost} endpoint-port=${c.endpointPort} allowed-address=${ROOM_ONLY_ALLOWED_IPS.join(',')} persistent-keepalive=${KEEPALIVE}s`,
      `/ip address add address=${c.address}/32 interface=${iface}`,
      `/ip route add dst-address=${POOL_CIDR} gateway=${iface}`,
      `/ip firewall nat add chain=srcnat out-interface=${iface} action=masquerade`,
      '',
    ].join('\n');
  }
  return [
    `# ${comment}: WireGuard para MikroTik RouterOS 7.1 o superior`,
    '# Pegue este script en Terminal (Winbox o SSH).',
    `/interface wireguard add name=${iface} private-key="${c.privateKey}" mtu=${c.mtu}`,
    `/interface wireguard peers add interface=${iface} public-key="${c.serverPublicKey}" preshared-key="${c.presharedKey}" endpoint-address=${c.endpointHost} endpoint-port=${c.endpointPort} allowed-address=0.0.0.0/0 persistent-keepalive=${KEEPALIVE}s`,
    `/ip address add address=${c.address}/32 interface=${iface}`,
    '/routing table add name=vpn fib',
    `/ip route add dst-address=0.0.0.0/0 gateway=${iface} routing-table=vpn`,
    `/ip firewall nat add chain=srcnat out-interface=${iface} action=masquerade`,
    `# Para que su red local salga por la VPN (ajuste la subred) y use el DNS ${dns}:`,
    '# /routing rule add src-address=192.168.88.0/24 action=lookup table=vpn',
    `# /ip dns set servers=${dns}`,
    '',
  ].join('\n');
}
