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
 * atomic replacement as the rest of the table. That covers mesh links too: traffic between a local
 * peer and a room mate on another server also enters and leaves through the tunnel interface.
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
}

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

  chain forward {
    type filter hook forward priority filter; policy accept;
    iifname ${wg} oifname ${wg} ip saddr . ip daddr @room_pairs accept comment "room"
    iifname ${wg} oifname ${wg} ip6 saddr . ip6 daddr @room_pairs6 accept comment "room"
    iifname ${wg} oifname ${wg} counter drop comment "peer isolation"
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
