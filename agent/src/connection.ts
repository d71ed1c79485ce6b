/**
 * The agent's side of the control-plane protocol (`@vpn/contracts`, agent.ts): dials
 * `<url>/api/agent/ws` with the agent token, says `hello`, applies `snapshot`s and `delta`s through
 * a handler (the reconciler) and acks their revisions, reports `stats`, and keeps the link honest
 * with heartbeats. Reconnects with exponential backoff and jitter (0.5 s → 30 s), reset once a
 * connection has stayed up for a while.
 *
 * Every incoming message is validated with the `ServerToAgent` schema; one that does not parse is
 * logged (its type and the failing fields, never its content: a snapshot carries a private key),
 * answered with `error` and otherwise ignored.
 *
 * Over 400 lines: everything that shares one socket's state (hello, snapshots in parts, deltas,
 * stats and concurrent-use reports, upgrades, heartbeats, reconnection) stays in this one class.
 */
import { hostname } from 'node:os';
import { EventEmitter } from 'node:events';
import WebSocket from 'ws';
import {
  AGENT_PROTOCOL_VERSION,
  AGENT_STATS_CHUNK_PEERS,
  ServerToAgent,
  type AgentConcurrentUsePeer,
  type AgentPeerStats,
  type AgentToServer,
  type ServerDelta,
  type ServerSnapshot,
  type ServerUpgrade,
} from '@vpn/contracts/agent';
import { errorMessage, type Logger } from './log.ts';
import { AGENT_VERSION } from './version.ts';
import type { NodeHealthReport } from './health/nodeHealth.ts';
import { StoredPasses, type StatsPass } from './stats/storedPasses.ts';

export { AGENT_VERSION };

/** What the connection needs from the rest of the agent. */
export interface AgentHandler {
  /** The last revision applied and the WireGuard implementation, for `hello`. */
  hello(): Promise<{
    revision: number;
    /** The desired state of `revision` is held and applied in this process (hello's `resume`). */
    resume?: boolean;
    backend: 'kernel' | 'wireguard-go';
    /** A rollback of an upgrade not yet reported (rollback.ts). */
    rolled_back?: { from: string; reason: string };
  }>;
  /** Resolves the revision to ack, or null for "do not ack" (superseded). */
  applySnapshot(s: ServerSnapshot): Promise<number | null>;
  /** Resolves the revision to ack, or null when there is no snapshot to apply it to. */
  applyDelta(d: ServerDelta): Promise<number | null>;
  /**
   * Per-peer stats, or null when there is nothing to report yet. With `emit`, full chunks of
   * AGENT_STATS_CHUNK_PEERS go to it as they are read and only the rest is returned: a report
   * goes out in messages of at most that many peers (a 100,000-peer report in one message, ~20 MB,
   * would exceed the control plane's message limit and the agent would reconnect in a loop), and
   * the agent never holds a whole report of a big server.
   */
  collectStats(
    onlyChanged: boolean,
    emit?: (peers: AgentPeerStats[]) => void,
    pass?: StatsPass,
  ): Promise<AgentPeerStats[] | null>;
  /**
   * Replace the agent with the panel's current file (`upgrade`); the handler answers
   * `upgrade_result` through `send`. Absent: the agent answers that it cannot.
   */
  upgrade?(msg: ServerUpgrade, send: (msg: AgentToServer) => void): Promise<void>;
  /**
   * After each stats pass: peers whose endpoint alternated enough to be reported (issue 19), sent
   * as `concurrent_use` only to a control plane whose welcome said it stores them.
   */
  concurrentUse?(now: number): AgentConcurrentUsePeer[];
  /**
   * After each stats pass: the discovery relay's state and counters (issue 25), sent as
   * `relay_stats` only to a control plane whose welcome said it stores them.
   */
  relayStats?(): Promise<{ active: boolean; relayed: number; dropped: number; error?: string }>;
  /**
   * After each stats pass: the node's health (issue 34, health/nodeHealth.ts), sent as
   * `node_health` only to a control plane whose welcome said it stores them; null: nothing yet.
   */
  nodeHealth?(at: number): Promise<NodeHealthReport | null>;
}

