/**
 * One device per peer (issue 19): notices a peer whose keys run on two devices at once.
 *
 * WireGuard keeps one endpoint per peer and follows whichever device sent the last authenticated
 * packet, so two devices on one `.conf` make the endpoint the stats pass reads (every 10 s) jump
 * between their source addresses: A → B → A → B… A phone that moves from Wi-Fi to mobile data
 * makes one jump, A → B, and stays: roaming, never reported.
 *
 * Cost stays flat at any fleet size: the stats pass already keeps each peer's last endpoint (to
 * report only peers that changed), and calls `moved` only for the few whose endpoint changed since
 * the previous pass. Only those get an entry here, bounded in number (`maxTracked`, oldest dropped)
 * and forgotten once they have not moved for a window (10 minutes). No extra UAPI read.
 *
 * A peer is reported when, within the window, its address switched at least `minSwitches` times
 * and at least one switch went back to an address already seen (an alternation, not a walk
 * A → B → C). Then its history starts over and it is not reported again before a window has
 * passed, so a report means "one more window of alternation" (the control plane counts them for
 * its policy). Addresses are kept in memory only; what leaves is their count and the last two
 * truncated to /24 or /48 (docs/decisions.md, issue 19). Nothing here is logged.
 */
import {
  CONCURRENT_MIN_SWITCHES,
  CONCURRENT_WINDOW_MS,
  type AgentConcurrentUsePeer,
} from '@vpn/contracts/agent';
import { parseCidr } from './cidr.ts';

/** Distinct addresses remembered per peer (the count reported saturates there). */
const MAX_HOSTS = 16;

interface Entry {
  /** Distinct source addresses seen in this history, oldest first (host only, no port). */
  hosts: string[];
  /** The address the endpoint is at now, and the one it was at before. */
  current: string;
  previous: string;
  /** When each switch happened (ms), oldest first; only those within the window count. */
  switches: number[];
  /** When a switch went back to an address of `hosts` other than the one just left. */
  returns: number[];
  /** Last report (ms), or 0: reported at most once per window. */
  reportedAt: number;
  /** The last switch (ms): entries that have not moved for a window are dropped. */
  lastMove: number;
}

export interface ConcurrentUseOptions {
  windowMs?: number;
  minSwitches?: number;
  /** Peers followed at once; the one that moved least recently is dropped first. */
  maxTracked?: number;
}

/** The address part of a UAPI endpoint (`1.2.3.4:51820`, `[2001:db8::1]:51820`), or null. */
export function endpointHost(endpoint: string): string | null {
  if (endpoint.startsWith('[')) {
    const close = endpoint.indexOf(']');
    return close > 1 ? endpoint.slice(1, close) : null;
  }
  const colon = endpoint.lastIndexOf(':');
  if (colon <= 0 || endpoint.indexOf(':') !== colon) return null;
  return endpoint.slice(0, colon);
}

/** An address truncated to its /24 (IPv4) or /48 (IPv6) network, as text; null if it does not parse. */
export function truncatedNetwork(host: string): string | null {
  const v6 = host.includes(':');
  // Without a zone (fe80::1%eth0) and never a full address.
  return parseCidr(`${v6 ? host.replace(/%.*$/, '') : host}/${v6 ? 48 : 24}`)?.network ?? null;
}

export class ConcurrentUseDetector {
  private readonly windowMs: number;
  private readonly minSwitches: number;
  private readonly maxTracked: number;
  /** Peers whose endpoint changed recently, least recently moved first (re-inserted on each move). */
  private readonly entries = new Map<string, Entry>();

  constructor(opts: ConcurrentUseOptions = {}) {
    this.windowMs = opts.windowMs ?? CONCURRENT_WINDOW_MS;
    this.minSwitches = opts.minSwitches ?? CONCURRENT_MIN_SWITCHES;
    this.maxTracked = opts.maxTracked ?? 4096;
  }

  /** Peers followed now (for tests and the benchmark). */
  get size(): number {
    return this.entries.size;
  }

  /**
   * The stats pass saw this peer's endpoint change from `from` to `to` (both as UAPI prints them).
   * A port change on the same address (NAT rebinding) is not a switch.
   */
  moved(publicKey: string, from: string | null, to: string | null, now: number): void {
    if (from === null || to === null) return;
    const a = endpointHost(from);
    const b = endpointHost(to);
    if (a === null || b === null || a === b) return;
    let e = this.entries.get(publicKey);
    if (e) this.entries.delete(publicKey);
    else {
      if (this.entries.size >= this.maxTracked) {
        const oldest = this.entries.keys().next().value;
        if (oldest !== undefined) this.entries.delete(oldest);
      }
      e = { hosts: [a], current: a, previous: a, switches: [], returns: [], reportedAt: 0, lastMove: now };
    }
    this.entries.set(publicKey, e);
    if (e.current !== a && !e.hosts.includes(a)) this.remember(e, a);
    if (e.hosts.includes(b) && b !== e.current) e.returns.push(now);
    else if (!e.hosts.includes(b)) this.remember(e, b);
    e.previous = a;
    e.current = b;
    e.switches.push(now);
    e.lastMove = now;
    this.trim(e, now);
  }

  /** Forgets every peer (the benchmark measures what the entries retain). */
  clear(): void {
    this.entries.clear();
  }

  /** A peer left the interface (removed or regenerated): forget it. */
  forget(publicKey: string): void {
    this.entries.delete(publicKey);
  }

  /**
   * After a stats pass: the peers that alternated enough within the window (each then starts over
   * and waits a window before it can be reported again), and entries quiet for a window dropped.
   */
  take(now: number): AgentConcurrentUsePeer[] {
    const out: AgentConcurrentUsePeer[] = [];
    for (const [key, e] of this.entries) {
      this.trim(e, now);
      if (e.switches.length === 0 && now - e.lastMove >= this.windowMs) {
        this.entries.delete(key);
        continue;
      }
      if (e.switches.length < this.minSwitches || e.returns.length === 0) continue;
      if (e.reportedAt !== 0 && now - e.reportedAt < this.windowMs) continue;
      const last = [e.previous, e.current].map(truncatedNetwork).filter((n): n is string => n !== null);
      out.push({ public_key: key, endpoints: e.hosts.length, switches: e.switches.length, last });
      e.reportedAt = now;
      e.hosts = [e.current];
      e.switches = [];
      e.returns = [];
    }
    return out;
  }

  private remember(e: Entry, host: string): void {
    e.hosts.push(host);
    if (e.hosts.length > MAX_HOSTS) e.hosts.shift();
  }

  private trim(e: Entry, now: number): void {
    const since = now - this.windowMs;
    while (e.switches.length > 0 && e.switches[0]! <= since) e.switches.shift();
    while (e.returns.length > 0 && e.returns[0]! <= since) e.returns.shift();
    // A long-lived alternation keeps at most a window's worth of switches (a few per minute).
    if (e.switches.length > 1024) e.switches.splice(0, e.switches.length - 1024);
  }
}
