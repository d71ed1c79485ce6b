/**
 * Game discovery across a room (issue 25): a room member's UDP datagram to the limited broadcast
 * (255.255.255.255), to the pool's directed broadcast or to a multicast group (224.0.0.0/4) is
 * copied to each other member of its room as a unicast datagram to that mate's tunnel address,
 * keeping the sender's address and source port. WireGuard is layer 3 and picks the peer by the
 * inner destination, so a copy must carry the mate's address; Node has no raw sockets, so the
 * kernel does it: nftables in the `netdev` family, on the WireGuard interface's ingress (works for
 * wireguard-go's TUN and for the kernel module alike).
 *
 * Table `netdev vpn_relay_<iface>`, apart from the firewall's `inet` table so that a room's change
 * rewrites only that room:
 * - `ingress`: UDP to a discovery address from a local room member → `ip saddr vmap @senders`
 *   (member → `goto room_<id>`); anything else passes untouched (a non-member's broadcast reaches
 *   the host's input chain, which drops it, as before).
 * - `room_<id>`: `jump check` (a fragment, the packet's real size, denied ports, the sender's rate:
 *   dropped and counted), then the room's budget (the named limit `budget_<id>`, shared by all the
 *   room's senders here; issue 31), then per mate `ip saddr != M ip daddr set M dup to <iface>`
 *   (never back to the sender; nft fixes the IP and UDP checksums), then the original is counted as
 *   relayed and dropped. A mate on another server is reached through the mesh link that carries its
 *   address; its server forwards the copy like any room traffic (the pair is in its `room_pairs`).
 *
 * Sizes are the packet's own (`meta length`: on a layer-3 interface, the IP packet the kernel holds
 * and `dup` copies), never the UDP header's length field, which the sender writes (issue 31: a
 * forged `len=100` carried 8,900 bytes past a check of that field). Fragments are never relayed:
 * a non-first fragment has no UDP header to check, and a first one's size says nothing of the rest.
 *
 * The first apply writes the whole table in one transaction; later ones compare the rooms with the
 * last applied ones and write only what changed (a changed room's chain flushed and refilled, its
 * map elements deleted/added) in one `nft -f -` transaction. Counters `relayed` and `dropped` are
 * read by the stats pass.
 */
import { RELAY_DEFAULTS, type ServerSnapshot } from '@vpn/contracts/agent';
import { parseCidr } from '../cidr.ts';
import type { CommandRunner } from '../exec.ts';
import type { Logger } from '../log.ts';

/** The limits of the relay (defaults: the control plane's RELAY_DEFAULTS). */
export interface RelayLimits {
  /** Datagrams per second each sender may have relayed, after the burst. */
  rate: number;
  burst: number;
  /** Datagrams per second a room's senders on this server may have relayed together, after its burst. */
  roomRate: number;
  roomBurst: number;
  /** Largest UDP payload relayed, in bytes (checked on the packet's real length). */
  maxBytes: number;
  /** Destination ports never relayed (operating-system chatter: NetBIOS, SSDP, mDNS, LLMNR). */
  denyPorts: readonly number[];
}

/** A room as one server relays it: its members on this server and on other servers. */
export interface RelayRoom {
  id: number;
  local: readonly string[];
  remote: readonly string[];
}

export interface RelaySpec {
  iface: string;
  /** Directed broadcasts relayed besides 255.255.255.255 (the pool's, e.g. 10.127.255.255). */
  broadcasts: readonly string[];
  limits: RelayLimits;
  rooms: readonly RelayRoom[];
}

/** The relay's table name for an interface. */
export function relayTable(iface: string): string {
  return `vpn_relay_${iface.replace(/[^A-Za-z0-9_]/g, '_')}`;
}

/** Canonical dotted quad, or null (parsed octet by octet: 40,000 members at a cold start). */
function ipv4(text: string): string | null {
  if (!/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) return null;
  const octets = text.split('.').map(Number);
  return octets.every((o) => o <= 255) ? octets.join('.') : null;
}

function quoted(name: string): string {
  if (!/^[A-Za-z0-9_=+.-]{1,15}$/.test(name)) throw new Error(`nombre de interfaz no válido: ${name}`);
  return `"${name}"`;
}

function int(n: number, min: number, max: number, what: string): number {
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`${what} no válido: ${n}`);
  return n;
}

/** The directed broadcast of a prefix (`10.64.0.1/10` → `10.127.255.255`), or null (IPv6, /31, /32). */
export function directedBroadcast(cidr: string): string | null {
  const p = parseCidr(cidr);
  if (!p || p.family !== 4 || p.prefixLength > 30) return null;
  const n = p.address.split('.').reduce((acc, o) => acc * 256 + Number(o), 0);
  const host = 2 ** (32 - p.prefixLength) - 1;
  const b = (n - (n % (host + 1)) + host) >>> 0;
  return [b >>> 24, (b >>> 16) & 255, (b >>> 8) & 255, b & 255].join('.');
}