export interface ConnectionOptions {
  /** Control-plane base URL (http, https, ws or wss). */
  url: string;
  token: string;
  handler: AgentHandler;
  log: Logger;
  hostname?: string;
  heartbeatMs?: number;
  /** Reconnect when nothing was received for this long. */
  idleTimeoutMs?: number;
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  /** A connection that stayed up this long resets the backoff. */
  stableMs?: number;
  handshakeTimeoutMs?: number;
}

/** `http://host/base` → `ws://host/base/api/agent/ws` (https → wss). */
export function agentWsUrl(base: string): string {
  let u: URL;
  try {
    u = new URL(base);
  } catch {
    throw new Error(`URL no válida: ${base}`);
  }
  const proto = { 'http:': 'ws:', 'https:': 'wss:', 'ws:': 'ws:', 'wss:': 'wss:' }[u.protocol];
  if (!proto) throw new Error(`la URL debe empezar por http://, https://, ws:// o wss:// (${u.protocol})`);
  u.protocol = proto;
  u.pathname = `${u.pathname.replace(/\/+$/, '')}/api/agent/ws`;
  u.search = '';
  u.hash = '';
  return u.toString();
}

export type ParsedMessage = { ok: true; message: ServerToAgent } | { ok: false; error: string };

/**
 * Parses and validates one incoming frame. The error text names the type and the failing fields
 * only, so it is safe to log and to send back.
 */
