/**
 * The reconciler: desired state in, minimal diff out, idempotent.
 *
 * - `applySnapshot`: make sure the interface exists and is configured, read the live peers once,
 *   and apply only the difference in ONE transaction (never `replace_peers`, never `setconf`: both
 *   drop every session).
 * - `applyDelta`: apply the delta's peers directly, without reading the interface (a `get` of 50,000
 *   peers costs ~150 ms; a one-peer `set` ~0.3 ms). A removed key is retired, not deleted: see
 *   `retireOp` and `collectStats` (issue 24).
 * - `repair` (periodic, and after the daemon restarts): re-read and fix drift.
 *
 * Every operation runs through one queue, so a delta never interleaves with a snapshot's diff.
 *
 * Over 400 lines on purpose: the snapshot, delta, repair, health and stats paths share that queue
 * and the desired state, so they stay in one class; the diff itself is in diff.ts.
 */
import { randomBytes } from 'node:crypto';
import {
  AGENT_STATS_CHUNK_PEERS,
  type AgentPeerStats,
  type ServerDelta,
  type ServerSnapshot,
} from '@vpn/contracts/agent';
import { ForeignLinkError, type Backend, type BackendKind } from './backend.ts';
import { parseCidr } from './cidr.ts';
import { PeerDiffer, diffToOps, isEmptyDiff, toPeerState, upsertOp, type PeerState } from './diff.ts';
import { dnsResolver, resolveEndpoint, type HostResolver, type ResolvedEndpoint } from './endpoint.ts';
import {
  applyFirewall,
  defaultUplink,
  normalizeRoomPairs,
  renderRoomPairChanges,
  type RoomPair,
} from './firewall.ts';
import { RelayKeeper, type RelayStatus } from './relay/keeper.ts';
import { PeerShaping } from './shaping/peerShaping.ts';
import { desiredRelay, normalizeRelayRooms, type RelaySpec } from './relay/relay.ts';
import type { ConcurrentUseDetector } from './concurrent.ts';
import { settleHeap } from './stats/heap.ts';
import { LastReadings } from './stats/lastReadings.ts';
import type { StatsPass } from './stats/storedPasses.ts';
import type { InterfaceTotals } from './health/nodeHealth.ts';
import { errorMessage, type Logger } from './log.ts';
import type { UapiPeerOp, UapiSetRequest } from './uapi.ts';

/** A key a delta removed, waiting on the interface for a read of its last counters. */
interface Retirement {
  /** Which retirement: a key added back and retired again is a new one. */
  seq: number;
  /**
   * Its counters at the last stats pass before it was retired (AgentPeerStats.since), handed to the
   * first last report made of it only: the control plane would count a second one twice.
   */
  since?: { rx_bytes: number; tx_bytes: number };
}

/** What one apply did (for logs, tests and the benchmark). */
export interface ApplyResult {
  revision: number;
  added: number;
  updated: number;
  removed: number;
  /** Device settings changed (private key or listen port). */
  device: boolean;
  /** Retired keys (see Reconciler.retiring) a full pass removed once it had read their last counters. */
  retired?: number;
  /** Where a full pass spent its time, ms: interface + firewall, reading live, diff, writing. */
  timings?: { prepare: number; read: number; diff: number; write: number };
}

/** The part of the Backend the reconciler uses (tests substitute an in-memory one). */
export type ReconcilerBackend = Pick<
  Backend,
  'kind' | 'ensureInterface' | 'driver' | 'statsReader' | 'interfaceName' | 'runner' | 'isAlive'
>;

