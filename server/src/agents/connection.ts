// Over 400 lines on purpose: one agent connection's protocol (hello, snapshot, deltas, acks, its two
// queues) shares the connection's state; split, each part would take all of it.
/** One server agent's connection: snapshot, deltas, acks, stats and heartbeats (AgentHub holds them). */
import { eq, sql } from 'drizzle-orm';
import type { WebSocket } from 'ws';
import {
  AGENT_PROTOCOL_VERSION,
  AgentStats,
  AgentToServer,
  agentMsg,
  snapshotMessages,
  type AgentPeerStats,
  type ServerToAgent,
} from '@vpn/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import { servers } from '../db/schema.ts';
import type { Bus } from '../realtime/bus.ts';
import { buildDelta, buildSnapshot, pruneChanges } from '../services/fleet/desiredState.ts';
import type { PeerService } from '../services/peers/peers.ts';
import type { ServerRow } from '../services/fleet/servers.ts';
import { recordStats } from '../services/peers/usage.ts';
import type { Limiter } from '../lib/limiter.ts';
import type { AgentRelease } from '../services/fleet/agentRelease.ts';
import type { ConcurrentUseService } from '../services/peers/concurrentUse.ts';
import { recordNodeHealth } from '../services/fleet/nodeHealth.ts';
import { agentBack, agentGone } from '../services/fleet/outages.ts';
import { setUpgradeState, upgradeMessage, upgradeOnHello } from '../services/fleet/agentUpgrades.ts';

/** How often agents report stats (hello's stats_interval_ms). */
export const STATS_INTERVAL_MS = 10_000;
/** lastSeenAt is written at most this often per agent (heartbeats come every 15 s). */
const SEEN_WRITE_MS = 5_000;
/** Consoles hear of an agent's acks at most this often (a busy server acks many times a second). */
export const STATUS_PUSH_MS = 2_000;

export interface HubDeps {
  db: Db;
  bus: Bus;
  encryptionKey: Buffer;
  /** Keys.mesh: the mesh links' preshared keys. */
  meshKey: Buffer;
  peers: PeerService;
  log: FastifyBaseLogger;
  /** How often connected agents are checked against their desired revision (AGENT_CATCHUP_SECONDS). */
  catchupMs?: number;
  /** Peers per message of a snapshot sent in parts (default AGENT_SNAPSHOT_CHUNK_PEERS; tests). */
  snapshotChunkPeers?: number;
  /** The agent file "Actualizar agente" upgrades to. */
  release?: AgentRelease;
  /** How often agents report stats (default STATS_INTERVAL_MS; tests). */
  statsIntervalMs?: number;
  /** Stores agents' `concurrent_use` reports (issue 19); absent, agents are not asked for them. */
  concurrentUse?: ConcurrentUseService;
  /** How long building one delta for an agent took (/metrics: vpn_agent_update_build_seconds). */
  onUpdateBuilt?: (seconds: number) => void;
  /**
   * Stats reports stored at once on this instance, all agents together (AgentHub sets it from the
   * pool size): each holds a database connection for its transaction, and 33 agents reconnecting
   * with their full reports took the whole pool from the customers' requests (bench:fleet's kill -9:
   * push p99 7.2 s). Absent: no limit (tests of one connection).
   */
  statsLimiter?: Limiter;
  /**
   * Snapshots built at once on this instance, all agents together (AgentHub: SNAPSHOTS_AT_ONCE).
   * Each holds its server's peers as rows, then as the agent's peers, then as text: ~30 MB for
   * 10,000 peers, and 33 agents signing in at once built 33 of them side by side. Absent: no limit.
   */
  snapshotLimiter?: Limiter;
}

/**
 * How a `stats` report begins as agents write it (`JSON.stringify` keeps `type` first). Those frames
 * have their own queue: storing 5,000 peers' counters takes hundreds of milliseconds on a busy
 * database, a full report of 50,000 peers ten times that, and an `ack` queued behind them held the
 * customers' busy peers (and their `success`) that long (issue 24). Stats only need to stay in order
 * among themselves (a re-key's last counters before the new key's first, services/peers/usage.ts);
 * a report written otherwise still counts, on the main queue.
 */
