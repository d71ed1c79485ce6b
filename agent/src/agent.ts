/**
 * Puts the pieces together: backend (interface), reconciler (desired → live), connection (control
 * plane), optional state dir. Used by main.ts, the integration tests and the benchmark.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Backend } from './backend.ts';
import type { AgentConfig } from './config.ts';
import { AGENT_STATS_CHUNK_PEERS, type AgentToServer, type ServerUpgrade } from '@vpn/contracts/agent';
import { AgentConnection, type AgentHandler, type ConnectionOptions } from './connection.ts';
import { ConcurrentUseDetector } from './concurrent.ts';
import { NodeHealth } from './health/nodeHealth.ts';
import { createRunner } from './exec.ts';
import { removeFirewall } from './firewall.ts';
import { ifbName } from './shaping/shaper.ts';
import { removeRelay } from './relay/relay.ts';
import type { Logger } from './log.ts';
import { Reconciler } from './reconcile.ts';
import { createStateWriter, loadState } from './state.ts';
import { beginTrial, clearReport, type RollbackReport } from './rollback.ts';
import { performUpgrade } from './upgrade.ts';
import { AGENT_FILE, AGENT_VERSION } from './version.ts';

export interface AgentOptions extends Omit<AgentConfig, 'logLevel'> {
  log: Logger;
  /** Connection timings (tests shorten them). */
  timings?: Pick<
    ConnectionOptions,
    'heartbeatMs' | 'idleTimeoutMs' | 'backoffInitialMs' | 'backoffMaxMs' | 'stableMs'
  >;
  healthIntervalMs?: number;
  /** An error the agent cannot recover from by retrying (a foreign link in the way). */
  onFatal?: (err: Error) => void;
  /** The agent file was replaced by an upgrade: restart into it (main.ts). */
  onRestart?: () => void;
  /** The file an upgrade replaces (default: the bundle this agent runs from; null from sources). */
  agentFile?: string | null;
  /**
   * This agent put back its previous file after the upgraded one crashed (rollback.ts): said in
   * every hello until the control plane welcomes one, then forgotten.
   */
  rolledBack?: RollbackReport | null;
}

export class Agent {
  readonly backend: Backend;
  readonly reconciler: Reconciler;
  readonly connection: AgentConnection;
  /** Peers whose endpoint alternates between addresses (issue 19), fed by the stats pass. */
  readonly concurrent = new ConcurrentUseDetector();
  /** The node's health after each stats pass (issue 34). */
  private readonly health = new NodeHealth();
  private readonly state: ReturnType<typeof createStateWriter> | null;
  private upgrading = false;
  private rolledBack: RollbackReport | null = null;

