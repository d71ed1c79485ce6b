/**
 * Peer endpoints of mesh links (rooms across servers). The control plane sends `host:port` or
 * `[v6]:port`; UAPI wants an address, so a host name is resolved here first. Everything written to
 * UAPI or a `wg` config is rebuilt from parsed parts: the control plane's text never goes there as is.
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { parseCidr } from './cidr.ts';

export interface ParsedEndpoint {
  host: string;
  port: number;
  /** 4 or 6 when `host` is an address literal, 0 for a host name. */
  family: 0 | 4 | 6;
}

/** Host names as DNS allows them (letters, digits, hyphens; dot-separated labels of 1–63). */
const HOSTNAME =
  /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/** Canonical text of an address literal (IPv6 compressed and lower-case), or null. */
function canonicalAddress(host: string): { address: string; family: 4 | 6 } | null {
  const family = isIP(host);
  if (family === 4) {
    const p = parseCidr(`${host}/32`);
    return p ? { address: p.address, family: 4 } : null;
  }
  if (family === 6) {
    const p = parseCidr(`${host}/128`);
    return p ? { address: p.address, family: 6 } : null;
  }
  return null;
}

/** Parses `host:port`, `a.b.c.d:port` or `[v6]:port`; null when malformed (bare IPv6 included). */
export function parseEndpoint(text: string): ParsedEndpoint | null {
  let host: string;
  let portText: string;
  if (text.startsWith('[')) {
    const close = text.indexOf(']');
    if (close < 0 || text[close + 1] !== ':') return null;
    host = text.slice(1, close);
    portText = text.slice(close + 2);
    const addr = canonicalAddress(host);
    if (!addr || addr.family !== 6) return null;
    host = addr.address;
  } else {
    const colon = text.lastIndexOf(':');
    if (colon <= 0) return null;
    host = text.slice(0, colon);
    portText = text.slice(colon + 1);
    if (host.includes(':')) return null;
    const addr = canonicalAddress(host);
    if (addr) host = addr.address;
    else if (/^[\d.]+$/.test(host) || !HOSTNAME.test(host)) return null;
  }
  if (!/^\d{1,5}$/.test(portText)) return null;
  const port = Number(portText);
  if (port < 1 || port > 65535) return null;
  const family = isIP(host);
  return { host, port, family: family === 4 ? 4 : family === 6 ? 6 : 0 };
}

/** `a.b.c.d:port` or `[v6]:port`, the form UAPI takes and reports. */
export function formatEndpoint(address: string, port: number): string {
  return isIP(address) === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * The canonical form of an address endpoint (as UAPI or `wg show` reports it), for comparison;
 * null when it is not `address:port`.
 */
export function canonicalEndpoint(text: string | null | undefined): string | null {
  if (!text) return null;
  const p = parseEndpoint(text);
  return p && p.family !== 0 ? formatEndpoint(p.host, p.port) : null;
}

/** Resolves a host name to addresses, in the resolver's order (injectable for tests). */
export type HostResolver = (host: string) => Promise<string[]>;

export const dnsResolver: HostResolver = async (host) =>
  (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);

export interface ResolvedEndpoint {
  /** What to write: `address:port`. */
  endpoint: string;
  /** Every address the name resolved to, as endpoints: a live endpoint on any of them is fine. */
  candidates: string[];
}

/**
 * Turns a desired endpoint into `address:port`. Literals need no lookup; a host name is resolved
 * (first answer written). Throws with a one-line reason when malformed, unresolvable or too slow.
 */
export async function resolveEndpoint(
  text: string,
  resolver: HostResolver = dnsResolver,
  timeoutMs = 5000,
): Promise<ResolvedEndpoint> {
  const parsed = parseEndpoint(text);
  if (!parsed) throw new Error('endpoint mal formado (se espera host:puerto o [IPv6]:puerto)');
  if (parsed.family !== 0) {
    const endpoint = formatEndpoint(parsed.host, parsed.port);
    return { endpoint, candidates: [endpoint] };
  }
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`la resolución no respondió en ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    const addresses = await Promise.race([resolver(parsed.host), timeout]);
    const candidates: string[] = [];
    for (const a of addresses) {
      const addr = canonicalAddress(a);
      if (addr) candidates.push(formatEndpoint(addr.address, parsed.port));
    }
    const first = candidates[0];
    if (first === undefined) throw new Error(`${parsed.host} no tiene direcciones`);
    return { endpoint: first, candidates };
  } finally {
    clearTimeout(timer);
  }
}