const STATS_FRAME = '{"type":"stats",';
/**
 * Reports of one agent waiting to be stored, at most (issue 33). Past it, a new report is merged
 * into the last waiting one (counters are cumulative: per key the newest reading replaces the
 * older, and the totals stay exact), so a slow database never holds an unbounded queue in memory.
 */
export const STATS_QUEUE_REPORTS = 4;
/** Waiting reports at which an agent that can hold them is told `stats_wait`. */
const STATS_WAIT_AT = 2;

/** Merges `newer` into `older` by key (the newer reading wins); null when either has final readings. */
function mergeReports(older: AgentPeerStats[], newer: AgentPeerStats[]): AgentPeerStats[] | null {
  // A key's final reading (`since`) and a re-keyed peer's first one must stay in separate
  // statements (services/peers/usage.ts): such reports are never merged.
  if (older.some((p) => p.since || p.final) || newer.some((p) => p.since || p.final)) return null;
  const at = new Map(older.map((p, i) => [p.public_key, i]));
  for (const p of newer) {
    const i = at.get(p.public_key);
    if (i === undefined) {
      at.set(p.public_key, older.length);
      older.push(p);
    } else older[i] = p;
  }
  return older;
}

/**
 * A report waiting for its turn, as text (issue 33): a 5,000-peer report is ~0.8 MB as a string and
 * several times that as 5,000 parsed objects, and one instance's 33 agents sending their full
 * reports at once (330,000 readings) held them all parsed while they waited: 554 MB of RSS in
 * bench:fleet. Only text that AgentStats accepted is kept (checked on arrival, so a malformed
 * report is still refused at once), and it is parsed again when its turn comes.
 */
interface WaitingReport {
  /** `{"peers":[…]}`: the frame as the agent sent it, or merged reports written back. */
  text: string;
  /** Some reading is a key's last one (never merged, see mergeReports). */
  finals: boolean;
  /** The `at` of every frame in it (merged ones included): acknowledged once stored (`stats_stored`). */
  at: number[];
}

/** The readings of a waiting report (its text passed AgentStats when it arrived). */
function readingsOf(report: WaitingReport): AgentPeerStats[] {
  return (JSON.parse(report.text) as { peers: AgentPeerStats[] }).peers;
}

export class AgentConnection {
  /** The newest revision sent to the agent; -1 until the snapshot went out. */
  private sent = -1;
  private chain: Promise<void> = Promise.resolve();
  /** `stats` reports waiting to be stored, oldest first, beside `chain` (see STATS_FRAME). */
  private readonly statsQueue: WaitingReport[] = [];
  private statsRunning = false;
  /** The agent's hello said it holds its reports on `stats_wait`. */
  private holdsStats = false;
  /** The agent's hello said it understands `stats_stored` (issue 33). */
  private acksStats = false;
  private statsWaitSent = false;
  private lastSeenWrite = 0;
  /** The last lastSeenAt this connection wrote: its close clears only that (see the close handler). */
  private seenAt: Date | null = null;
  private closed = false;
  /** `sent:applied` when the last catch-up round found the agent lagging with everything sent. */
  private lagging: string | undefined;
  private lastStatus = 0;
  private statusTimer: NodeJS.Timeout | undefined;
  /** The agent's hello said it assembles snapshots sent in parts. */
  private snapshotParts = false;
  /** The agent's hello said it applies room changes as deltas (issue 33). */
  private roomDeltas = false;
  /** The agent's hello said it understands `upgrade`; null before the hello. */
  private canUpgrade: boolean | null = null;
  private agentVersion = '';

  constructor(
    private readonly socket: WebSocket,
    private readonly server: ServerRow,
    private readonly deps: HubDeps,
    /** Forgets this connection; false when a newer one of the same server had replaced it. */
    private readonly onGone: () => boolean,
  ) {
    socket.on('message', (data, isBinary) => {
      if (isBinary)
        return this.send({ type: 'error', message: 'binary frames are not part of the protocol' });
      const raw = data.toString();
      if (raw.startsWith(STATS_FRAME)) this.queueStats(raw);
      else this.enqueue(() => this.handle(raw));
    });
    socket.on('close', () => {
      this.closed = true;
      clearTimeout(this.statusTimer);
      // A replaced socket closing late (here, or on another instance: then lastSeenAt is no longer
      // what this connection wrote) must not mark the server offline under its new connection.
      if (!this.onGone() || !this.seenAt) return;
      // Marked offline and an outage opened (issue 34: the charts mark it), in one statement.
      void agentGone(this.deps.db, server.id, this.seenAt, new Date())
        .then(() => this.publishStatus())
        .catch(() => {});
    });
    socket.on('error', () => {});
  }