export interface ReconcilerOptions {
  backend: ReconcilerBackend;
  log: Logger;
  /** Overrides the snapshot's interface name. */
  interfaceName?: string;
  /** Overrides the uplink (default: the interface of the default route). */
  uplink?: string;
  /** Manage the nftables table (default true). */
  firewall?: boolean;
  /** TCP ports of the host that tunnel clients may open (firewall; default none). */
  hostTcpPorts?: readonly number[];
  /** Periodic drift repair, ms (default 5 minutes; 0 = off). */
  repairIntervalMs?: number;
  /** How often to check that the wireguard-go daemon is alive, ms (default 10 s; 0 = off). */
  healthIntervalMs?: number;
  /** Called after each successful apply with the revision now live (persisted by the caller). */
  onApplied?: (revision: number) => void;
  /** Called once per failing snapshot/repair (retries go on): the control plane ends busy states with an error. */
  onApplyFailed?: (revision: number, message: string) => void;
  /**
   * The last counters of keys that leave the interface (issue 17, L4; issue 24): the traffic since
   * the previous stats pass would otherwise be lost from the peers' data allowance. Without it a
   * delta deletes removed keys at once; with it a delta retires them (dead at once, no device read)
   * and the next read that happens anyway (stats pass, repair) reports them here, then deletes them.
   * The agent sends them as a `stats` message, ahead of any first report of the keys that replace them.
   */
  onFinalStats?: (peers: AgentPeerStats[]) => void;
  /** An error retrying cannot fix (a foreign link in the way): the agent stops. */
  onFatal?: (err: Error) => void;
  /** First revision known (from the state dir), reported in `hello` until a snapshot arrives. */
  initialRevision?: number;
  /** Resolves mesh endpoints' host names (default: node:dns lookup). */
  resolveHost?: HostResolver;
  /** Told, by the stats pass, of each peer whose endpoint changed (issue 19: concurrent use). */
  concurrent?: ConcurrentUseDetector;
  /** Enforce each peer's speed with traffic control (issue 35; default: as `firewall`). */
  shaping?: boolean;
  /** First delay before a relay that nft refused is tried again, ms (default 5 s, doubling to 5 min). */
  relayRetryMs?: number;
}

interface Desired {
  revision: number;
  name: string;
  privateKey: string;
  listenPort: number;
  address: string;
  mtu: number;
  nat: boolean;
  peers: Map<string, PeerState>;
  /**
   * Rooms: validated `source . destination` pairs for the firewall, by `a . b` (kept across deltas,
   * changed by their room fields: issue 33).
   */
  roomPairs: Map<string, RoomPair>;
  /** Discovery relay (issue 25), null when off; kept across deltas. */
  relay: RelaySpec | null;
}

/** Waits `ms`, or less when any of `signals` aborts (not AbortSignal.any: Node 18.19 lacks it). */
/**
 * The write that retires a key a delta removed (issue 24): no allowed IPs, so no packet reaches it
 * or leaves it (wireguard-go drops a decrypted packet whose source is not the peer's own), and a
 * preshared key nobody has, so no new session can start. What it carried until now stays on its
 * counters for the next read. One peer, no read: a removal costs what an addition does.
 */
export function retireOp(publicKey: string): UapiPeerOp {
  return {
    publicKey,
    presharedKey: randomBytes(32).toString('base64'),
    replaceAllowedIps: true,
    allowedIps: [],
  };
}

const pairKey = ([a, b]: RoomPair) => `${a} . ${b}`;

const sleep = (ms: number, ...signals: AbortSignal[]) =>
  new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(t);
      for (const s of signals) s.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    for (const s of signals) {
      if (s.aborted) return done();
      s.addEventListener('abort', done, { once: true });
    }
  });

export class Reconciler {
  private desired: Desired | null = null;
  private applied: number;
  private queue: Promise<unknown> = Promise.resolve();
  /** Bumped by every snapshot: a retry loop of an older one gives up. */
  private generation = 0;
  private readonly closed = new AbortController();
  /** Aborted by a newer snapshot: wakes a retry loop that is sleeping so it can give up at once. */
  private superseded = new AbortController();
  private repairTimer: NodeJS.Timeout | null = null;
  private healthTimer: NodeJS.Timeout | null = null;
  private repairQueued = false;
  private uplink: string | null;
  /** Each peer's counters at the last stats pass, by public key (see collectStats). */
  private readonly lastStats = new LastReadings();
  private statsPass = 0;
  /** A snapshot came since the last stats pass: the pass ends with a full collection (stats/heap.ts). */
  private heapToSettle = false;
  /** Last successful resolution of each endpoint text: used while its host name fails to resolve. */
  private resolved = new Map<string, ResolvedEndpoint>();
  /**
   * Keys a delta removed, retired on the interface (retireOp) until a read that happens anyway
   * reports their last counters (onFinalStats) and deletes them; each with its retirement number, so
   * a key added back and retired again is never deleted on an older retirement's read.
   */
  private readonly retiring = new Map<string, Retirement>();
  private retirements = 0;
  /** The discovery relay's nftables table (issue 25), kept apart from the peers' fate (issue 31). */
  private relay: RelayKeeper | null = null;
  /** Per-peer speed (issue 35): after the peers, never their failure (shaping/peerShaping.ts). */
  private readonly shaping: PeerShaping | null;

