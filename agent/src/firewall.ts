/**
 * nftables rules of the agent: one table of its own per interface, `inet vpn_agent_<iface>`, replaced
 * atomically with `nft -f -` (the script deletes and recreates the table inside one transaction, so
 * there is never a moment without rules and re-applying is idempotent). Other tables on the host are
 * left alone, and chains keep policy accept: only traffic that touches the tunnel is judged here.
 *
 * Policy (architecture decision 5): a peer reaches the internet through the uplink (masqueraded) and
 * nothing else; peer-to-peer traffic is dropped unless the (source, destination) address pair is in
 * `room_pairs` (`room_pairs6` for IPv6, unused so far). The pairs come with every snapshot (the
 * control plane lists both directions) and are rendered into the script, so they change in the same
 * atomic replacement as the rest of the table; a room change in a delta only adds and deletes its
 * own pairs' elements (renderRoomPairChanges, issue 33). That covers mesh links too: traffic between a local
 * peer and a room mate on another server also enters and leaves through the tunnel interface.
 *
 * Beyond rooms, the tunnel never reaches the VPN server's own surroundings: destinations in the
 * private (RFC 1918), shared-address (100.64/10) and link-local (169.254/16, with cloud metadata at
 * 169.254.169.254) ranges, and their IPv6 counterparts (fc00::/7, fe80::/10), are dropped before the
 * accept to the uplink. The host itself is protected by an input chain: from the tunnel it answers
 * pings on its tunnel address (the clients' "is my tunnel up" check) and replies to its own
 * connections; nothing else (no SSH, no agent or panel ports, nothing on its other addresses; the
 * clients' DNS are public resolvers, so the server offers none) unless the operator opens TCP ports
 * with `hostTcpPorts` (one box: the panel, which full-tunnel clients reach through the tunnel).
 */
import { parseCidr } from './cidr.ts';
import type { CommandRunner } from './exec.ts';

export interface FirewallSpec {
  /** The WireGuard interface. */
  iface: string;
  /** The interface towards the internet. */
  uplink: string;
  /** The pool routed into the tunnel, e.g. `10.64.0.0/10` (the address's prefix). */
  pool: string;
  /** Masquerade the pool's sources out of the uplink. */
  nat: boolean;
  /** Rooms: IPv4 (source, destination) pairs allowed across the tunnel. */
  roomPairs?: readonly RoomPair[];
  /** The server's own tunnel address (e.g. `10.64.0.1`): tunnel clients may ping it. */
  address?: string;
  /** TCP ports of this host that tunnel clients may open (e.g. the panel on a one-box install). */
  hostTcpPorts?: readonly number[];
}

/** Destinations dropped from the tunnel (rooms excepted): private, shared and link-local ranges. */
export const BLOCKED_DESTINATIONS_V4 = [
  '10.0.0.0/8',
  '100.64.0.0/10',
  '169.254.0.0/16',
  '172.16.0.0/12',
  '192.168.0.0/16',
] as const;
export const BLOCKED_DESTINATIONS_V6 = ['fc00::/7', 'fe80::/10'] as const;

/** An IPv4 (source, destination) pair, as the control plane sends it. */
export type RoomPair = readonly [string, string];

/** Elements per `elements`/`add element` statement: keeps each one a reasonable size for nft. */
const PAIR_CHUNK = 1000;

/** Canonical dotted quad, or null: the only form an address reaches the nft script in. */
function ipv4(text: string): string | null {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return null;
  const p = parseCidr(`${text}/32`);
  return p && p.family === 4 ? p.address : null;
}

/**
 * Validates and deduplicates room pairs: canonical addresses, first occurrence kept, in order.
 * Pairs with an address that is not an IPv4 (or a pair of one address with itself) go to `invalid`.
 */
