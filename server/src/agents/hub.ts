import { inArray } from 'drizzle-orm';
import type { WebSocket } from 'ws';
import { servers } from '../db/schema.ts';
import type { BusEvent } from '../realtime/bus.ts';
import type { ServerRow } from '../services/fleet/servers.ts';
import { Limiter } from '../lib/limiter.ts';
import { AgentConnection, type HubDeps } from './connection.ts';

export const DEFAULT_CATCHUP_MS = 60_000;
/**
 * Snapshots an instance builds at once (HubDeps.snapshotLimiter); the others wait their turn in a
 * queue (vpn_agent_snapshots_waiting). bench:fleet, 100 agents of 10,000 peers signing in on three
 * instances: the highest resident memory of the start-up fell from over 500 MB to 312–386 MB.
 */
export const SNAPSHOTS_AT_ONCE = 2;

/**
 * The control plane's side of the agent protocol: one connection per server agent on this
 * instance. Snapshot on hello, then one coalesced delta per bus notification, acks settle busy peers.
 * A notification can be lost (LISTEN reconnecting, an instance dying between commit and publish),
 * so agents are also caught up after the bus reconnects and every `catchupMs`.
 */
export class AgentHub {
  private readonly connections = new Map<number, AgentConnection>();
  private readonly deps: HubDeps;
  private readonly unsubscribe: () => void;
  private readonly catchupTimer: NodeJS.Timeout;

  constructor(
    deps: HubDeps & {
      /** Stats reports stored at once by this instance (default: a quarter of DATABASE_POOL_SIZE's 10). */
      statsConcurrency?: number;
    },
  ) {
    this.deps = {
      ...deps,
      statsLimiter: deps.statsLimiter ?? new Limiter(deps.statsConcurrency ?? 2),
      snapshotLimiter: deps.snapshotLimiter ?? new Limiter(SNAPSHOTS_AT_ONCE),
    };
    this.unsubscribe = deps.bus.subscribe((e) => this.onEvent(e));
    this.catchupTimer = setInterval(() => {
      this.catchUp().catch((err: unknown) => deps.log.error({ err }, 'agent catch-up failed'));
    }, deps.catchupMs ?? DEFAULT_CATCHUP_MS);
    this.catchupTimer.unref();
  }

  /**
   * Agents that lag their server's desired revision: sent a delta when changes were never sent to
   * them (a lost notification), a full snapshot when what was sent stays unapplied a whole round.
   * First, each connection's token is checked against its server's current token hash: a rotation
   * (or a deletion) whose `agent_revoked` notice was lost still ends the old connection here, on
   * every instance, before it is sent another snapshot (which carries the server's private key).
   */
  async catchUp(): Promise<void> {
    const ids = [...this.connections.keys()];
    if (ids.length === 0) return;
    const rows = await this.deps.db
      .select({
        id: servers.id,
        revision: servers.revision,
        acked: servers.ackedRevision,
        tokenHash: servers.agentTokenHash,
      })
      .from(servers)
      .where(inArray(servers.id, ids));
    const current = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const conn = this.connections.get(id);
      const row = current.get(id);
      if (!conn) continue;
      if (!row || row.tokenHash !== conn.tokenHash) conn.close(4401, 'token revoked');
      else conn.catchUp(row.revision, row.acked);
    }
  }

  attach(socket: WebSocket, server: ServerRow): void {
    const previous = this.connections.get(server.id);
    // One agent per server: a newer connection replaces an older one (e.g. after a network blip).
    previous?.close(4409, 'replaced');
    const conn = new AgentConnection(socket, server, this.deps, () => {
      if (this.connections.get(server.id) !== conn) return false;
      this.connections.delete(server.id);
      return true;
    });
    this.connections.set(server.id, conn);
  }

  private onEvent(e: BusEvent): void {
    if (e.kind === 'server') this.connections.get(e.serverId)?.sync();
    // Notifications may have been lost while the bus was away: every agent gets what it missed.
    else if (e.kind === 'reconnected') for (const c of this.connections.values()) c.sync();
    // Its token was rotated (it must come back with the new one) or its server deleted.
    else if (e.kind === 'agent_revoked') this.connections.get(e.serverId)?.close(4401, 'token revoked');
    else if (e.kind === 'agent_upgrade') this.connections.get(e.serverId)?.upgrade();
  }

  connected(serverId: number): boolean {
    return this.connections.has(serverId);
  }

  /** Ids of the servers whose agent is connected to this instance. */
  connectedServerIds(): number[] {
    return [...this.connections.keys()];
  }

  /** Agents connected to this instance. */
  count(): number {
    return this.connections.size;
  }

  /** Agents' `stats` reports received on this instance and not yet stored (bounded per agent). */
  statsQueued(): number {
    let n = 0;
    for (const c of this.connections.values()) n += c.statsQueued;
    return n;
  }

  /** Agents waiting for their turn to be built a snapshot on this instance (SNAPSHOTS_AT_ONCE). */
  snapshotsWaiting(): number {
    return this.deps.snapshotLimiter?.queued ?? 0;
  }

  close(): void {
    this.unsubscribe();
    clearInterval(this.catchupTimer);
    for (const c of this.connections.values()) c.close(1001, 'shutdown');
  }
}