/**
 * Rooms validated and canonical: addresses re-formatted, duplicates and the room's repeated members
 * dropped, a local address that already belongs to an earlier room left out (a peer is in one room),
 * rooms with fewer than two members left out (nobody to relay to). Sorted by id.
 */
export function normalizeRelayRooms(rooms: readonly RelayRoom[]): { rooms: RelayRoom[]; invalid: number } {
  const out: RelayRoom[] = [];
  const taken = new Set<string>();
  let invalid = 0;
  for (const room of [...rooms].sort((a, b) => a.id - b.id)) {
    if (!Number.isInteger(room.id) || room.id < 0) {
      invalid++;
      continue;
    }
    const seen = new Set<string>();
    const local: string[] = [];
    const remote: string[] = [];
    for (const [list, into] of [
      [room.local, local],
      [room.remote, remote],
    ] as const) {
      for (const text of list) {
        const a = ipv4(text);
        if (a === null) {
          invalid++;
          continue;
        }
        if (seen.has(a) || (into === local && taken.has(a))) continue;
        seen.add(a);
        into.push(a);
      }
    }
    if (local.length === 0 || local.length + remote.length < 2) continue;
    for (const a of local) taken.add(a);
    out.push({ id: room.id, local, remote });
  }
  return { rooms: out, invalid };
}

/**
 * The relay a snapshot asks for, or null (absent or switched off). Addresses that do not parse are
 * left out with a warning, like room pairs.
 */
export function desiredRelay(s: ServerSnapshot, iface: string, log: Logger): RelaySpec | null {
  const r = s.relay;
  if (!r || !r.enabled) return null;
  const { rooms, invalid } = normalizeRelayRooms(r.rooms);
  if (invalid > 0)
    log.warn('salas del relé con datos no válidos: se ignoran', { revision: s.revision, count: invalid });
  const own = directedBroadcast(s.interface.address);
  return {
    iface,
    broadcasts: own ? [own] : [],
    limits: {
      rate: r.rate_per_second,
      burst: r.burst,
      // Absent from an older control plane: the budget every room gets by default.
      roomRate: r.room_rate_per_second ?? RELAY_DEFAULTS.room_rate_per_second,
      roomBurst: r.room_burst ?? RELAY_DEFAULTS.room_burst,
      maxBytes: r.max_bytes,
      denyPorts: r.deny_ports,
    },
    rooms,
  };
}

/** The room's budget: a named limit, so that refilling the room's chain keeps its state. */
function budgetName(id: number): string {
  return `budget_${id}`;
}

/** The rules of one room's chain, one per line (without the chain around them). */
export function roomRules(room: RelayRoom, iface: string): string[] {
  const wg = quoted(iface);
  const mates = [...room.local, ...room.remote];
  return [
    'jump check',
    `limit name "${budgetName(room.id)}" counter name dropped drop comment "room's budget"`,
    ...mates.map((m) => `ip saddr != ${m} ip daddr set ${m} dup to ${wg}`),
    'counter name relayed drop',
  ];
}

/** The shared part of the table: counters, the rate set, the check and ingress chains. */
function renderBase(spec: RelaySpec, table: string): string {
  const wg = quoted(spec.iface);
  const l = spec.limits;
  const rate = int(l.rate, 1, 100_000, 'límite por segundo');
  const burst = int(l.burst, 1, 100_000, 'ráfaga');
  const max = int(l.maxBytes, 1, 65_507, 'tamaño máximo');
  int(l.roomRate, 1, 100_000, 'límite por sala');
  int(l.roomBurst, 1, 100_000, 'ráfaga por sala');
  const ports = [...new Set(l.denyPorts.map((p) => int(p, 1, 65_535, 'puerto')))].sort((a, b) => a - b);
  const targets = ['255.255.255.255'];
  for (const b of spec.broadcasts) {
    const a = ipv4(b);
    if (a === null) throw new Error(`difusión no válida: ${b}`);
    if (!targets.includes(a)) targets.push(a);
  }
  targets.push('224.0.0.0/4');
  return `table netdev ${table} {
  counter relayed {
  }
  counter dropped {
  }
  # Each sender's rate (entries expire a minute after its last discovery datagram).
  set rate4 {
    type ipv4_addr
    size 65535
    flags dynamic,timeout
    timeout 1m
  }
  # Local room member → its room's chain.
  map senders {
    type ipv4_addr : verdict
  }
  chain check {
    ip frag-off & 0x3fff != 0 counter name dropped drop comment "fragment"
    meta length > ${max + 28} counter name dropped drop comment "larger than ${max} bytes of payload"${
      ports.length
        ? `\n    udp dport { ${ports.join(', ')} } counter name dropped drop comment "operating-system chatter"`
        : ''
    }
    update @rate4 { ip saddr limit rate over ${rate}/second burst ${burst} packets } counter name dropped drop comment "sender's limit"
    ip ttl set 64 comment "multicast leaves with TTL 1: a copy to another server is forwarded there"
  }
  chain ingress {
    type filter hook ingress device ${wg} priority 0; policy accept;
    ip daddr { ${targets.join(', ')} } meta l4proto udp ip saddr vmap @senders
  }
}
`;
}