  constructor(private readonly opts: ReconcilerOptions) {
    this.applied = opts.initialRevision ?? 0;
    this.shaping =
      (opts.shaping ?? opts.firewall ?? true) ? new PeerShaping(opts.backend.runner, opts.log) : null;
    this.uplink = opts.uplink ?? null;
  }

  /**
   * The discovery relay's state and counters since the agent started (issue 25), and why its rules
   * are not in place when nft refused them (issue 31).
   */
  async relayStats(): Promise<RelayStatus> {
    return this.relay ? this.relay.status() : { active: false, relayed: 0, dropped: 0 };
  }

  /**
   * The interface at the last stats pass (issue 34's node health): its peers, those with a
   * handshake in the 3 minutes before `nowMs`, and their counters summed. Null before any pass.
   */
  interfaceTotals(nowMs: number): InterfaceTotals | null {
    if (this.statsPass === 0 || !this.desired) return null;
    const { peers, handshakes, rx, tx } = this.lastStats.totals(nowMs / 1000 - 180);
    return { peers, handshakes3m: handshakes, rx, tx };
  }

  /** The last revision applied to the interface. */
  get revision(): number {
    return this.applied;
  }

  /** This process holds the desired state of `revision`, applied (hello's `resume`). */
  get holdsApplied(): boolean {
    return this.desired !== null && this.desired.revision === this.applied;
  }

  backendKind(): Promise<BackendKind> {
    return this.opts.backend.kind();
  }

  /** Starts the periodic drift repair and daemon health checks. */
  start(): void {
    const every = this.opts.repairIntervalMs ?? 300_000;
    if (every > 0 && !this.repairTimer) {
      this.repairTimer = setInterval(() => this.requestRepair('periódica'), every);
      this.repairTimer.unref();
    }
    const health = this.opts.healthIntervalMs ?? 10_000;
    if (health > 0 && !this.healthTimer) {
      this.healthTimer = setInterval(() => {
        void this.opts.backend.isAlive().then((alive) => {
          if (!alive) this.requestRepair('el daemon de WireGuard no responde');
        });
      }, health);
      this.healthTimer.unref();
    }
  }

  /** Stops timers and pending retries; waits for the operation in progress. */
  async close(): Promise<void> {
    this.closed.abort();
    this.relay?.close();
    if (this.repairTimer) clearInterval(this.repairTimer);
    if (this.healthTimer) clearInterval(this.healthTimer);
    this.repairTimer = this.healthTimer = null;
    await this.queue.catch(() => undefined);
  }

  /**
   * Makes the interface match a full snapshot. Retries with backoff (1 s → 30 s) until it succeeds,
   * a newer snapshot supersedes it (resolves null: do not ack) or the reconciler closes.
   */
  applySnapshot(s: ServerSnapshot): Promise<ApplyResult | null> {
    const generation = ++this.generation;
    this.heapToSettle = true;
    this.superseded.abort();
    this.superseded = new AbortController();
    const peers = new Map<string, PeerState>();
    for (const p of s.peers) peers.set(p.public_key, toPeerState(p));
    const rooms = normalizeRoomPairs(s.room_pairs ?? []);
    if (rooms.invalid.length > 0)
      this.opts.log.warn('pares de sala con direcciones no válidas: se ignoran', {
        revision: s.revision,
        count: rooms.invalid.length,
        first: rooms.invalid[0]?.join(' → '),
      });
    const desired: Desired = {
      revision: s.revision,
      name: this.opts.interfaceName ?? s.interface.name,
      privateKey: s.interface.private_key,
      listenPort: s.interface.listen_port,
      address: s.interface.address,
      mtu: s.interface.mtu,
      nat: s.interface.nat,
      peers,
      roomPairs: new Map(rooms.pairs.map((p) => [pairKey(p), p])),
      relay: desiredRelay(s, this.opts.interfaceName ?? s.interface.name, this.opts.log),
    };
    return this.enqueue(async () => {
      this.desired = desired;
      return this.convergeWithRetry(generation);
    });
  }

