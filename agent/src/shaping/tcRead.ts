/**
 * Reading traffic control back (issue 35): the text of `tc class show` (iproute2 6.1 prints HTB
 * classes as text even with -j) and the JSON of `tc -j qdisc show` and `tc -j filter show`, parsed
 * into model.ts's LiveDirection. Pure: shaper.ts runs the commands.
 */
import {
  fifoBytes,
  htbBurst,
  LEVEL1,
  LEVEL2_BASE,
  MIN_MINOR,
  handleOf,
  type Direction,
  type LiveDirection,
  type LiveEntry,
  offsetOf,
} from './model.ts';

/** One qdisc of `tc -j qdisc show`. */
export interface TcQdisc {
  kind: string;
  handle: string;
  root?: boolean;
  parent?: string;
  options?: { default?: string; limit?: number };
}

/** One entry of `tc -j filter show … parent 1:` (u32). */
export interface TcFilter {
  kind?: string;
  pref?: number;
  options?: {
    fh?: string;
    ht_divisor?: number;
    link?: string;
    bkt?: string;
    flowid?: string;
    hash_mask?: string;
    hash_off?: number;
    match?: { value?: string; mask?: string; off?: number };
    actions?: { kind?: string; mirred_action?: string; to_dev?: string }[];
  };
}

const UNITS: Record<string, number> = {
  '': 1,
  K: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
};

/** '2Mbit' → 2000, '256Kbit' → 256, '1500bit' → 1.5 (kbit/s); null when not a rate. */
export function parseRate(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMGT]?)bit$/i.exec(text);
  if (!m) return null;
  return (Number(m[1]) * UNITS[m[2]!.toUpperCase()]!) / 1000;
}

/** '3200b', '48Kb', '1Mb' (tc's sizes: K and M are 1024) → bytes; null when not a size. */
function parseSize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)([KMG]?)b$/.exec(text);
  if (!m) return null;
  return Number(m[1]) * { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3 }[m[2] as '' | 'K' | 'M' | 'G'];
}

/**
 * Whether a size read back is the one this agent writes: the kernel keeps a burst as time and
 * prints it back a few bytes off (3,200 → 3,199 at 333 kbit/s, 48,606 → 48,604 at 7,777).
 */
const sameSize = (read: number | null, want: number) =>
  read !== null && Math.abs(read - want) <= Math.max(16, want / 100);

/**
 * Root-level HTB classes of `tc class show dev X` (text): minor → kbit/s, or null when the class is
 * not as this agent writes it for its rate — rate ≠ ceil, or a burst of another size (an older
 * agent's 10 ms, someone's hand): the plan then changes it in place, like a changed rate.
 */
export function parseClasses(text: string): Map<number, number | null> {
  const out = new Map<number, number | null>();
  for (const line of text.split('\n')) {
    const m = /^class htb 1:([0-9a-f]+) root .*?\brate (\S+) ceil (\S+)(?: burst (\S+) cburst (\S+))?/.exec(
      line,
    );
    if (!m) continue;
    const rate = parseRate(m[2]!);
    const ceil = parseRate(m[3]!);
    const kbit = rate !== null && rate === ceil ? Math.round(rate) : null;
    const sized =
      kbit !== null &&
      (m[4] === undefined ||
        (sameSize(parseSize(m[4]), htbBurst(kbit)) && sameSize(parseSize(m[5]!), htbBurst(kbit))));
    out.set(parseInt(m[1]!, 16), sized ? kbit : null);
  }
  return out;
}

/** An address from a u32 match value ('a400509' → 10.64.5.9). */
function addressOfHex(value: string): string | null {
  if (!/^[0-9a-f]{1,8}$/i.test(value)) return null;
  const v = parseInt(value, 16);
  return [v >>> 24, (v >>> 16) & 255, (v >>> 8) & 255, v & 255].join('.');
}

const hexOf = (text: string | undefined) => (text === undefined ? NaN : parseInt(text, 16));

/**
 * One direction's device: its qdiscs (JSON), classes (text) and the filters under `1:` (JSON).
 * The skeleton counts only when the root is our HTB (`default 0`), table 10: and all 256
 * second-level tables exist, each linked from its bucket, and 800:: links to 10: on the right offset.
 */
