/**
 * nftables rules of the agent: one table of its own per interface, `inet vpn_agent_<iface>`, replaced
 * atomically with `nft -f -` (the script deletes and recreates the table inside one transaction, so
 * there is never a moment without rules and re-applying is idempotent). Other tables on the host are
 * left alone, and chains keep policy accept: only traffic that touches the tunnel is judged here.
 *
 * Policy (architecture decision 5): a peer reaches the internet through the uplink (masqueraded) and
 * nothing else; peer-to-peer traffic is dropped unless the address pair is in `room_pairs`
 * (`room_pairs6` for IPv6), which rooms will fill later with `nft add element` (both directions).
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
  return `# vpn-agent: generated, replaced as a whole on every apply
table inet ${table}
delete table inet ${table}
table inet ${table} {
  # Address pairs (source . destination) allowed to talk across the tunnel: rooms.
  set room_pairs {
    type ipv4_addr . ipv4_addr
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
`;
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