  /**
   * Applies a delta's upserts and removals directly (one `set` with only those peers), then records
   * its revision. If that fails (daemon gone), falls back to a full repair with retries.
   * Resolves null when there is no snapshot to apply it to (the caller should ask for a resync).
   */
  applyDelta(d: ServerDelta): Promise<ApplyResult | null> {
    return this.enqueue(async () => {
      const desired = this.desired;
      if (!desired) return null;
      const ops: UapiPeerOp[] = [];
      const retire = this.opts.onFinalStats !== undefined;
      const gone: PeerState[] = [];
      for (const key of d.remove) {
        const state = desired.peers.get(key);
        if (state) gone.push(state);
        // A key that is not desired is not on the interface either (or a repair removes it).
        const known = desired.peers.delete(key);
        if (retire && known) {
          const since = this.lastStats.since(key);
          this.retiring.set(key, { seq: ++this.retirements, ...(since ? { since } : {}) });
          ops.push(retireOp(key));
        } else ops.push({ publicKey: key, remove: true });
      }
      const states = d.upsert.map(toPeerState);
      // Deltas carry customers (no endpoint); resolve anyway should one ever carry a mesh link.
      if (states.some((p) => p.endpointSpec !== undefined)) await this.resolveEndpoints(states);
      for (const state of states) {
        // Back before its last read (moved away and back, switched off and on): it starts again
        // from zero. Kept, its counters could reach the control plane after another server's
        // reading of the key and be counted whole a second time; reset, at most its tail since the
        // last pass goes uncounted (docs/decisions.md, issue 24).
        if (this.retiring.delete(state.publicKey)) ops.push({ publicKey: state.publicKey, remove: true });
        desired.peers.set(state.publicKey, state);
        ops.push(upsertOp(state));
      }
      desired.revision = Math.max(desired.revision, d.revision);
      const rooms = this.roomChange(desired, d);
      const generation = this.generation;
      try {
        if (ops.length > 0) await this.opts.backend.driver().set({ peers: ops });
        // A room's pairs as the table's own change: only those elements, never a table rewrite.
        const script = rooms.firewall ? renderRoomPairChanges(desired.name, rooms.add, rooms.remove) : '';
        if (script) await this.opts.backend.runner.run('nft', ['-f', '-'], { input: script });
      } catch (err) {
        this.opts.log.warn('no se pudo aplicar el delta directamente: se repara la interfaz completa', {
          revision: d.revision,
          error: errorMessage(err),
        });
        return this.convergeWithRetry(generation);
      }
      // The relay writes only the rooms that changed (relay/relay.ts), never the pass's failure.
      if (rooms.relay && rooms.firewall) await this.relayKeeper().apply(desired.relay);
      // Only these peers' speeds (issue 35), after them and never their failure.
      await this.shaping?.delta(desired.name, gone, states, () => desired.peers.values());
      this.markApplied(desired.revision);
      return {
        revision: desired.revision,
        added: d.upsert.length,
        updated: 0,
        removed: d.remove.length,
        device: false,
      };
    });
  }

