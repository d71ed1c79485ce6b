/**
 * Per-peer speed on the node (issue 35), as plain data: what the control plane wants (each shaped
 * peer's address with its kbit/s each way), what traffic control has (read back by tcRead.ts), the
 * diff between them and the `tc -batch` lines that apply it. No I/O here: shaper.ts runs it.
 *
 * Layout, the same in both directions (docs/decisions.md, "Per-peer speed"):
 * - `down` (to the peer) on the WireGuard interface's egress, matched on the destination address;
 *   `up` (from the peer) on an ifb device its ingress is redirected to, matched on the source.
 * - Root HTB `1:` with `default 0`: unclassified packets (unlimited peers, the host's own) go
 *   through HTB's direct queue, unshaped and never behind a shaped peer.
 * - One HTB class per shaped peer and direction, `1:<minor>` (rate = ceil, no borrowing), with a
 *   fair-queue leaf (`fq_codel`, or a `bfifo` of 300 ms where the kernel has no fq_codel).
 * - u32 filters in two levels of 256-bucket hash tables: table 10: hashed on the address's third
 *   byte links to one of 256 tables (0x100 + third byte) hashed on its fourth byte, whose buckets
 *   hold the peers' exact /32 matches. A packet costs two hash lookups and, in a /10 pool allocated
 *   in order, about one match, whatever the number of peers. Each peer's filter has a handle derived
 *   from its address (table:bucket:node), so it is deleted without reading anything back.
 */

/** kbit/s each way (1 kbit = 1000 bit); absent = unlimited that way. */
export interface PeerRate {
  down?: number;
  up?: number;
}

export type Direction = 'down' | 'up';
export const DIRECTIONS: readonly Direction[] = ['down', 'up'];

/** Desired shaping: each shaped IPv4 address (dotted quad) with its rates. */
export type DesiredShaping = Map<string, PeerRate>;

/** What a peer's desired state says, as the reconciler keeps it (see diff.ts PeerState). */
export interface ShapedPeer {
  allowedIps: readonly string[];
  downKbit?: number;
  upKbit?: number;
}

/** One shaped peer in one direction, live. */
export interface LiveEntry {
  minor: number;
  /** Rate (= ceil) in kbit/s, or null when rate and ceil differ (not ours: changed). */
  kbit: number | null;
  /** The filter's handle, `table:bucket:node` in hex. */
  handle: string;
  /** The class has its leaf queue. */
  leaf: boolean;
}

/** One direction's device as read back. */
export interface LiveDirection {
  /** Root HTB and the hash tables and links are all there. */
  skeleton: boolean;
  /** Anything on the device at all (a root qdisc of any kind). */
  any: boolean;
  /** Shaped addresses with their class. */
  entries: Map<string, LiveEntry>;
  /** Classes with no filter pointing at them (minors). */
  strayClasses: number[];
  /** Peer filters whose address or class makes no sense (handles): deleted. */
  strayFilters: string[];
  /** Minors in use by any class. */
  usedMinors: Set<number>;
}

export const ROOT_PRIO = 10;
/** The first hash level's table. */
export const LEVEL1 = 0x10;
/** Second-level tables are 0x100 + the address's third byte. */
export const LEVEL2_BASE = 0x100;
/** Class minors of peers: 2…0xfffe (1 is never used, so `1:` and `1:1` stay free). */
export const MIN_MINOR = 2;
export const MAX_MINOR = 0xfffe;

/** The byte offset of the address a direction matches: destination (16) down, source (12) up. */
export const offsetOf = (dir: Direction) => (dir === 'down' ? 16 : 12);

/** Octets of a dotted IPv4 quad, or null. */
export function octets(address: string): [number, number, number, number] | null {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  if (!m) return null;
  const o = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as [number, number, number, number];
  return o.every((v) => v <= 255) ? o : null;
}

const hex = (n: number) => n.toString(16);

/**
 * The filter handle of an address: table 0x100 + third byte, bucket = fourth byte, node derived
 * from the first two bytes (1…0xffe). Two addresses that share the last two bytes and collide on
 * the first two modulo 0xffe would share a handle: impossible within one /10 pool.
 */
export function handleOf(address: string): string | null {
  const o = octets(address);
  if (!o) return null;
  const node = (((o[0] << 8) | o[1]) % 0xffe) + 1;
  return `${hex(LEVEL2_BASE + o[2])}:${hex(o[3])}:${hex(node)}`;
}