  /** The hash of the token this agent signed in with. */
  get tokenHash(): string | null {
    return this.server.agentTokenHash;
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
  }

  private publishStatus(): Promise<void> {
    this.lastStatus = Date.now();
    return this.deps.bus.publish({
      kind: 'managers',
      permission: 'servers.read',
      message: { type: 'admin_server', server_id: this.server.id },
    });
  }

  /**
   * Tells consoles this server's status changed (connected, acked): at once if the last push is
   * older than STATUS_PUSH_MS, else once at the end of that window (acks in between coalesce).
   */
  private statusChanged(): void {
    if (this.statusTimer || this.closed) return;
    const wait = this.lastStatus + STATUS_PUSH_MS - Date.now();
    if (wait <= 0) {
      void this.publishStatus().catch(() => {});
      return;
    }
    this.statusTimer = setTimeout(() => {
      this.statusTimer = undefined;
      if (!this.closed) void this.publishStatus().catch(() => {});
    }, wait);
    this.statusTimer.unref();
  }

  private send(message: ServerToAgent): void {
    if (!this.closed) this.socket.send(JSON.stringify(message));
  }

  /** Messages and syncs run one at a time, in order. */
  private enqueue(task: () => Promise<void>): void {
    this.chain = this.chain.then(task).catch((err: unknown) => {
      this.deps.log.error({ err, serverId: this.server.id }, 'agent message failed');
    });
  }

  /** Number of reports waiting to be stored (tests, /metrics). */
  get statsQueued(): number {
    return this.statsQueue.length;
  }

  /**
   * A `stats` report joins the stats queue: stored one at a time, in order among themselves, beside
   * the other messages. The queue is bounded (STATS_QUEUE_REPORTS, then merged) and an agent that
   * can hold its reports is told to wait while two are queued, and to go on once it is empty.
   */
  private queueStats(raw: string): void {
    let peers: AgentPeerStats[];
    let at: number;
    try {
      ({ peers, at } = AgentStats.parse(JSON.parse(raw)));
    } catch {
      return this.send({ type: 'error', message: 'unknown or malformed message' });
    }
    const finals = peers.some((p) => p.since || p.final);
    const tail = this.statsQueue.at(-1);
    // Merged into the tail (parsed again for it, written back as text) only when the queue is full.
    const merged =
      this.statsQueue.length >= STATS_QUEUE_REPORTS && tail && !tail.finals && !finals
        ? mergeReports(readingsOf(tail), peers)
        : null;
    if (merged && tail) {
      tail.text = JSON.stringify({ peers: merged });
      tail.at.push(at);
    } else this.statsQueue.push({ text: raw, finals, at: [at] });
    if (this.holdsStats && !this.statsWaitSent && this.statsQueue.length >= STATS_WAIT_AT) {
      this.statsWaitSent = true;
      this.send({ type: 'stats_wait', wait: true });
    }
    void this.drainStats();
  }

  private async drainStats(): Promise<void> {
    if (this.statsRunning) return;
    this.statsRunning = true;
    try {
      // The report leaves the queue only when its turn comes (the instance's limiter): while it
      // waits it is still queued, counted, and the newer ones can merge into the queue's tail.
      const store = async () => {
        const report = this.statsQueue.shift();
        if (!report) return;
        await this.seen();
        await this.recordStats(readingsOf(report));
        this.statsStored(report.at);
      };
      while (this.statsQueue.length > 0) {
        try {
          await (this.deps.statsLimiter ? this.deps.statsLimiter.run(store) : store());
        } catch (err) {
          this.deps.log.error({ err, serverId: this.server.id }, 'agent stats failed');
        }
      }
    } finally {
      this.statsRunning = false;
    }
    if (this.statsWaitSent) {
      this.statsWaitSent = false;
      this.send({ type: 'stats_wait', wait: false });
    }
  }