  /**
   * A delta's room fields (issue 33) applied to the desired state: the pairs that really change
   * (an added pair already there, or a removed one not there, is no change), and whether the
   * relay's rooms changed. Invalid addresses are left out, like a snapshot's.
   */
  private roomChange(
    desired: Desired,
    d: ServerDelta,
  ): { add: RoomPair[]; remove: RoomPair[]; relay: boolean; firewall: boolean } {
    const firewall = this.opts.firewall ?? true;
    const added = normalizeRoomPairs(d.room_pairs_add ?? []);
    const removed = normalizeRoomPairs(d.room_pairs_remove ?? []);
    const invalid = added.invalid.length + removed.invalid.length;
    if (invalid > 0)
      this.opts.log.warn('pares de sala con direcciones no válidas: se ignoran', {
        revision: d.revision,
        count: invalid,
      });
    const remove: RoomPair[] = [];
    for (const p of removed.pairs) if (desired.roomPairs.delete(pairKey(p))) remove.push(p);
    const add: RoomPair[] = [];
    for (const p of added.pairs) {
      const key = pairKey(p);
      if (desired.roomPairs.has(key)) continue;
      desired.roomPairs.set(key, p);
      add.push(p);
    }
    let relay = false;
    const gone = new Set(d.relay_rooms_remove ?? []);
    const { rooms: changed, invalid: badRooms } = normalizeRelayRooms(d.relay_rooms ?? []);
    if (badRooms > 0)
      this.opts.log.warn('salas del relé con datos no válidos: se ignoran', {
        revision: d.revision,
        count: badRooms,
      });
    if (desired.relay && (gone.size > 0 || changed.length > 0)) {
      const byId = new Map(desired.relay.rooms.map((r) => [r.id, r]));
      for (const id of gone) byId.delete(id);
      for (const r of changed) byId.set(r.id, r);
      desired.relay = { ...desired.relay, rooms: [...byId.values()].sort((a, b) => a.id - b.id) };
      relay = true;
    }
    return { add, remove, relay, firewall };
  }

  /** Re-reads the live interface and fixes any drift (queued; no-op before the first snapshot). */
  repair(): Promise<ApplyResult | null> {
    return this.enqueue(async () => {
      if (!this.desired) return null;
      return this.convergeWithRetry(this.generation);
    });
  }

  /** Schedules a repair unless one is already waiting in the queue. */
  requestRepair(reason: string): void {
    if (this.repairQueued || !this.desired || this.closed.signal.aborted) return;
    this.repairQueued = true;
    this.opts.log.debug('reparación programada', { reason });
    void this.repair()
      .catch((err: unknown) => this.opts.log.error('reparación fallida', { error: errorMessage(err) }))
      .finally(() => {
        this.repairQueued = false;
      });
  }