/** The shaped address of a peer: its first IPv4 /32 (customers have exactly one), or null. */
export function shapedAddress(allowedIps: readonly string[]): string | null {
  for (const ip of allowedIps) {
    const m = /^([\d.]+)\/32$/.exec(ip);
    if (m && octets(m[1]!)) return m[1]!;
  }
  return null;
}

/** The rate a peer's desired state asks for, or null when unlimited both ways. */
export function rateOf(p: ShapedPeer): PeerRate | null {
  if (p.downKbit === undefined && p.upKbit === undefined) return null;
  return {
    ...(p.downKbit !== undefined ? { down: p.downKbit } : {}),
    ...(p.upKbit !== undefined ? { up: p.upKbit } : {}),
  };
}

/** The desired shaping of a whole peer set (snapshot, repair). */
export function desiredShaping(peers: Iterable<ShapedPeer>): DesiredShaping {
  const out: DesiredShaping = new Map();
  for (const p of peers) {
    const rate = rateOf(p);
    if (!rate) continue;
    const address = shapedAddress(p.allowedIps);
    if (address) out.set(address, rate);
  }
  return out;
}

/**
 * What a delta changes: removed peers' addresses lose their shaping, upserted peers get theirs
 * (null = unlimited). Later entries win: a re-key's removal and addition of one address net out.
 */
export function deltaShaping(
  removed: Iterable<ShapedPeer>,
  upserted: Iterable<ShapedPeer>,
): Map<string, PeerRate | null> {
  const out = new Map<string, PeerRate | null>();
  for (const p of removed) {
    const address = shapedAddress(p.allowedIps);
    if (address) out.set(address, null);
  }
  for (const p of upserted) {
    const address = shapedAddress(p.allowedIps);
    if (address) out.set(address, rateOf(p));
  }
  return out;
}

/** Which leaf queue the kernel offers (probed once). */
export type LeafKind = 'fq_codel' | 'bfifo';

/** The largest packet HTB and the FIFO are sized for: an Ethernet frame's worth. */
const MAX_PACKET = 1514;

/**
 * The HTB parameters of a rate: burst (and cburst) of 50 ms at that rate, at least two full
 * packets. The class is served from the qdisc watchdog's timer and the NET_TX softirq; on a loaded
 * node (ksoftirqd competing with everything else) a service later than the burst's worth loses
 * that time for good. At 10 ms (3,200 bytes at 2 Mbit/s) a backlogged class measured 1.65–1.90
 * Mbit/s at load 33 on 2 cores; at 50 ms, 1.95 (docs/performance.md). 50 ms of extra bytes after an
 * idle moment is all the class can ever give above its rate.
 */
export function htbBurst(kbit: number): number {
  return Math.max(3200, Math.ceil((kbit * 1000) / 8 / 20));
}
export function htbArgs(kbit: number): string {
  const burst = htbBurst(kbit);
  return `htb rate ${kbit}kbit ceil ${kbit}kbit burst ${burst} cburst ${burst} quantum ${MAX_PACKET}`;
}

/**
 * The bytes of a peer's FIFO leaf where the kernel has no fq_codel: 300 ms at the class's rate,
 * and never under 16 full packets. Packets reach the shaper in bursts, not evenly: whatever sends
 * them (wireguard-go or the customer's iperf3 on a busy CPU, a NAPI poll of the kernel module)
 * stalls, its socket or ring fills, then drains at once. A 100 ms FIFO (25,000 bytes at 2 Mbit/s,
 * 20 packets) tail-dropped those bursts and then ran dry until the next: 1.65–1.80 Mbit/s measured
 * for a 2 Mbit/s class at load 33, ~1,000 drops in 8 s (`tc -s`); at 300 ms 1.93–1.98 each way.
 * Not longer: the peer's own ACKs queue behind its data in the other direction (a 128-packet
 * pfifo, 770 ms at 2 Mbit/s, let a simultaneous upload crawl at 0.57 Mbit/s).
 */
export function fifoBytes(kbit: number): number {
  return Math.max(16 * MAX_PACKET, Math.ceil(((kbit * 1000) / 8) * 0.3));
}