  constructor(private readonly opts: AgentOptions) {
    // The state dir holds the last revision and wireguard-go's log: make it on first run.
    if (opts.stateDir) mkdirSync(opts.stateDir, { recursive: true, mode: 0o700 });
    const runner = createRunner(opts.netns ?? null);
    this.state = opts.stateDir ? createStateWriter(opts.stateDir) : null;
    this.backend = new Backend({
      runner,
      log: opts.log,
      prefer: opts.backend,
      wireguardGo: opts.wireguardGo,
      wireguardGoLog: opts.stateDir ? join(opts.stateDir, 'wireguard-go.log') : undefined,
      onDaemonExit: () => this.reconciler.requestRepair('wireguard-go terminó'),
      replaceForeignLink: opts.replaceForeignLink,
    });
    this.reconciler = new Reconciler({
      backend: this.backend,
      log: opts.log,
      interfaceName: opts.interfaceName,
      uplink: opts.uplink,
      firewall: opts.firewall,
      hostTcpPorts: opts.hostTcpPorts,
      repairIntervalMs: opts.repairIntervalMs,
      healthIntervalMs: opts.healthIntervalMs,
      initialRevision: opts.stateDir ? loadState(opts.stateDir).revision : 0,
      onApplied: (revision) => this.state?.write({ revision }),
      onApplyFailed: (revision, message) =>
        this.connection.notify({ type: 'apply_error', revision, message }),
      // Sent before the delta's ack, on the same socket: the control plane counts it first.
      onFinalStats: (peers) => {
        const at = Date.now();
        for (let i = 0; i < peers.length; i += AGENT_STATS_CHUNK_PEERS)
          this.connection.notify({ type: 'stats', at, peers: peers.slice(i, i + AGENT_STATS_CHUNK_PEERS) });
      },
      onFatal: opts.onFatal,
      concurrent: this.concurrent,
    });
    const r = this.reconciler;
    const handler: AgentHandler = {
      hello: async () => ({
        revision: r.revision,
        resume: r.holdsApplied,
        backend: await r.backendKind(),
        ...(this.rolledBack
          ? { rolled_back: { from: this.rolledBack.from, reason: this.rolledBack.reason } }
          : {}),
      }),
      applySnapshot: async (s) => (await r.applySnapshot(s))?.revision ?? null,
      applyDelta: async (d) => (await r.applyDelta(d))?.revision ?? null,
      collectStats: (onlyChanged, emit, pass) => r.collectStats(onlyChanged, emit, pass),
      upgrade: (msg, send) => this.upgrade(msg, send),
      concurrentUse: (now) => this.concurrent.take(now),
      relayStats: () => r.relayStats(),
      nodeHealth: (at) => this.health.sample(r.interfaceTotals(at), at),
    };
    this.connection = new AgentConnection({
      url: opts.url,
      token: opts.token,
      handler,
      log: opts.log,
      ...(opts.reconnectMaxMs ? { backoffMaxMs: opts.reconnectMaxMs } : {}),
      ...opts.timings,
    });
    this.rolledBack = opts.rolledBack ?? null;
    this.connection.on('welcome', () => {
      // The welcome answers a hello that carried the report: the control plane has recorded it.
      if (!this.rolledBack) return;
      this.rolledBack = null;
      if (this.file) clearReport(this.file);
    });
  }

  private get file(): string | null {
    return this.opts.agentFile !== undefined ? this.opts.agentFile : AGENT_FILE;
  }

  /** Downloads, checks and installs the panel's agent file, then asks main.ts to restart. */
  private async upgrade(msg: ServerUpgrade, send: (m: AgentToServer) => void): Promise<void> {
    const { log } = this.opts;
    const fail = (message: string) => {
      log.error('actualización fallida: sigue funcionando el archivo actual', { error: message });
      send({ type: 'upgrade_result', version: msg.version, status: 'failed', message });
    };
    if (this.upgrading) return fail('ya hay una actualización en curso');
    const restart = this.opts.onRestart;
    if (!restart) return fail('este proceso no sabe reiniciarse para cargar un archivo nuevo');
    this.upgrading = true;
    try {
      const outcome = await performUpgrade(msg, {
        url: this.opts.url,
        token: this.opts.token,
        file: this.file,
      });
      if (!outcome.ok) return fail(outcome.message);
      // Its first minute is watched: a crash in it puts this file back (rollback.ts, main.ts).
      if (this.file) {
        try {
          beginTrial(this.file, AGENT_VERSION, msg.version);
        } catch (err) {
          log.warn('no se pudo preparar la vuelta atrás automática', { error: String(err) });
        }
      }
      log.info('agente actualizado: se reinicia con el archivo nuevo (la interfaz sigue funcionando)', {
        version: msg.version,
      });
      send({ type: 'upgrade_result', version: msg.version, status: 'restarting' });
      restart();
    } finally {
      this.upgrading = false;
    }
  }

  start(): void {
    this.reconciler.start();
    this.connection.start();
  }

  /**
   * Stops the agent. Without `teardown` the interface, its daemon and the firewall table stay as
   * they are, so peers keep their tunnels until the next agent takes over.
   */
  async stop(options: { teardown?: boolean } = {}): Promise<void> {
    await this.connection.stop();
    await this.reconciler.close();
    const name = this.backend.interfaceName;
    await this.backend.stop(options);
    if (options.teardown && name && this.opts.firewall !== false) {
      await removeFirewall(this.backend.runner, name).catch(() => undefined);
      await removeRelay(this.backend.runner, name).catch(() => undefined);
      // The interface's qdiscs went with it; the ifb device of its incoming speeds (issue 35) did not.
      await this.backend.runner.run('ip', ['link', 'del', ifbName(name)]).catch(() => undefined);
    }
    this.state?.flush();
  }
}
