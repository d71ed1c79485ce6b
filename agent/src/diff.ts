/**
 * The diff between the desired peers and the live interface: pure functions and one streaming
 * comparer (PeerDiffer), used by the reconciler for snapshots, deltas and repairs.
 */
import type { AgentPeer } from '@vpn/contracts/agent';
import { normalizeCidr } from './cidr.ts';
import { canonicalEndpoint } from './endpoint.ts';
import type { UapiPeerOp } from './uapi.ts';

/** A peer as the diff sees it: keys base64, allowed IPs normalised and sorted. */
export interface PeerState {
  publicKey: string;
  presharedKey: string | null;
  allowedIps: string[];
  /**
   * Desired: `address:port` to send to (mesh links), resolved from `endpointSpec`; absent = leave
   * whatever the peer roamed to (customers), never compared. Live: what the interface reports.
   */
  endpoint?: string | null;
  /** Desired only: the endpoint as the control plane wrote it (`host:port`), before resolution. */
  endpointSpec?: string;
  /** Desired only: every address the host name resolved to; the live endpoint may be any of them. */
  endpointCandidates?: readonly string[];
  /** Seconds; absent (desired) = 0, i.e. off. */
  persistentKeepalive?: number;
  /** Desired only (issue 35): kbit/s to and from the peer, absent = unlimited; see shaping/. */
  downKbit?: number;
  upKbit?: number;
}

export interface PeerDiff {
  add: PeerState[];
  update: PeerState[];
  /** Public keys. */
  remove: string[];
}

/** Normalises a protocol peer for comparison with the live interface. */
export function toPeerState(p: AgentPeer): PeerState {
  const state: PeerState = {
    publicKey: p.public_key,
    presharedKey: p.preshared_key,
    allowedIps: normalizeIps(p.allowed_ips),
  };
  if (p.endpoint !== undefined) state.endpointSpec = p.endpoint;
  if (p.persistent_keepalive !== undefined) state.persistentKeepalive = p.persistent_keepalive;
  if (p.down_kbit !== undefined) state.downKbit = p.down_kbit;
  if (p.up_kbit !== undefined) state.upKbit = p.up_kbit;
  return state;
}

function normalizeIps(ips: readonly string[]): string[] {
  if (ips.length === 1) return [normalizeCidr(ips[0] ?? '')];
  return [...new Set(ips.map(normalizeCidr))].sort();
}

/**
 * Whether live allowed IPs equal the desired (normalised, sorted) ones. WireGuard already prints
 * them normalised, so the exact comparison almost always decides; normalising is the fallback.
 */
function liveIpsMatch(desired: readonly string[], live: readonly string[]): boolean {
  if (desired.length === 1 && live.length === 1 && desired[0] === live[0]) return true;
  return sameIps(desired, normalizeIps(live));
}

function sameIps(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * Whether the live endpoint is where the desired one points. A peer without a desired endpoint
 * (customers) may roam freely: its endpoint is never compared.
 */
function endpointMatches(d: PeerState, live: string | null | undefined): boolean {
  if (d.endpoint === undefined || d.endpoint === null) return true;
  if (live === d.endpoint) return true;
  const canonical = canonicalEndpoint(live);
  if (canonical === null) return false;
  return canonical === d.endpoint || (d.endpointCandidates?.includes(canonical) ?? false);
}

/**
 * Computes what must change on the live interface to match `desired`, one live peer at a time (the
 * reconciler feeds it as the device is read, so the live peer list is never held): peers to add,
 * peers whose preshared key, allowed IPs, desired endpoint or keepalive differ, and peers to
 * remove. Live allowed IPs may be in any order or form.
 */
export class PeerDiffer {
  private readonly diff: PeerDiff = { add: [], update: [], remove: [] };
  private readonly seen = new Set<string>();

  constructor(private readonly desired: ReadonlyMap<string, PeerState>) {}

  visit(l: PeerState): void {
    const d = this.desired.get(l.publicKey);
    if (!d) {
      this.diff.remove.push(l.publicKey);
      return;
    }
    // The desired entry's own key string: the live one is let go with the rest of the peer.
    this.seen.add(d.publicKey);
    if (
      d.presharedKey !== l.presharedKey ||
      !liveIpsMatch(d.allowedIps, l.allowedIps) ||
      !endpointMatches(d, l.endpoint) ||
      (d.persistentKeepalive ?? 0) !== (l.persistentKeepalive ?? 0)
    )
      // A keepalive left on live but not desired must be switched off explicitly.
      this.diff.update.push(
        d.persistentKeepalive === undefined && (l.persistentKeepalive ?? 0) !== 0
          ? { ...d, persistentKeepalive: 0 }
          : d,
      );
  }

  finish(): PeerDiff {
    for (const d of this.desired.values()) if (!this.seen.has(d.publicKey)) this.diff.add.push(d);
    return this.diff;
  }
}

/** PeerDiffer over a whole live list. Pure. */
export function diffPeers(desired: ReadonlyMap<string, PeerState>, live: readonly PeerState[]): PeerDiff {
  const differ = new PeerDiffer(desired);
  for (const l of live) differ.visit(l);
  return differ.finish();
}

export function isEmptyDiff(d: PeerDiff): boolean {
  return d.add.length === 0 && d.update.length === 0 && d.remove.length === 0;
}

/** The UAPI operation that makes one peer exactly `p` (created when missing). */
export function upsertOp(p: PeerState): UapiPeerOp {
  const op: Extract<UapiPeerOp, { remove?: false }> = {
    publicKey: p.publicKey,
    presharedKey: p.presharedKey,
    replaceAllowedIps: true,
    allowedIps: p.allowedIps,
  };
  if (p.endpoint) op.endpoint = p.endpoint;
  if (p.persistentKeepalive !== undefined) op.persistentKeepalive = p.persistentKeepalive;
  return op;
}

/**
 * The transaction for a diff. Removals go first so an address taken from a removed peer is free
 * before the peer that now owns it is written.
 */
export function diffToOps(d: PeerDiff): UapiPeerOp[] {
  return [
    ...d.remove.map((publicKey): UapiPeerOp => ({ publicKey, remove: true })),
    ...d.update.map(upsertOp),
    ...d.add.map(upsertOp),
  ];
}
