/**
 * CIDR normalisation. WireGuard stores allowed IPs masked and prints IPv6 in canonical form, so a
 * desired `fd00:0::2/128` must compare equal to the live `fd00::2/128`; otherwise every reconcile
 * would "update" the same peers forever.
 */

/** Dotted quad to 4 bytes (no leading zeros beyond one digit group of up to 3), or null. */
function parseIpv4(text: string): number[] | null {
  const bytes: number[] = [];
  let value = -1;
  let digits = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 46; // a virtual trailing '.'
    if (c === 46) {
      if (digits === 0 || value > 255) return null;
      bytes.push(value);
      value = -1;
      digits = 0;
    } else if (c >= 48 && c <= 57) {
      if (++digits > 3) return null;
      value = (value < 0 ? 0 : value * 10) + (c - 48);
    } else return null;
  }
  return bytes.length === 4 ? bytes : null;
}

function parseIpv6(text: string): number[] | null {
  let head = text;
  const tailBytes: number[] = [];
  // An embedded IPv4 tail (::ffff:1.2.3.4) counts as the last two groups.
  const lastColon = head.lastIndexOf(':');
  if (head.includes('.') && lastColon >= 0) {
    const v4 = parseIpv4(head.slice(lastColon + 1));
    if (!v4) return null;
    tailBytes.push(...v4);
    head = head.slice(0, lastColon + 1) + '0:0';
  }
  const halves = head.split('::');
  if (halves.length > 2) return null;
  const toGroups = (s: string): number[] | null => {
    if (s === '') return [];
    const out: number[] = [];
    for (const g of s.split(':')) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) return null;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const left = toGroups(halves[0] ?? '');
  const right = halves.length === 2 ? toGroups(halves[1] ?? '') : [];
  if (!left || !right) return null;
  let groups: number[];
  if (halves.length === 2) {
    const missing = 8 - left.length - right.length;
    if (missing < 1) return null;
    groups = [...left, ...new Array<number>(missing).fill(0), ...right];
  } else {
    groups = left;
  }
  if (groups.length !== 8) return null;
  const bytes: number[] = [];
  for (const g of groups) bytes.push(g >> 8, g & 0xff);
  if (tailBytes.length === 4) bytes.splice(12, 4, ...tailBytes);
  return bytes;
}

function formatIpv6(bytes: number[]): string {
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  // RFC 5952: compress the longest run (>= 2) of zero groups, the first one on a tie.
  let bestStart = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLen) {
      bestStart = i;
      bestLen = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLen < 2) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLen).join(':')}`;
}

function mask(bytes: number[], bits: number): number[] {
  return bytes.map((b, i) => {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    return b & ((0xff << (8 - keep)) & 0xff);
  });
}

export interface ParsedCidr {
  family: 4 | 6;
  /** The address as written (host bits kept), canonical text. */
  address: string;
  prefixLength: number;
  /** The network (host bits cleared) with its prefix, canonical text, e.g. `10.64.0.0/10`. */
  network: string;
}

/** Parses `addr/len` (IPv4 or IPv6); returns null when it is not a valid CIDR. */
export function parseCidr(cidr: string): ParsedCidr | null {
  const slash = cidr.indexOf('/');
  if (slash < 0) return null;
  const addr = cidr.slice(0, slash);
  const lenText = cidr.slice(slash + 1);
  if (!/^\d{1,3}$/.test(lenText)) return null;
  const len = Number(lenText);
  if (addr.includes(':')) {
    const bytes = parseIpv6(addr);
    if (!bytes || len > 128) return null;
    return {
      family: 6,
      address: formatIpv6(bytes),
      prefixLength: len,
      network: `${formatIpv6(mask(bytes, len))}/${len}`,
    };
  }
  const bytes = parseIpv4(addr);
  if (!bytes || len > 32) return null;
  return {
    family: 4,
    address: bytes.join('.'),
    prefixLength: len,
    network: `${mask(bytes, len).join('.')}/${len}`,
  };
}

/**
 * The form WireGuard reports an allowed IP in: host bits cleared, canonical text. Unparseable input
 * is returned unchanged so the comparison still works (and WireGuard will reject it loudly).
 */
export function normalizeCidr(cidr: string): string {
  // Fast path for the common case, an IPv4 host route already in canonical form.
  if (cidr.endsWith('/32') && !cidr.includes(':')) {
    const address = cidr.slice(0, -3);
    const bytes = parseIpv4(address);
    if (bytes) {
      const canonical = bytes.join('.');
      // Already canonical (nearly always): keep the caller's string, one flat string per peer
      // instead of a concatenation of two (the agent holds one per peer for its whole life).
      return canonical === address ? cidr : `${canonical}/32`;
    }
  }
  return parseCidr(cidr)?.network ?? cidr;
}