function addRoom(table: string, room: RelayRoom, spec: RelaySpec, fresh: boolean): string {
  const chain = `room_${room.id}`;
  const { roomRate, roomBurst } = spec.limits;
  const iface = spec.iface;
  let out = fresh
    ? `add limit netdev ${table} ${budgetName(room.id)} { rate over ${roomRate}/second burst ${roomBurst} packets }\nadd chain netdev ${table} ${chain}\n`
    : `flush chain netdev ${table} ${chain}\n`;
  for (const rule of roomRules(room, iface)) out += `add rule netdev ${table} ${chain} ${rule}\n`;
  return out;
}

/** Elements per `add element`/`delete element` statement. */
const CHUNK = 1000;

function elements(op: 'add' | 'delete', table: string, items: string[]): string {
  let out = '';
  for (let i = 0; i < items.length; i += CHUNK)
    out += `${op} element netdev ${table} senders { ${items.slice(i, i + CHUNK).join(', ')} }\n`;
  return out;
}

/** The whole table, (re)created in one transaction. */
export function renderRelay(spec: RelaySpec): string {
  const table = relayTable(spec.iface);
  let out = `# vpn-agent: game discovery relay, generated\ntable netdev ${table}\ndelete table netdev ${table}\n`;
  out += renderBase(spec, table);
  const adds: string[] = [];
  for (const room of spec.rooms) {
    out += addRoom(table, room, spec, true);
    for (const a of room.local) adds.push(`${a} : goto room_${room.id}`);
  }
  return out + elements('add', table, adds);
}

/**
 * The script that turns the table of `before` into that of `after` (same interface, limits and
 * broadcasts), touching only the rooms that changed; '' when nothing did.
 */
export function renderRelayChange(before: RelaySpec, after: RelaySpec): string {
  const table = relayTable(after.iface);
  const old = new Map(before.rooms.map((r) => [r.id, r]));
  const now = new Map(after.rooms.map((r) => [r.id, r]));
  const oldOwner = new Map<string, number>();
  for (const r of before.rooms) for (const a of r.local) oldOwner.set(a, r.id);
  const newOwner = new Map<string, number>();
  for (const r of after.rooms) for (const a of r.local) newOwner.set(a, r.id);
  const dels: string[] = [];
  for (const [a, id] of oldOwner) if (newOwner.get(a) !== id) dels.push(a);
  const adds: string[] = [];
  for (const [a, id] of newOwner) if (oldOwner.get(a) !== id) adds.push(`${a} : goto room_${id}`);
  let chains = '';
  for (const room of after.rooms) {
    const was = old.get(room.id);
    if (!was) chains += addRoom(table, room, after, true);
    else if (!sameMembers(was, room)) chains += addRoom(table, room, after, false);
  }
  let gone = '';
  for (const id of old.keys())
    if (!now.has(id))
      gone += `delete chain netdev ${table} room_${id}\ndelete limit netdev ${table} ${budgetName(id)}\n`;
  // Map elements that point at a chain go before the chain is deleted; new chains before the
  // elements that point at them.
  return elements('delete', table, dels) + chains + gone + elements('add', table, adds);
}

/** Same members in the same order (then its chain's rules are the same). */
function sameMembers(a: RelayRoom, b: RelayRoom): boolean {
  const same = (x: readonly string[], y: readonly string[]) =>
    x.length === y.length && x.every((v, i) => v === y[i]);
  return same(a.local, b.local) && same(a.remote, b.remote);
}

/** The relay's counters: original datagrams relayed to the room, and dropped by its limits. */
export interface RelayCounters {
  relayed: number;
  dropped: number;
}

/** Parses `nft -j list counters table netdev <table>`. */
export function parseRelayCounters(json: string): RelayCounters {
  const out: RelayCounters = { relayed: 0, dropped: 0 };
  const doc = JSON.parse(json) as { nftables?: { counter?: { name?: string; packets?: number } }[] };
  for (const item of doc.nftables ?? []) {
    const c = item.counter;
    if (c && (c.name === 'relayed' || c.name === 'dropped') && typeof c.packets === 'number')
      out[c.name] = c.packets;
  }
  return out;
}