  /**
   * Per-peer counters for the `stats` message. With `onlyChanged`, peers whose counters, handshake
   * and endpoint are the same as in the previous call are left out (a 50,000-peer report is ~7 MB).
   * Null while there is no interface yet. With `emit`, every AGENT_STATS_CHUNK_PEERS reported peers
   * go to it as they are read, and the rest is returned (see AgentHandler.collectStats).
   *
   * Runs every 10 s over every peer, so it allocates as little as it can: the answer is parsed as
   * it streams in, each peer's last counters are updated in place (one object per peer, kept), and
   * only reported peers get an object. Building all of it anew each pass kept the
   * agent's memory from ever shrinking (docs/reliability.md).
   *
   * Retired keys (see `retiring`) are this read's other job: their counters go to onFinalStats, not
   * into the report, and the keys are then deleted from the interface. Keys new to the pass wait
   * until those finals are out: a re-key's new key must not reach the control plane before its old
   * key's last counters, which it could then no longer match to the peer.
   *
   * `report.at` stamps each reported peer with its pass (issue 33); with `report.resendFrom`, peers
   * last reported at or after it are reported again though unchanged (a resumed connection's first
   * pass: reports the control plane may not have stored, stats/storedPasses.ts).
   */
  async collectStats(
    onlyChanged: boolean,
    emit?: (peers: AgentPeerStats[]) => void,
    report: StatsPass = {},
  ): Promise<AgentPeerStats[] | null> {
    if (!this.desired || !this.opts.backend.interfaceName) return null;
    const pass = ++this.statsPass;
    const at = report.at ?? Date.now();
    const resendFrom = report.resendFrom ?? Infinity;
    let out: AgentPeerStats[] = [];
    const seen = this.lastStats;
    const concurrent = this.opts.concurrent;
    const now = Date.now();
    const retiring = this.retiring;
    const retiredBefore = this.retirements;
    /** Retired keys read by this pass, with the retirement they were read under. */
    const leaving = new Map<string, number>();
    const finals: AgentPeerStats[] = [];
    /** Baselines handed to this pass's finals: given back if the pass fails before sending them. */
    const taken: [Retirement, NonNullable<Retirement['since']>][] = [];
    /** Reports of keys new to the pass, held while any retired key's finals are still to come. */
    let held: AgentPeerStats[] | null = retiring.size > 0 ? [] : null;
    const release = () => {
      if (finals.length > 0) this.opts.onFinalStats?.(finals.splice(0));
      taken.length = 0;
      if (held) for (const h of held) out.push(h);
      held = null;
    };
    try {
      await this.opts.backend.statsReader().readStats((publicKey, rx, tx, handshake, reported) => {
        let endpoint = reported && reported.length <= 64 ? reported : null;
        const retired = retiring.get(publicKey);
        if (retired !== undefined) {
          // Not marked as seen: the pass forgets it below, like a peer that left the interface.
          leaving.set(publicKey, retired.seq);
          // Its counters before retirement: the control plane's fallback when it can no longer
          // match the key to its own last reading (contracts: AgentPeerStats.since).
          const since = retired.since;
          if (since) taken.push([retired, since]);
          retired.since = undefined;
          finals.push({
            public_key: publicKey,
            rx_bytes: rx,
            tx_bytes: tx,
            latest_handshake: handshake,
            endpoint,
            final: true,
            ...(since ? { since } : {}),
          });
          if (held && leaving.size === retiring.size) release();
          return;
        }
        // Reports and the detector get the strings already kept (the key the readings are kept
        // under, the endpoint when unchanged): this pass's copies die young, and a busy pass
        // promotes no second copy of every key with its report (issue 33).
        let key: string;
        const last = seen.slot(publicKey);
        if (last >= 0) {
          key = seen.keyOf(last);
          const same = seen.same(last, rx, tx, handshake, endpoint);
          seen.seen(last, pass);
          // Only peers whose endpoint moved reach the detector: its cost follows the moves, not the fleet.
          const before = seen.endpointOf(last);
          if (concurrent && before !== endpoint) concurrent.moved(key, before, endpoint, now);
          if (same && onlyChanged && seen.reportedAt(last) < resendFrom) return;
          seen.set(last, rx, tx, handshake, endpoint);
          seen.reported(last, at);
          endpoint = seen.endpointOf(last);
        } else {
          // Keyed by the desired peer's own key string when there is one: no second copy kept.
          key = this.desired?.peers.get(publicKey)?.publicKey ?? publicKey;
          seen.reported(seen.add(key, rx, tx, handshake, endpoint, pass), at);
          if (held) {
            held.push({
              public_key: key,
              rx_bytes: rx,
              tx_bytes: tx,
              latest_handshake: handshake,
              endpoint,
            });
            return;
          }
        }
        out.push({
          public_key: key,
          rx_bytes: rx,
          tx_bytes: tx,
          latest_handshake: handshake,
          endpoint,
        });
        if (emit && out.length >= AGENT_STATS_CHUNK_PEERS) {
          emit(out);
          out = [];
        }
      });
    } catch (err) {
      // Half a pass updated some peers without reporting them: forget all, report all next time.
      // Retired keys stay retired: the next pass reads them again.
      seen.clear();
      for (const [retired, since] of taken) retired.since = since;
      throw err;
    }
    release();
    seen.sweep(pass, (key) => concurrent?.forget(key));
    // A retired key the read did not find is gone already (daemon restarted): nothing left to read.
    for (const [key, retired] of retiring)
      if (!leaving.has(key) && retired.seq <= retiredBefore) retiring.delete(key);
    if (leaving.size > 0) void this.deleteRetired(leaving);
    if (this.heapToSettle) {
      this.heapToSettle = false;
      settleHeap();
    }
    return out;
  }

