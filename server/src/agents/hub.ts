import { eq, inArray, and, sql } from 'drizzle-orm';
import type { WebSocket } from 'ws';
import {
  AGENT_PROTOCOL_VERSION,
  AgentToServer,
  type AgentPeerStats,
  type ServerToAgent,
} from '@vpn/contracts';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/client.ts';
import { peerUsage, peers, servers } from '../db/schema.ts';
import type { Bus, BusEvent } from '../realtime/bus.ts';
import { buildDelta, buildSnapshot, pruneChanges } from '../services/desiredState.ts';
import type { PeerService } from '../services/peers.ts';
import type { ServerRow } from '../services/servers.ts';

export const STATS_INTERVAL_MS = 10_000;
/** lastSeenAt is written at most this often per agent (heartbeats come every 15 s). */
const SEEN_WRITE_MS = 5_000;

export interface HubDeps {
  db: Db;
  bus: Bus;
  encryptionKey: Buffer;
  peers: PeerService;
  log: FastifyBaseLogger;
}

/**
 * The control plane's side of the agent protocol: one connection per server agent on this
 * instance. Snapshot on hello, then one coalesced delta per bus notification, acks settle busy peers.
 */
export class AgentHub {
  private readonly connections = new Map<number, AgentConnection>();
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: HubDeps) {
    this.unsubscribe = deps.bus.subscribe((e) => this.onEvent(e));
  }

  attach(socket: WebSocket, server: ServerRow): void {
    const previous = this.connections.get(server.id);
    // One agent per server: a newer connection replaces an older one (e.g. after a network blip).
    previous?.close(4409, 'replaced');
    const conn = new AgentConnection(socket, server, this.deps, () => {
      if (this.connections.get(server.id) === conn) this.connections.delete(server.id);
    });
    this.connections.set(server.id, conn);
  }

  private onEvent(e: BusEvent): void {
    if (e.kind === 'server') this.connections.get(e.serverId)?.sync();
  }

  /** Drops the agent's connection (its token was rotated: it must come back with the new one). */
  disconnect(serverId: number): void {
    this.connections.get(serverId)?.close(4401, 'token rotated');
  }

  connected(serverId: number): boolean {
    return this.connections.has(serverId);
  }

  close(): void {
    this.unsubscribe();
    for (const c of this.connections.values()) c.close(1001, 'shutdown');
  }
}