  /**
   * Tells the agent which of its `stats` frames are stored (issue 33): it then knows which peers a
   * reconnection must report again. Only after the store resolved: a report that failed, or that
   * an instance dying never stored, is never acknowledged.
   */
  private statsStored(at: number[]): void {
    if (this.acksStats) this.send({ type: 'stats_stored', at });
  }

  /** The changes after `revision` for this agent (timed for /metrics when there are some). */
  private async deltaAfter(revision: number): ReturnType<typeof buildDelta> {
    const started = performance.now();
    const delta = await buildDelta(
      this.deps.db,
      this.server.id,
      revision,
      this.deps.encryptionKey,
      this.roomDeltas ? { meshKey: this.deps.meshKey } : undefined,
    );
    if (delta !== null && delta !== 'resync') this.deps.onUpdateBuilt?.((performance.now() - started) / 1000);
    return delta;
  }

  sync(): void {
    this.enqueue(async () => {
      if (this.sent < 0 || this.closed) return;
      const delta = await this.deltaAfter(this.sent);
      if (delta === null) return;
      if (delta === 'resync') return this.sendSnapshot();
      this.send(delta);
      this.sent = delta.revision;
    });
  }

  /**
   * "Actualizar agente" reached this instance: send `upgrade` for the panel's current file, or
   * record why it cannot be (no file built, an agent too old to upgrade itself). Before the hello,
   * the hello takes care of it.
   */
  upgrade(): void {
    this.enqueue(async () => {
      if (this.closed || this.canUpgrade === null) return;
      const [row] = await this.deps.db.select().from(servers).where(eq(servers.id, this.server.id));
      if (row?.agentUpgradeStatus !== 'pending') return;
      await this.sendUpgrade();
    });
  }

  private async sendUpgrade(): Promise<void> {
    const message = upgradeMessage(this.deps.release);
    if (!message)
      await setUpgradeState(this.deps.db, this.server.id, 'failed', { error: agentMsg.fileMissing });
    else if (!this.canUpgrade)
      await setUpgradeState(this.deps.db, this.server.id, 'failed', {
        error: agentMsg.oldAgent(this.agentVersion),
      });
    else {
      await setUpgradeState(this.deps.db, this.server.id, 'pending', { version: message.version });
      this.send(message);
      return;
    }
    await this.publishStatus();
  }

  /** One catch-up round (see AgentHub.catchUp): `desired` and `applied` as the database has them. */
  catchUp(desired: number, applied: number): void {
    if (this.sent < 0 || this.closed || applied >= desired) {
      this.lagging = undefined;
      return;
    }
    if (this.sent < desired) {
      this.lagging = undefined;
      return this.sync();
    }
    const state = `${this.sent}:${applied}`;
    if (this.lagging === state) {
      this.lagging = undefined;
      this.enqueue(() => this.sendSnapshot());
    } else this.lagging = state;
  }

  /**
   * A reconnecting agent that holds the state of the revision this server last applied (hello's
   * `resume`) gets the changes since as a delta, or nothing when there are none: no snapshot of
   * every peer (issue 33: an instance's death sent all its agents' snapshots at once, each tens of
   * thousands of peers, to the instances left). False when that is not possible (another revision,
   * a token rotated since, changes no longer kept, a change that needs a snapshot): then a snapshot.
   */
  private async resume(row: typeof servers.$inferSelect, revision: number): Promise<boolean> {
    if (revision < 1 || revision !== row.ackedRevision || row.agentTokenHash !== this.server.agentTokenHash)
      return false;
    const delta = await this.deltaAfter(revision);
    if (delta === 'resync') return false;
    // No change kept after that revision while the server is further on: not provable, a snapshot.
    if (delta === null && row.revision !== revision) return false;
    this.sent = revision;
    if (delta) {
      this.send(delta);
      this.sent = delta.revision;
    }
    return true;
  }