export function parseServerMessage(text: string): ParsedMessage {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, error: 'mensaje no válido: no es JSON' };
  }
  const parsed = ServerToAgent.safeParse(data);
  if (parsed.success) return { ok: true, message: parsed.data };
  const type =
    typeof data === 'object' && data !== null && 'type' in data && typeof data.type === 'string'
      ? data.type.slice(0, 40)
      : '?';
  const fields = parsed.error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || '(raíz)'}: ${i.message}`)
    .join('; ');
  return { ok: false, error: `mensaje no válido (type=${JSON.stringify(type)}): ${fields}`.slice(0, 1000) };
}

/** Stats are skipped while this much is still queued on the socket (a slow control plane). */
const MAX_BUFFERED = 8 * 1024 * 1024;

export class AgentConnection extends EventEmitter {
  private ws: WebSocket | null = null;
  private stopped = false;
  /** A snapshot whose later parts are still arriving (ServerSnapshot.parts). */
  private pendingSnapshot: { snapshot: ServerSnapshot; next: number } | null = null;
  private attempts = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private readonly url: string;
  /** Which stats passes the control plane stored, across connections (issue 33). */
  readonly storedPasses = new StoredPasses();
  /**
   * A stats pass is running. One at a time across connections too: a new connection's first pass
   * must see every peer the previous connection's last pass stamped (stats/storedPasses.ts).
   */
  private statsBusy = false;
  /** Connections dialed so far: each one's number. */
  private connections = 0;
  /** The current connection's number while its control plane acknowledges stored stats, else 0. */
  private acking = 0;

  constructor(private readonly opts: ConnectionOptions) {
    super();
    this.url = agentWsUrl(opts.url);
  }

  /** Sends a message now if connected (dropped otherwise: the next hello and snapshot cover it). */
  notify(msg: AgentToServer): void {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return;
    // A key's last report (reconcile.ts, onFinalStats) is a frame the control plane acknowledges too.
    if (msg.type === 'stats' && this.acking) this.storedPasses.sent(msg.at, this.acking);
    this.ws.send(JSON.stringify(msg));
  }

  /** Dials and keeps dialing until `stop()`. */
  start(): void {
    this.stopped = false;
    this.connect();
  }

  /** Closes the socket and stops reconnecting. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.reconnectTimer) clearTimeout(this.reconnectTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 2000);
      ws.once('close', () => {
        clearTimeout(t);
        resolve();
      });
      ws.close(1000, 'agente detenido');
    });
  }

  /** True while a socket is open. */
  get connected(): boolean {
    return this.ws?.readyState === WebSocket.OPEN;
  }

  private connect(): void {
    if (this.stopped) return;
    const o = this.opts;
    const ws = new WebSocket(this.url, {
      headers: { Authorization: `Bearer ${o.token}` },
      handshakeTimeout: o.handshakeTimeoutMs ?? 10_000,
      // A snapshot of 200,000 peers is ~40 MB.
      maxPayload: 256 * 1024 * 1024,
    });
    this.ws = ws;
    const conn = ++this.connections;
    this.acking = 0;
    let openedAt = 0;
    let statsTimer: NodeJS.Timeout | null = null;
    let heartbeatTimer: NodeJS.Timeout | null = null;
    let idleTimer: NodeJS.Timeout | null = null;
    let fullStats = true;
    let concurrentUse = false;
    let relayStats = false;
    let nodeHealth = false;
    /** The control plane asked this agent to hold its stats (`stats_wait`, issue 33). */
    let statsHeld = false;
    /** The hello said `resume`: the agent kept its state (and its last readings) across connections. */
    let resumed = false;

    const send = (msg: AgentToServer): void => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(msg));
    };

    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      o.log.error(
        status === 401 || status === 403
          ? 'el plano de control rechazó el token del agente'
          : 'respuesta inesperada del plano de control',
        { status },
      );
      res.resume();
      ws.terminate();
    });

    ws.on('open', () => {
      openedAt = Date.now();
      o.log.info('conectado al plano de control', { url: this.url });
      this.emit('open');
      idleTimer = setTimeout(() => {
        o.log.warn('sin noticias del plano de control: se reconecta', { idle_ms: o.idleTimeoutMs ?? 45_000 });
        ws.terminate();
      }, o.idleTimeoutMs ?? 45_000);
      heartbeatTimer = setInterval(
        () => send({ type: 'heartbeat', at: Date.now() }),
        o.heartbeatMs ?? 15_000,
      );
      void o.handler.hello().then(
        (h) => {
          resumed = h.resume === true;
          send({
            type: 'hello',
            protocol: AGENT_PROTOCOL_VERSION,
            agent_version: AGENT_VERSION,
            hostname: (o.hostname ?? hostname()).slice(0, 255),
            revision: h.revision,
            backend: h.backend,
            snapshot_parts: true,
            node_version: process.versions.node,
            upgrade: true,
            stats_wait: true,
            room_deltas: true,
            stats_stored: true,
            ...(h.resume ? { resume: true } : {}),
            ...(h.rolled_back ? { rolled_back: h.rolled_back } : {}),
          });
        },
        (err: unknown) => {
          o.log.error('no se pudo preparar el hello', { error: errorMessage(err) });
          ws.terminate();
        },
      );
    });

    const startStats = (intervalMs: number) => {
      if (statsTimer) clearInterval(statsTimer);
      statsTimer = setInterval(() => {
        // Held: no pass at all. Counters are cumulative and the next pass lists every peer changed
        // since the last one sent, so nothing is lost and nothing piles up here either.
        if (this.statsBusy || statsHeld || ws.bufferedAmount > MAX_BUFFERED) return;
        this.statsBusy = true;
        const at = Date.now();
        const passes = this.storedPasses;
        const acking = this.acking === conn;
        // The connection's first pass lists every peer, unless this is a resumed connection whose
        // control plane acknowledges stored reports and the agent knows which of its reports were
        // stored: then only the peers last reported in a pass not wholly stored, and what moved.
        const resendFrom = fullStats && acking && resumed ? passes.resendFrom() : null;
        const full = fullStats && resendFrom === null;
        let sent = 0;
        const emit = (peers: AgentPeerStats[]) => {
          sent++;
          // Counted even when the socket is gone: a frame never sent is never stored either.
          if (acking) passes.sent(at, conn, full);
          send({ type: 'stats', at, peers });
        };
        o.handler
          .collectStats(!full, emit, resendFrom === null ? { at } : { at, resendFrom })
          .then((rest) => {
            if (!rest) return;
            for (let i = 0; i < rest.length; i += AGENT_STATS_CHUNK_PEERS)
              emit(rest.slice(i, i + AGENT_STATS_CHUNK_PEERS));
            // An empty report still goes out: the control plane learns the agent is reporting.
            if (sent === 0) emit([]);
            if (fullStats) passes.firstPassSent(at, conn);
            fullStats = false;
            const flagged = concurrentUse ? (o.handler.concurrentUse?.(Date.now()) ?? []) : [];
            for (let i = 0; i < flagged.length; i += AGENT_STATS_CHUNK_PEERS)
              send({ type: 'concurrent_use', at, peers: flagged.slice(i, i + AGENT_STATS_CHUNK_PEERS) });
            const relay =
              relayStats && o.handler.relayStats
                ? o.handler.relayStats().then((r) => send({ type: 'relay_stats', at, ...r }))
                : Promise.resolve();
            if (!nodeHealth || !o.handler.nodeHealth) return relay;
            const health = o.handler.nodeHealth;
            return relay.then(() => health(at)).then((h) => h && send({ type: 'node_health', at, ...h }));
          })
          .catch((err: unknown) => o.log.debug('estadísticas no disponibles', { error: errorMessage(err) }))
          .finally(() => {
            this.statsBusy = false;
          });
      }, intervalMs);
    };

    ws.on('message', (data, isBinary) => {
      idleTimer?.refresh();
      const text = isBinary ? Buffer.from(data as Buffer).toString('utf8') : data.toString();
      void this.receive(text, send, {
        onWelcome: (statsIntervalMs, concurrent, relay, health, statsStored) => {
          this.emit('welcome');
          concurrentUse = concurrent;
          relayStats = relay;
          nodeHealth = health;
          // No acknowledgements will come: what this connection's reports become is unknown, and
          // the next connection's first report lists every peer again.
          if (statsStored) this.acking = conn;
          else this.storedPasses.forget();
          startStats(statsIntervalMs);
        },
        onStatsStored: (at) => {
          if (this.acking === conn) this.storedPasses.stored(at, conn);
        },
        onProtocolMismatch: () => ws.close(4000, 'versión de protocolo incompatible'),
        onStatsWait: (wait) => {
          statsHeld = wait;
        },
      });
    });

    ws.on('error', (err) => {
      o.log.warn('error de conexión con el plano de control', { error: err.message });
    });

    ws.on('close', (code) => {
      // Parts of a snapshot never continue on another connection: the next one gets a new one.
      this.pendingSnapshot = null;
      if (statsTimer) clearInterval(statsTimer);
      if (heartbeatTimer) clearInterval(heartbeatTimer);
      if (idleTimer) clearTimeout(idleTimer);
      if (this.ws === ws) this.ws = null;
      const upFor = openedAt ? Date.now() - openedAt : 0;
      if (openedAt) {
        o.log.warn('desconectado del plano de control', { code, up_ms: upFor });
        this.emit('close', code);
      }
      if (openedAt && upFor >= (o.stableMs ?? 60_000)) this.attempts = 0;
      this.scheduleReconnect();
    });
  }

  private scheduleReconnect(): void {
    if (this.stopped) return;
    // The first try within 0.25–0.5 s: a panel instance that died leaves its agents to the others,
    // and a resumed connection costs them a delta, not a snapshot (hello's `resume`, issue 33).
    const initial = this.opts.backoffInitialMs ?? 500;
    const max = this.opts.backoffMaxMs ?? 30_000;
    const ceiling = Math.min(max, initial * 2 ** this.attempts);
    // Jitter in [50 %, 100 %]: a fleet of agents cut off together does not come back in lockstep.
    const delay = Math.round(ceiling * (0.5 + Math.random() / 2));
    this.attempts++;
    this.opts.log.info('reconexión programada', { delay_ms: delay, attempt: this.attempts });
    this.emit('reconnecting', delay);
    this.reconnectTimer = setTimeout(() => this.connect(), delay);
  }

  /** Applies a whole snapshot (received at once or assembled from its parts) and acks it. */
  private async applySnapshot(snapshot: ServerSnapshot, send: (msg: AgentToServer) => void): Promise<void> {
    const log = this.opts.log;
    log.info('snapshot recibido', {
      revision: snapshot.revision,
      peers: snapshot.peers.length,
      room_pairs: snapshot.room_pairs?.length ?? 0,
    });
    const { revision } = snapshot;
    try {
      const applied = await this.opts.handler.applySnapshot(snapshot);
      if (applied !== null) send({ type: 'ack', revision: applied });
    } catch (err) {
      log.error('snapshot no aplicado', { revision, error: errorMessage(err) });
    }
  }

  /**
   * Handles one frame: the exact path a websocket message takes, exposed so the benchmark can time
   * "delta received → UAPI write done". Resolves after the apply and its ack.
   */
  async receive(
    text: string,
    send: (msg: AgentToServer) => void,
    hooks: {
      onWelcome?: (
        statsIntervalMs: number,
        concurrentUse: boolean,
        relayStats: boolean,
        nodeHealth: boolean,
        statsStored: boolean,
      ) => void;
      onProtocolMismatch?: () => void;
      onStatsWait?: (wait: boolean) => void;
      onStatsStored?: (at: number[]) => void;
    } = {},
  ): Promise<void> {
    const log = this.opts.log;
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      log.warn('mensaje rechazado', { error: parsed.error });
      send({ type: 'error', message: parsed.error });
      return;
    }
    const msg = parsed.message;
    switch (msg.type) {
      case 'welcome':
        if (msg.protocol !== AGENT_PROTOCOL_VERSION) {
          const error = `versión de protocolo ${msg.protocol} no soportada (el agente habla ${AGENT_PROTOCOL_VERSION})`;
          log.error(error);
          send({ type: 'error', message: error });
          hooks.onProtocolMismatch?.();
          return;
        }
        log.info('bienvenida del plano de control', {
          server_id: msg.server_id,
          stats_interval_ms: msg.stats_interval_ms,
        });
        hooks.onWelcome?.(
          msg.stats_interval_ms,
          msg.concurrent_use === true,
          msg.relay_stats === true,
          msg.node_health === true,
          msg.stats_stored === true,
        );
        return;
      case 'snapshot':
        if ((msg.parts ?? 1) > 1) {
          // More peers follow in `snapshot_peers`: only the validated peers accumulate.
          this.pendingSnapshot = { snapshot: msg, next: 2 };
          return;
        }
        this.pendingSnapshot = null;
        return this.applySnapshot(msg, send);
      case 'snapshot_peers': {
        const pending = this.pendingSnapshot;
        if (!pending || pending.snapshot.revision !== msg.revision || pending.next !== msg.part) {
          this.pendingSnapshot = null;
          log.warn('parte de snapshot fuera de orden: se pide uno nuevo', {
            revision: msg.revision,
            part: msg.part,
          });
          send({ type: 'resync' });
          return;
        }
        for (const p of msg.peers) pending.snapshot.peers.push(p);
        pending.next++;
        if (pending.next <= (pending.snapshot.parts ?? 1)) return;
        this.pendingSnapshot = null;
        return this.applySnapshot(pending.snapshot, send);
      }
      case 'delta': {
        log.debug('delta recibido', {
          revision: msg.revision,
          upsert: msg.upsert.length,
          remove: msg.remove.length,
        });
        try {
          const revision = await this.opts.handler.applyDelta(msg);
          if (revision === null) {
            log.warn('delta sin snapshot previo: se pide uno', { revision: msg.revision });
            send({ type: 'resync' });
          } else send({ type: 'ack', revision });
        } catch (err) {
          log.error('delta no aplicado', { revision: msg.revision, error: errorMessage(err) });
        }
        return;
      }
      case 'upgrade': {
        const upgrade = this.opts.handler.upgrade;
        log.info('actualización pedida por el plano de control', { version: msg.version });
        if (!upgrade) {
          send({
            type: 'upgrade_result',
            version: msg.version,
            status: 'failed',
            message: 'este agente no puede actualizarse solo',
          });
          return;
        }
        // Not awaited: the download must not hold up deltas arriving meanwhile.
        void upgrade(msg, send).catch((err: unknown) =>
          send({
            type: 'upgrade_result',
            version: msg.version,
            status: 'failed',
            message: errorMessage(err),
          }),
        );
        return;
      }
      case 'stats_wait':
        log.debug(
          msg.wait ? 'el plano de control pide esperar con las estadísticas' : 'estadísticas de nuevo',
          {},
        );
        hooks.onStatsWait?.(msg.wait);
        return;
      case 'stats_stored':
        hooks.onStatsStored?.(msg.at);
        return;
      case 'heartbeat':
        return;
      case 'error':
        log.warn('el plano de control informa un error', { message: msg.message });
        return;
    }
  }
}