class AgentConnection {
  /** The newest revision sent to the agent; -1 until the snapshot went out. */
  private sent = -1;
  private chain: Promise<void> = Promise.resolve();
  private lastSeenWrite = 0;
  private readonly counters = new Map<string, { rx: number; tx: number }>();
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly server: ServerRow,
    private readonly deps: HubDeps,
    private readonly onGone: () => void,
  ) {
    socket.on('message', (data, isBinary) => {
      if (isBinary)
        return this.send({ type: 'error', message: 'binary frames are not part of the protocol' });
      this.enqueue(() => this.handle(data.toString()));
    });
    socket.on('close', () => {
      this.closed = true;
      this.onGone();
      void this.deps.db
        .update(servers)
        .set({ lastSeenAt: null })
        .where(eq(servers.id, server.id))
        .catch(() => {});
    });
    socket.on('error', () => {});
  }

  close(code: number, reason: string): void {
    this.socket.close(code, reason);
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

  sync(): void {
    this.enqueue(async () => {
      if (this.sent < 0 || this.closed) return;
      const delta = await buildDelta(this.deps.db, this.server.id, this.sent, this.deps.encryptionKey);
      if (delta === null) return;
      if (delta === 'resync') return this.sendSnapshot();
      this.send(delta);
      this.sent = delta.revision;
    });
  }

  private async sendSnapshot(): Promise<void> {
    const [row] = await this.deps.db.select().from(servers).where(eq(servers.id, this.server.id));
    if (!row) return this.close(4404, 'server deleted');
    const snapshot = await buildSnapshot(this.deps.db, row, this.deps.encryptionKey);
    this.send(snapshot);
    this.sent = snapshot.revision;
  }

  private async seen(force = false): Promise<void> {
    const now = Date.now();
    if (!force && now - this.lastSeenWrite < SEEN_WRITE_MS) return;
    this.lastSeenWrite = now;
    await this.deps.db
      .update(servers)
      .set({ lastSeenAt: sql`now()` })
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
      case 'hello': {
        if (parsed.protocol !== AGENT_PROTOCOL_VERSION) {
          this.send({
            type: 'error',
            message: `protocol ${parsed.protocol} not supported (want ${AGENT_PROTOCOL_VERSION})`,
          });
          return this.close(4400, 'protocol');
        }
        await this.deps.db
          .update(servers)
          .set({ agentVersion: parsed.agent_version, lastSeenAt: sql`now()` })
          .where(eq(servers.id, this.server.id));
        this.lastSeenWrite = Date.now();
        this.send({
          type: 'welcome',
          protocol: AGENT_PROTOCOL_VERSION,
          server_id: this.server.id,
          stats_interval_ms: STATS_INTERVAL_MS,
        });
        await this.sendSnapshot();
        // Changes made while the agent was away settle busy peers as soon as it acks the snapshot.
        return;
      }
      case 'resync':
        return this.sendSnapshot();
      case 'ack': {
        if (parsed.revision > this.sent) return; // Cannot ack what was never sent.
        await this.deps.db
          .update(servers)
          .set({
            ackedRevision: sql`greatest(${servers.ackedRevision}, ${parsed.revision})`,
            lastSeenAt: sql`now()`,
          })
          .where(eq(servers.id, this.server.id));
        this.lastSeenWrite = Date.now();
        await pruneChanges(this.deps.db, this.server.id, parsed.revision);
        await this.deps.peers.settleAcks(this.server.id);
        return;
      }
      case 'heartbeat':
        await this.seen();
        this.send({ type: 'heartbeat', at: Date.now() });
        return;
      case 'stats':
        await this.seen();
        return this.recordStats(parsed.peers);
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

  /** Stores traffic as deltas per sample, so history survives counter resets (agent or wireguard-go restart). */
  private async recordStats(stats: AgentPeerStats[]): Promise<void> {
    const moved: { stat: AgentPeerStats; rx: number; tx: number }[] = [];
    for (const stat of stats) {
      const prev = this.counters.get(stat.public_key);
      const rx = prev && stat.rx_bytes >= prev.rx ? stat.rx_bytes - prev.rx : stat.rx_bytes;
      const tx = prev && stat.tx_bytes >= prev.tx ? stat.tx_bytes - prev.tx : stat.tx_bytes;
      this.counters.set(stat.public_key, { rx: stat.rx_bytes, tx: stat.tx_bytes });
      if (rx > 0 || tx > 0) moved.push({ stat, rx, tx });
    }
    if (moved.length === 0) return;
    for (let i = 0; i < moved.length; i += 1000) {
      const batch = moved.slice(i, i + 1000);
      const owners = await this.deps.db
        .select({ id: peers.id, publicKey: peers.publicKey })
        .from(peers)
        .where(
          and(
            eq(peers.serverId, this.server.id),
            inArray(
              peers.publicKey,
              batch.map((m) => m.stat.public_key),
            ),
          ),
        );
      const idByKey = new Map(owners.map((o) => [o.publicKey, o.id]));
      const rows = batch
        .filter((m) => idByKey.has(m.stat.public_key))
        .map((m) => ({
          peerId: idByKey.get(m.stat.public_key)!,
          serverId: this.server.id,
          rxBytes: m.rx,
          txBytes: m.tx,
          latestHandshake: m.stat.latest_handshake ? new Date(m.stat.latest_handshake * 1000) : null,
          endpoint: m.stat.endpoint,
        }));
      if (rows.length) await this.deps.db.insert(peerUsage).values(rows);
    }
  }
}