function sameBase(a: RelaySpec, b: RelaySpec): boolean {
  return (
    a.iface === b.iface &&
    a.broadcasts.join() === b.broadcasts.join() &&
    a.limits.rate === b.limits.rate &&
    a.limits.burst === b.limits.burst &&
    a.limits.roomRate === b.limits.roomRate &&
    a.limits.roomBurst === b.limits.roomBurst &&
    a.limits.maxBytes === b.limits.maxBytes &&
    a.limits.denyPorts.join() === b.limits.denyPorts.join()
  );
}

/**
 * Keeps the relay table in step with the desired rooms: the whole table on the first apply (or
 * after a failure, or when the limits change, or when the table is gone — a wireguard-go that died
 * took its interface and the ingress hook with it), only the changed rooms afterwards; nothing when
 * the relay is off (the table is deleted). Counters survive a re-creation (carried over).
 */
export class RelayTable {
  private applied: RelaySpec | null = null;
  private appliedIndex: number | null = null;
  private carried: RelayCounters = { relayed: 0, dropped: 0 };
  /** nft scripts written, for the operation-counting tests: [kind, script]. */
  readonly writes: ['full' | 'change' | 'delete', string][] = [];

  constructor(
    private readonly runner: CommandRunner,
    private readonly record = false,
  ) {}

  /** Whether the table is in place and relaying (what the agent reports). */
  get active(): boolean {
    return this.applied !== null;
  }

  private async run(kind: 'full' | 'change' | 'delete', script: string): Promise<void> {
    if (this.record) this.writes.push([kind, script]);
    await this.runner.run('nft', ['-f', '-'], { input: script });
  }

  /**
   * The interface's index: `dup to` and the ingress hook are bound to it when the table is written,
   * so an interface re-created since (a wireguard-go that died) needs the whole table again.
   */
  private async ifindex(iface: string): Promise<number | null> {
    try {
      const { stdout } = await this.runner.run('ip', ['-j', 'link', 'show', 'dev', iface]);
      const links = JSON.parse(stdout || '[]') as { ifindex?: number }[];
      return links[0]?.ifindex ?? null;
    } catch {
      return null;
    }
  }

  /** Makes the table match `spec` (null: relay off). */
  async apply(spec: RelaySpec | null, opts: { verify?: boolean } = {}): Promise<void> {
    const before = this.applied;
    if (spec === null) {
      if (before) {
        await this.carry(before.iface);
        this.applied = null;
        await this.run('delete', dropScript(before.iface));
      }
      return;
    }
    const rooms = normalizeRelayRooms(spec.rooms).rooms;
    const next: RelaySpec = { ...spec, rooms };
    try {
      const index = opts.verify || !before ? await this.ifindex(next.iface) : this.appliedIndex;
      if (before && sameBase(before, next) && index === this.appliedIndex) {
        const script = renderRelayChange(before, next);
        if (script) await this.run('change', script);
      } else {
        if (before) await this.carry(before.iface);
        if (before && before.iface !== next.iface) await this.run('delete', dropScript(before.iface));
        await this.run('full', renderRelay(next));
      }
      this.applied = next;
      this.appliedIndex = index;
    } catch (err) {
      this.applied = null; // next apply writes the whole table
      throw err;
    }
  }

  /** Counters since the agent started (carried over table re-creations); null when off. */
  async counters(): Promise<RelayCounters | null> {
    const spec = this.applied;
    if (!spec) return null;
    const now = await this.read(spec.iface);
    return { relayed: this.carried.relayed + now.relayed, dropped: this.carried.dropped + now.dropped };
  }

  private async read(iface: string): Promise<RelayCounters> {
    const { stdout } = await this.runner.run('nft', [
      '-j',
      'list',
      'counters',
      'table',
      'netdev',
      relayTable(iface),
    ]);
    return parseRelayCounters(stdout);
  }

  private async carry(iface: string): Promise<void> {
    const now = await this.read(iface).catch(() => ({ relayed: 0, dropped: 0 }));
    this.carried = {
      relayed: this.carried.relayed + now.relayed,
      dropped: this.carried.dropped + now.dropped,
    };
  }
}

function dropScript(iface: string): string {
  const table = relayTable(iface);
  return `table netdev ${table}\ndelete table netdev ${table}\n`;
}

/** Deletes the relay table (no error when it is already gone). */
export async function removeRelay(runner: CommandRunner, iface: string): Promise<void> {
  await runner.run('nft', ['-f', '-'], { input: dropScript(iface) });
}