  private sendSnapshot(): Promise<void> {
    const limiter = this.deps.snapshotLimiter;
    return limiter ? limiter.run(() => this.buildAndSendSnapshot()) : this.buildAndSendSnapshot();
  }

  private async buildAndSendSnapshot(): Promise<void> {
    // Its agent may have gone while it waited for its turn.
    if (this.closed) return;
    const [row] = await this.deps.db.select().from(servers).where(eq(servers.id, this.server.id));
    if (!row) return this.close(4404, 'server deleted');
    // A snapshot carries the server's private key: never to a token rotated since this agent signed
    // in, even when its agent_revoked notice was lost (an agent may ask for one with `resync`).
    if (row.agentTokenHash !== this.server.agentTokenHash) return this.close(4401, 'token revoked');
    const snapshot = await buildSnapshot(this.deps.db, row, this.deps.encryptionKey, this.deps.meshKey);
    // In parts to agents that assemble them (one after another, nothing between them).
    if (this.snapshotParts)
      for (const m of snapshotMessages(snapshot, this.deps.snapshotChunkPeers)) this.send(m);
    else this.send(snapshot);
    this.sent = snapshot.revision;
  }

  /** A lastSeenAt value this connection writes (instance clock, like agentOnline's), remembered. */
  private stamp(): Date {
    this.seenAt = new Date();
    return this.seenAt;
  }