  /** Deletes retired keys whose last counters were reported, unless added back or retired again since. */
  private deleteRetired(read: Map<string, number>): Promise<void> {
    return this.enqueue(async () => {
      const ops: UapiPeerOp[] = [];
      for (const [key, retired] of read)
        if (this.retiring.get(key)?.seq === retired) {
          this.retiring.delete(key);
          ops.push({ publicKey: key, remove: true });
        }
      if (ops.length === 0) return;
      try {
        await this.opts.backend.driver().set({ peers: ops });
      } catch (err) {
        // They carry nothing (no addresses); the repair deletes them with the rest of the drift.
        this.opts.log.warn('no se pudieron borrar las claves retiradas: se repara la interfaz', {
          count: ops.length,
          error: errorMessage(err),
        });
        this.requestRepair('claves retiradas sin borrar');
      }
    });
  }

  /**
   * Resolves the desired endpoints of mesh links in place. One that does not resolve keeps its last
   * good address, or else is left unset (the peer is still written, without an endpoint: the other
   * server can still reach it, and the next repair tries again).
   */
  private async resolveEndpoints(peers: Iterable<PeerState>): Promise<void> {
    const resolver = this.opts.resolveHost ?? dnsResolver;
    const pending: Promise<void>[] = [];
    for (const p of peers) {
      const spec = p.endpointSpec;
      if (spec === undefined) continue;
      pending.push(
        resolveEndpoint(spec, resolver).then(
          (r) => {
            this.resolved.set(spec, r);
            p.endpoint = r.endpoint;
            p.endpointCandidates = r.candidates;
          },
          (err: unknown) => {
            const last = this.resolved.get(spec);
            this.opts.log.warn(
              last
                ? 'no se pudo resolver el endpoint del enlace: se mantiene la última dirección'
                : 'no se pudo resolver el endpoint del enlace: el par se configura sin endpoint',
              { peer: p.publicKey, endpoint: spec, error: errorMessage(err) },
            );
            p.endpoint = last?.endpoint;
            p.endpointCandidates = last?.candidates;
          },
        ),
      );
    }
    await Promise.all(pending);
  }

  private relayKeeper(): RelayKeeper {
    this.relay ??= new RelayKeeper({
      runner: this.opts.backend.runner,
      log: this.opts.log,
      ...(this.opts.relayRetryMs !== undefined ? { firstRetryMs: this.opts.relayRetryMs } : {}),
      // The latest rooms, in the queue like any write (a snapshot in between applies them itself).
      retry: () =>
        void this.enqueue(async () => {
          if (this.desired && !this.closed.signal.aborted) await this.relayKeeper().apply(this.desired.relay);
        }),
    });
    return this.relay;
  }

  private enqueue<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private markApplied(revision: number): void {
    this.applied = revision;
    this.opts.onApplied?.(revision);
  }

  private async convergeWithRetry(generation: number): Promise<ApplyResult | null> {
    let delay = 1000;
    let reported = false;
    for (;;) {
      if (this.closed.signal.aborted || generation !== this.generation) return null;
      try {
        return await this.converge();
      } catch (err) {
        if (err instanceof ForeignLinkError) {
          // Retrying cannot help: the operator must act. The agent stops (see Agent's onFatal).
          this.opts.log.error(err.message);
          if (this.desired) this.opts.onApplyFailed?.(this.desired.revision, err.message);
          this.opts.onFatal?.(err);
          return null;
        }
        if (!reported && this.desired) {
          reported = true;
          this.opts.onApplyFailed?.(this.desired.revision, errorMessage(err));
        }
        this.opts.log.error('no se pudo aplicar el estado deseado; se reintentará', {
          error: errorMessage(err),
          retry_ms: delay,
        });
      }
      await sleep(delay * (0.5 + Math.random() / 2), this.closed.signal, this.superseded.signal);
      delay = Math.min(30_000, delay * 2);
    }
  }

