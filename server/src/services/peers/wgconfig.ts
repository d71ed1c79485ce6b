/**
 * Renders a peer's configuration for the official WireGuard apps and for MikroTik RouterOS ≥ 7.1.
 * Only keys the official apps accept are written (the Android app rejects unknown ones).
 */
import { CONTROL_CHARS } from '@vpn/contracts';
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

export function renderWgQuick(c: ClientConfigInput): string {
  return [
    '[Interface]',
    `PrivateKey = ${c.privateKey}`,
    `Address = ${c.address}/32`,
    `DNS = ${c.dns}`,
    `MTU = ${c.mtu}`,
    '',
    '[Peer]',
    `PublicKey = ${c.serverPublicKey}`,
    `PresharedKey = ${c.presharedKey}`,
    // ::/0 too, so IPv6 does not leak around the tunnel on dual-stack networks.
    'AllowedIPs = 0.0.0.0/0, ::/0',
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
 * through it, which is what a router owner usually wants.
 */
export function renderMikrotik(c: ClientConfigInput): string {
  const iface = `wg-${safeName(c.name, 20)}`;
  // The name is printed on a comment line: RouterOS would run whatever follows a line break in it as
  // a command. Names are refused with control characters (contracts), and older ones are flattened here.
  const comment = c.name.replace(new RegExp(CONTROL_CHARS.source, 'gu'), ' ');
  const dns = c.dns.split(',')[0]?.trim() ?? '1.1.1.1';
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