export function normalizeRoomPairs(pairs: readonly RoomPair[]): {
  pairs: RoomPair[];
  invalid: RoomPair[];
} {
  const out: RoomPair[] = [];
  const invalid: RoomPair[] = [];
  const seen = new Set<string>();
  for (const pair of pairs) {
    const a = ipv4(pair[0]);
    const b = ipv4(pair[1]);
    if (a === null || b === null || a === b) {
      invalid.push(pair);
      continue;
    }
    const key = `${a} . ${b}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([a, b]);
  }
  return { pairs: out, invalid };
}

/** `a . b` elements of normalised pairs, one per line. */
function renderElements(pairs: readonly RoomPair[], indent: string): string {
  return pairs.map(([a, b]) => `${indent}${a} . ${b}`).join(',\n');
}

/** The agent's table name for an interface (nft identifiers: letters, digits, underscore). */
export function firewallTable(iface: string): string {
  return `vpn_agent_${iface.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** nft quoted string: interface names may hold characters nft would otherwise parse. */
function q(name: string): string {
  if (!/^[A-Za-z0-9_=+.-]{1,15}$/.test(name)) throw new Error(`nombre de interfaz no válido: ${name}`);
  return `"${name}"`;
}

/** The complete `nft -f` script that (re)creates the agent's table. */
export function renderFirewall(spec: FirewallSpec): string {
  const pool = parseCidr(spec.pool);
  if (!pool) throw new Error(`pool no válido: ${spec.pool}`);
  const table = firewallTable(spec.iface);
  const wg = q(spec.iface);
  const up = q(spec.uplink);
  const saddr = pool.family === 4 ? 'ip saddr' : 'ip6 saddr';
  let ping = '';
  if (spec.address !== undefined) {
    const own = parseCidr(
      spec.address.includes('/') ? spec.address : `${spec.address}/${pool.family === 4 ? 32 : 128}`,
    );
    if (!own) throw new Error(`dirección del servidor no válida: ${spec.address}`);
    ping =
      own.family === 4
        ? `\n    iifname ${wg} ip daddr ${own.address} icmp type echo-request accept comment "ping the tunnel address"`
        : `\n    iifname ${wg} ip6 daddr ${own.address} icmpv6 type echo-request accept comment "ping the tunnel address"`;
  }
  const ports = [...new Set(spec.hostTcpPorts ?? [])].sort((a, b) => a - b);
  for (const port of ports)
    if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`puerto no válido: ${port}`);
  const open = ports.length
    ? `\n    iifname ${wg} tcp dport { ${ports.join(', ')} } accept comment "host ports opened by the operator"`
    : '';
  // Addresses reach the script only as re-formatted from parsed bytes; anything else is refused.
  const { pairs, invalid } = normalizeRoomPairs(spec.roomPairs ?? []);
  if (invalid.length > 0) throw new Error(`par de sala no válido: ${JSON.stringify(invalid[0])}`);
  const first = pairs.slice(0, PAIR_CHUNK);
  let more = '';
  for (let i = PAIR_CHUNK; i < pairs.length; i += PAIR_CHUNK)
    more += `add element inet ${table} room_pairs {\n${renderElements(pairs.slice(i, i + PAIR_CHUNK), '  ')}\n}\n`;
  return `# vpn-agent: generated, replaced as a whole on every apply
table inet ${table}
delete table inet ${table}
table inet ${table} {
  # Address pairs (source . destination) allowed to talk across the tunnel: rooms.
  set room_pairs {
    type ipv4_addr . ipv4_addr${first.length ? `\n    elements = {\n${renderElements(first, '      ')}\n    }` : ''}
  }
  set room_pairs6 {
    type ipv6_addr . ipv6_addr
  }
  # Never reached from the tunnel except by room pairs: the server's private, shared and
  # link-local networks (cloud metadata 169.254.169.254 included).
  set blocked4 {
    type ipv4_addr
    flags interval
    elements = { ${BLOCKED_DESTINATIONS_V4.join(', ')} }
  }
  set blocked6 {
    type ipv6_addr
    flags interval
    elements = { ${BLOCKED_DESTINATIONS_V6.join(', ')} }
  }

  # The host's own input from the tunnel: pings to its tunnel address and replies, nothing else.
  chain input {
    type filter hook input priority filter; policy accept;
    iifname ${wg} ct state established,related accept comment "replies to the host's connections"${ping}${open}
    iifname ${wg} counter drop comment "host protected from the tunnel"
  }

  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname ${wg} oifname ${wg} ip saddr . ip daddr @room_pairs accept comment "room"
    iifname ${wg} oifname ${wg} ip6 saddr . ip6 daddr @room_pairs6 accept comment "room"
    iifname ${wg} oifname ${wg} counter drop comment "peer isolation"
    iifname ${wg} ip daddr @blocked4 counter drop comment "server's private networks"
    iifname ${wg} ip6 daddr @blocked6 counter drop comment "server's private networks"
    iifname ${wg} oifname ${up} accept comment "tunnel to internet"
    iifname ${up} oifname ${wg} ct state established,related accept comment "replies"
    iifname ${wg} counter drop comment "tunnel to anything else"
    oifname ${wg} counter drop comment "unsolicited into the tunnel"
  }
${
  spec.nat
    ? `
  chain postrouting {
    type nat hook postrouting priority srcnat; policy accept;
    ${saddr} ${pool.network} oifname ${up} masquerade
  }
`
    : ''
}}
${more}`;
}

/**
 * A room change as the table's own change (issue 33): the pairs' elements deleted and added in one
 * `nft -f -` transaction, nothing else touched (a table rewrite renders every pair of every room).
 * The caller passes only pairs it knows to be in the set (`remove`) and not in it (`add`): nft
 * refuses to delete an element that is missing, and the caller then rewrites the table instead.
 * Empty string when there is nothing to change.
 */
export function renderRoomPairChanges(
  iface: string,
  add: readonly RoomPair[],
  remove: readonly RoomPair[],
): string {
  const table = firewallTable(iface);
  let out = '';
  for (const [verb, pairs] of [
    ['delete', remove],
    ['add', add],
  ] as const)
    for (let i = 0; i < pairs.length; i += PAIR_CHUNK)
      out += `${verb} element inet ${table} room_pairs {\n${renderElements(pairs.slice(i, i + PAIR_CHUNK), '  ')}\n}\n`;
  return out;
}

/** Applies the table atomically (script on stdin). */
export async function applyFirewall(runner: CommandRunner, spec: FirewallSpec): Promise<void> {
  await runner.run('nft', ['-f', '-'], { input: renderFirewall(spec) });
}

/** Deletes the agent's table (no error when it is already gone). */
export async function removeFirewall(runner: CommandRunner, iface: string): Promise<void> {
  const table = firewallTable(iface);
  await runner.run('nft', ['-f', '-'], { input: `table inet ${table}\ndelete table inet ${table}\n` });
}

/** The interface of the default route (IPv4, else IPv6): the uplink when none is configured. */
export async function defaultUplink(runner: CommandRunner): Promise<string> {
  for (const family of ['-4', '-6']) {
    const { stdout } = await runner.run('ip', ['-j', family, 'route', 'show', 'default']);
    const routes = JSON.parse(stdout || '[]') as { dev?: string }[];
    const dev = routes.find((r) => r.dev)?.dev;
    if (dev) return dev;
  }
  throw new Error('no hay ruta por defecto: indique la interfaz de salida con --uplink');
}