/** The leaf queue of a class: fq_codel, or the FIFO above where the kernel lacks it. */
const leafArgs = (leaf: LeafKind, kbit: number) =>
  leaf === 'fq_codel' ? 'fq_codel flows 32' : `bfifo limit ${fifoBytes(kbit)}`;

/** The root HTB and both hash levels of one device (see the layout above). */
export function skeletonLines(dev: string, dir: Direction): string[] {
  const off = offsetOf(dir);
  const f = `filter add dev ${dev} parent 1: protocol ip prio ${ROOT_PRIO}`;
  const lines = [
    `qdisc replace dev ${dev} root handle 1: htb default 0 direct_qlen 1000`,
    `${f} handle ${hex(LEVEL1)}: u32 divisor 256`,
  ];
  for (let b = 0; b < 256; b++) lines.push(`${f} handle ${hex(LEVEL2_BASE + b)}: u32 divisor 256`);
  for (let b = 0; b < 256; b++)
    lines.push(
      `${f} u32 ht ${hex(LEVEL1)}:${hex(b)}: match u32 0 0 link ${hex(LEVEL2_BASE + b)}: hashkey mask 0x000000ff at ${off}`,
    );
  // Last: classification starts only once every table it leads to is there.
  lines.push(`${f} u32 ht 800:: match u32 0 0 link ${hex(LEVEL1)}: hashkey mask 0x0000ff00 at ${off}`);
  return lines;
}

/** The class, leaf and filter of one shaped peer in one direction. */
export function addLines(
  dev: string,
  dir: Direction,
  address: string,
  minor: number,
  kbit: number,
  leaf: LeafKind,
): string[] {
  const handle = handleOf(address)!;
  const bucket = handle.slice(0, handle.lastIndexOf(':') + 1);
  return [
    `class add dev ${dev} parent 1: classid 1:${hex(minor)} ${htbArgs(kbit)}`,
    `qdisc add dev ${dev} parent 1:${hex(minor)} handle ${hex(minor)}: ${leafArgs(leaf, kbit)}`,
    `filter add dev ${dev} parent 1: protocol ip prio ${ROOT_PRIO} handle ${handle} u32 ht ${bucket} match ip ${dir === 'down' ? 'dst' : 'src'} ${address}/32 classid 1:${hex(minor)}`,
  ];
}

/** A class's new rate, in place (and its FIFO's size with it). */
export const changeLines = (dev: string, minor: number, kbit: number, leaf: LeafKind) => [
  `class change dev ${dev} parent 1: classid 1:${hex(minor)} ${htbArgs(kbit)}`,
  ...(leaf === 'bfifo'
    ? [`qdisc change dev ${dev} parent 1:${hex(minor)} handle ${hex(minor)}: ${leafArgs(leaf, kbit)}`]
    : []),
];
export const leafLine = (dev: string, minor: number, leaf: LeafKind, kbit: number) =>
  `qdisc add dev ${dev} parent 1:${hex(minor)} handle ${hex(minor)}: ${leafArgs(leaf, kbit)}`;
export const delFilterLine = (dev: string, handle: string) =>
  `filter del dev ${dev} parent 1: protocol ip prio ${ROOT_PRIO} handle ${handle} u32`;
export const delClassLine = (dev: string, minor: number) =>
  `class del dev ${dev} parent 1: classid 1:${hex(minor)}`;

/** Hands out free class minors of one direction. */
export class MinorPool {
  private next = MIN_MINOR;
  constructor(private readonly used: Set<number>) {}

  take(): number {
    for (let tries = 0; tries <= MAX_MINOR - MIN_MINOR; tries++) {
      const m = this.next;
      this.next = m >= MAX_MINOR ? MIN_MINOR : m + 1;
      if (!this.used.has(m)) {
        this.used.add(m);
        return m;
      }
    }
    throw new Error('no quedan clases libres para limitar la velocidad (máximo 65533 peers por sentido)');
  }

  release(m: number): void {
    this.used.delete(m);
  }
}

/** One direction's result of a diff: the batch lines, and the entries live once they ran. */
export interface DirectionPlan {
  lines: string[];
  entries: Map<string, LiveEntry>;
  /** Addresses left unshaped because their filter handle collides with another's (logged). */
  collisions: string[];
}