  /**
   * One full pass: interface, firewall, device settings and the peer diff in one transaction, then
   * the discovery relay (whose failure does not fail the pass: see relay/keeper.ts).
   */
  private async converge(): Promise<ApplyResult> {
    const d = this.desired;
    if (!d) throw new Error('sin estado deseado');
    const backend = this.opts.backend;
    const t0 = performance.now();
    await backend.ensureInterface({ name: d.name, address: d.address, mtu: d.mtu });
    if (this.opts.firewall ?? true) {
      this.uplink ??= await defaultUplink(backend.runner);
      const own = parseCidr(d.address);
      await applyFirewall(backend.runner, {
        iface: d.name,
        uplink: this.uplink,
        pool: own?.network ?? d.address,
        nat: d.nat,
        roomPairs: [...d.roomPairs.values()],
        address: own?.address,
        hostTcpPorts: this.opts.hostTcpPorts,
      });
    }
    await this.resolveEndpoints(d.peers.values());
    const driver = backend.driver();
    const t1 = performance.now();
    const differ = new PeerDiffer(d.peers);
    // Keys this pass deletes leave their last counters, from the read it does anyway (issue 24).
    const finals: AgentPeerStats[] = [];
    const taken: [Retirement, NonNullable<Retirement['since']>][] = [];
    const final = this.opts.onFinalStats;
    const live = await driver.scan((p) => {
      differ.visit(p);
      if (final && !d.peers.has(p.publicKey)) {
        // A retired key's baseline goes with its first last report only; a stray's is its last read.
        const retired = this.retiring.get(p.publicKey);
        const since = retired ? retired.since : this.lastStats.since(p.publicKey);
        if (retired?.since) {
          taken.push([retired, retired.since]);
          retired.since = undefined;
        }
        finals.push({
          public_key: p.publicKey,
          rx_bytes: p.rxBytes,
          tx_bytes: p.txBytes,
          latest_handshake: p.lastHandshakeSec,
          endpoint: p.endpoint && p.endpoint.length <= 64 ? p.endpoint : null,
          final: true,
          ...(since ? { since } : {}),
        });
      }
    });
    const t2 = performance.now();
    const diff = differ.finish();
    const req: UapiSetRequest = { peers: diffToOps(diff) };
    const device = live.privateKey !== d.privateKey || live.listenPort !== d.listenPort;
    if (live.privateKey !== d.privateKey) req.privateKey = d.privateKey;
    if (live.listenPort !== d.listenPort) req.listenPort = d.listenPort;
    const t3 = performance.now();
    try {
      if (device || !isEmptyDiff(diff)) await driver.set(req);
    } catch (err) {
      // Nothing reported: the retry's read hands the same baselines to its finals.
      for (const [retired, since] of taken) retired.since = since;
      throw err;
    }
    const t4 = performance.now();
    // Once they are gone, not before: a pass that fails and retries must not report them twice.
    if (finals.length > 0) final?.(finals);
    // The relay after the peers, and never the pass's failure (issue 31): a kernel that refuses it
    // must not keep a disabled peer connected. Its failure is reported and retried on its own.
    if (this.opts.firewall ?? true) await this.relayKeeper().apply(d.relay);
    // Each peer's speed (issue 35), likewise after the peers and never the pass's failure.
    await this.shaping?.converge(d.name, d.peers.values());
    // Retired keys were expected to go: not drift. After this pass none is left: each was deleted,
    // or restored by a snapshot that wants it again.
    let retired = 0;
    for (const key of diff.remove) if (this.retiring.has(key)) retired++;
    this.retiring.clear();
    const result: ApplyResult = {
      revision: d.revision,
      added: diff.add.length,
      updated: diff.update.length,
      removed: diff.remove.length - retired,
      device,
      retired,
      timings: { prepare: t1 - t0, read: t2 - t1, diff: t3 - t2, write: t4 - t3 },
    };
    if (device || result.added + result.updated + result.removed > 0)
      this.opts.log.info('interfaz reconciliada', {
        interface: d.name,
        revision: d.revision,
        added: result.added,
        updated: result.updated,
        removed: result.removed,
        retired,
        device_changed: device,
        ms: Math.round(t4 - t0),
      });
    this.markApplied(d.revision);
    return result;
  }
}