  private async seen(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.lastSeenWrite < SEEN_WRITE_MS) return;
    this.lastSeenWrite = now;
    await this.deps.db
      .update(servers)
      .set({ lastSeenAt: this.stamp() })
      .where(eq(servers.id, this.server.id));
  }

  private async handle(raw: string): Promise<void> {
    let parsed: AgentToServer;
    try {
      parsed = AgentToServer.parse(JSON.parse(raw));
    } catch {
      this.send({ type: 'error', message: 'unknown or malformed message' });
      return;
    }
    switch (parsed.type) {
      case 'hello':
        // A hello that fails (the database away, a pool with no connection free in time) left the
        // agent connected with no snapshot for good (bench:fleet under load: 'timeout: first
        // snapshots'). Closed instead: the agent connects again and says hello again.
        return this.hello(parsed).catch((err: unknown) => {
          this.close(1011, 'hello failed');
          throw err;
        });
      case 'upgrade_result':
        if (parsed.status === 'failed')
          this.deps.log.warn(
            { serverId: this.server.id, version: parsed.version, message: parsed.message },
            'agent upgrade failed',
          );
        // Only an upgrade still asked for: the restarted agent's hello (another connection) may
        // already have settled it.
        await setUpgradeState(this.deps.db, this.server.id, parsed.status, {
          error: parsed.status === 'failed' ? (parsed.message ?? 'sin motivo') : null,
          onlyIf: 'pending',
        });
        await this.publishStatus();
        return;
      case 'resync':
        return this.sendSnapshot();
      case 'ack': {
        if (parsed.revision > this.sent) return; // Cannot ack what was never sent.
        await this.deps.db
          .update(servers)
          .set({
            ackedRevision: sql`greatest(${servers.ackedRevision}, ${parsed.revision})`,
            lastSeenAt: this.stamp(),
          })
          .where(eq(servers.id, this.server.id));
        this.lastSeenWrite = Date.now();
        await pruneChanges(this.deps.db, this.server.id, parsed.revision);
        await this.deps.peers.settleAcks(this.server.id);
        this.statusChanged();
        return;
      }
      case 'heartbeat':
        await this.seen();
        this.send({ type: 'heartbeat', at: Date.now() });
        return;
      case 'stats':
        await this.seen();
        await this.recordStats(parsed.peers);
        return this.statsStored([parsed.at]);
      case 'concurrent_use':
        await this.seen();
        return this.deps.concurrentUse?.record(this.server.id, parsed.peers);
      case 'relay_stats':
        // The discovery relay as the agent runs it (issue 25): Servidores and /metrics read it.
        await this.deps.db
          .update(servers)
          .set({
            relayActive: parsed.active,
            relayRelayed: parsed.relayed,
            relayDropped: parsed.dropped,
            relayReportedAt: new Date(parsed.at),
            // Issue 31: nft refused the rules; the agent applied the peers anyway and retries.
            relayError: parsed.error ?? null,
          })
          .where(eq(servers.id, this.server.id));
        return;
      case 'node_health':
        // The node's health (issue 34): stored and pushed to the consoles.
        return recordNodeHealth(this.deps.db, this.deps.bus, this.server.id, parsed);
      case 'error':
        this.deps.log.warn({ serverId: this.server.id, message: parsed.message }, 'agent reported an error');
        return;
      case 'apply_error':
        this.deps.log.error(
          { serverId: this.server.id, revision: parsed.revision, message: parsed.message },
          'agent could not apply a revision',
        );
        return this.deps.peers.failPending(this.server.id, parsed.revision);
    }
  }

  /** The agent's hello: welcome, then its snapshot or (resumed) the changes since. */
  private async hello(parsed: Extract<AgentToServer, { type: 'hello' }>): Promise<void> {
    if (parsed.protocol !== AGENT_PROTOCOL_VERSION) {
      this.send({
        type: 'error',
        message: `protocol ${parsed.protocol} not supported (want ${AGENT_PROTOCOL_VERSION})`,
      });
      return this.close(4400, 'protocol');
    }
    const [row] = await this.deps.db
      .update(servers)
      .set({
        agentVersion: parsed.agent_version,
        agentNodeVersion: parsed.node_version ?? null,
        lastSeenAt: this.stamp(),
      })
      .where(eq(servers.id, this.server.id))
      .returning();
    this.lastSeenWrite = Date.now();
    // Its outage ends (or, its last instance having died unheard, is recorded) now.
    // Once per connection: `server.lastSeenAt` is from when it signed in.
    if (this.canUpgrade === null)
      await agentBack(this.deps.db, this.server.id, this.server.lastSeenAt, this.seenAt!).catch((err) =>
        this.deps.log.warn({ err, serverId: this.server.id }, 'outage not recorded'),
      );
    // The agent put its previous file back after the upgraded one crashed in its first minute
    // (agent/src/rollback.ts): recorded before the welcome, which tells the agent it was heard.
    if (parsed.rolled_back) {
      const { from, reason } = parsed.rolled_back;
      this.deps.log.warn(
        { serverId: this.server.id, from, to: parsed.agent_version, reason },
        'agent rolled back an upgrade',
      );
      await setUpgradeState(this.deps.db, this.server.id, 'failed', {
        version: from,
        error: agentMsg.rolledBack(from, parsed.agent_version, reason),
      });
    }
    this.snapshotParts = parsed.snapshot_parts === true;
    this.roomDeltas = parsed.room_deltas === true;
    this.holdsStats = parsed.stats_wait === true;
    this.acksStats = parsed.stats_stored === true;
    this.canUpgrade = parsed.upgrade === true;
    this.agentVersion = parsed.agent_version;
    this.send({
      type: 'welcome',
      protocol: AGENT_PROTOCOL_VERSION,
      server_id: this.server.id,
      stats_interval_ms: this.deps.statsIntervalMs ?? STATS_INTERVAL_MS,
      ...(this.deps.concurrentUse ? { concurrent_use: true } : {}),
      relay_stats: true,
      node_health: true,
      stats_stored: true,
    });
    if (!(row && parsed.resume && (await this.resume(row, parsed.revision)))) await this.sendSnapshot();
    // A pending "Actualizar agente": done, sent again, or failed (services/fleet/agentUpgrades.ts).
    const outcome =
      row && !parsed.rolled_back ? upgradeOnHello(row, parsed.agent_version, this.canUpgrade) : null;
    if (outcome === 'done') await setUpgradeState(this.deps.db, this.server.id, null);
    else if (outcome === 'resend') await this.sendUpgrade();
    else if (outcome)
      await setUpgradeState(this.deps.db, this.server.id, 'failed', { error: outcome.failed });
    this.statusChanged();
    // Changes made while the agent was away settle busy peers as soon as it acks the snapshot.
    return;
  }

  /** Adds the report's deltas to hourly rollups (services/peers/usage.ts: counter resets, reconnects). */
  private recordStats(stats: AgentPeerStats[]): Promise<void> {
    return recordStats(this.deps.db, this.server.id, stats);
  }
}