/**
 * The lines that make one direction's device match `want` (address → kbit), from what was read
 * back. A broken or foreign skeleton is rebuilt with every peer (the only rebuild: cold start, a
 * device recreated, someone else's qdisc); otherwise only the differences: strays deleted, changed
 * rates changed in place, missing peers added, missing leaves added.
 */
export function planDirection(
  dev: string,
  dir: Direction,
  want: ReadonlyMap<string, number>,
  live: LiveDirection,
  leaf: LeafKind,
): DirectionPlan {
  const lines: string[] = [];
  const entries = new Map<string, LiveEntry>();
  const collisions: string[] = [];
  const rebuild = !live.skeleton;
  if (rebuild) {
    if (live.any) lines.push(`qdisc del dev ${dev} root`);
    lines.push(...skeletonLines(dev, dir));
  }
  const used = rebuild ? new Set<number>() : new Set(live.usedMinors);
  const pool = new MinorPool(used);
  const handles = new Set<string>();
  if (!rebuild) {
    for (const handle of live.strayFilters) lines.push(delFilterLine(dev, handle));
    for (const [address, entry] of live.entries) {
      if (!want.has(address)) {
        lines.push(delFilterLine(dev, entry.handle), delClassLine(dev, entry.minor));
        pool.release(entry.minor);
      }
    }
    for (const minor of live.strayClasses) {
      lines.push(delClassLine(dev, minor));
      pool.release(minor);
    }
  }
  for (const [address, kbit] of want) {
    const current = rebuild ? undefined : live.entries.get(address);
    if (current) {
      handles.add(current.handle);
      if (!current.leaf) lines.push(leafLine(dev, current.minor, leaf, kbit));
      if (current.kbit !== kbit) lines.push(...changeLines(dev, current.minor, kbit, leaf));
      entries.set(address, { ...current, kbit, leaf: true });
    }
  }
  for (const [address, kbit] of want) {
    if (entries.has(address)) continue;
    const handle = handleOf(address);
    if (!handle || handles.has(handle)) {
      collisions.push(address);
      continue;
    }
    handles.add(handle);
    const minor = pool.take();
    lines.push(...addLines(dev, dir, address, minor, kbit, leaf));
    entries.set(address, { minor, kbit, handle, leaf: true });
  }
  return { lines, entries, collisions };
}

/** The kbit/s each shaped address wants in one direction. */
export function wantOf(desired: DesiredShaping, dir: Direction): Map<string, number> {
  const out = new Map<string, number>();
  for (const [address, rate] of desired) {
    const kbit = rate[dir];
    if (kbit !== undefined) out.set(address, kbit);
  }
  return out;
}

/** One direction as the shaper last left it: entries, the minors they hold, their filter handles. */
export class DirectionState {
  readonly handles = new Set<string>();
  readonly pool: MinorPool;

  constructor(readonly entries: Map<string, LiveEntry>) {
    const used = new Set<number>();
    for (const e of entries.values()) {
      used.add(e.minor);
      this.handles.add(e.handle);
    }
    this.pool = new MinorPool(used);
  }

  /**
   * The lines of a delta's changes in this direction, touching only the changed addresses' class
   * and filter (no read back: the state is what the last apply left). Updates the state as if they
   * ran; the caller drops it when they fail.
   */
  plan(
    dev: string,
    dir: Direction,
    changes: ReadonlyMap<string, PeerRate | null>,
    leaf: LeafKind,
  ): { lines: string[]; collisions: string[] } {
    const lines: string[] = [];
    const collisions: string[] = [];
    for (const [address, rate] of changes) {
      const kbit = rate?.[dir];
      const current = this.entries.get(address);
      if (kbit === undefined) {
        if (!current) continue;
        lines.push(delFilterLine(dev, current.handle), delClassLine(dev, current.minor));
        this.entries.delete(address);
        this.handles.delete(current.handle);
        this.pool.release(current.minor);
      } else if (current) {
        if (current.kbit !== kbit) lines.push(...changeLines(dev, current.minor, kbit, leaf));
        current.kbit = kbit;
      } else {
        const handle = handleOf(address);
        if (!handle || this.handles.has(handle)) {
          collisions.push(address);
          continue;
        }
        const minor = this.pool.take();
        lines.push(...addLines(dev, dir, address, minor, kbit, leaf));
        this.entries.set(address, { minor, kbit, handle, leaf: true });
        this.handles.add(handle);
      }
    }
    return { lines, collisions };
  }
}