export function parseDirection(
  dir: Direction,
  qdiscs: readonly TcQdisc[],
  classText: string,
  filters: readonly TcFilter[],
): LiveDirection {
  const off = offsetOf(dir);
  const root = qdiscs.find((q) => q.root);
  const ours = root?.kind === 'htb' && root.handle === '1:' && /^(0x)?0$/.test(root.options?.default ?? '');
  /** Each class's leaf: a FIFO's byte limit, or null for a leaf without one (fq_codel). */
  const leaves = new Map<number, number | null>();
  for (const q of qdiscs) {
    const m = /^1:([0-9a-f]+)$/.exec(q.parent ?? '');
    if (m) leaves.set(parseInt(m[1]!, 16), q.kind === 'bfifo' ? (q.options?.limit ?? 0) : null);
  }
  const classes = ours ? parseClasses(classText) : new Map<number, number | null>();
  let level1 = false;
  const tables = new Set<number>();
  const links = new Set<number>();
  let rootLink = false;
  const entries = new Map<string, LiveEntry>();
  const strayFilters: string[] = [];
  const claimed = new Set<number>();
  for (const f of ours ? filters : []) {
    const o = f.options;
    // tc prints bucket 0 as an empty field ('10::800'); handles are compared in the '10:0:800' form.
    const fh = o?.fh?.replace(/^([0-9a-f]+)::/, '$1:0:');
    if (f.kind !== 'u32' || f.pref !== 10 || !o || !fh) continue;
    const parts = fh.split(':');
    if (o.ht_divisor === 256 && parts.length === 2 && parts[1] === '') {
      const table = hexOf(parts[0]);
      if (table === LEVEL1) level1 = true;
      else if (table >= LEVEL2_BASE && table < LEVEL2_BASE + 256) tables.add(table);
      continue;
    }
    if (parts.length !== 3) continue;
    const table = hexOf(parts[0]);
    if (o.link !== undefined) {
      const target = hexOf(o.link.replace(/:$/, ''));
      if (table === 0x800 && target === LEVEL1 && o.hash_mask === 'ff00' && o.hash_off === off)
        rootLink = true;
      const bucket = hexOf(parts[1]);
      if (table === LEVEL1 && target === LEVEL2_BASE + bucket && o.hash_mask === 'ff' && o.hash_off === off)
        links.add(bucket);
      continue;
    }
    if (table < LEVEL2_BASE || table >= LEVEL2_BASE + 256) continue;
    const minor = /^1:([0-9a-f]+)$/.exec(o.flowid ?? '');
    const address =
      o.match?.mask === 'ffffffff' && o.match.off === off ? addressOfHex(o.match.value ?? '') : null;
    const m = minor ? parseInt(minor[1]!, 16) : NaN;
    if (
      address === null ||
      handleOf(address) !== fh ||
      !classes.has(m) ||
      claimed.has(m) ||
      entries.has(address)
    ) {
      strayFilters.push(fh);
      continue;
    }
    claimed.add(m);
    const kbit = classes.get(m) ?? null;
    const limit = leaves.get(m);
    // A FIFO sized for another rate or by an older agent (100 ms): changed in place with the class.
    const fifoSized = typeof limit !== 'number' || kbit === null || sameSize(limit, fifoBytes(kbit));
    entries.set(address, {
      minor: m,
      kbit: fifoSized ? kbit : null,
      handle: fh,
      leaf: leaves.has(m),
    });
  }
  const strayClasses = [...classes.keys()].filter((m) => m >= MIN_MINOR && !claimed.has(m));
  return {
    skeleton: ours && level1 && tables.size === 256 && links.size === 256 && rootLink,
    any: root !== undefined && root.handle !== '0:',
    entries,
    strayClasses,
    strayFilters,
    usedMinors: new Set(classes.keys()),
  };
}

/** Whether the WireGuard interface's ingress is redirected to `ifb` (qdiscs and `parent ffff:` filters). */
export function ingressRedirects(
  qdiscs: readonly TcQdisc[],
  filters: readonly TcFilter[],
  ifb: string,
): boolean {
  if (!qdiscs.some((q) => q.kind === 'ingress')) return false;
  return filters.some((f) =>
    f.options?.actions?.some(
      (a) => a.kind === 'mirred' && a.mirred_action === 'redirect' && a.to_dev === ifb,
    ),
  );
}
