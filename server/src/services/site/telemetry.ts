import { sql } from 'drizzle-orm';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { Db } from '../../db/client.ts';
import { compareVersions } from '@vpn/contracts';

/** Each server's peers by state: the cluster's count (recordPeerCounts) and an instance's own. */
const COUNTS_BY_SERVER = sql`
  select server_id,
         count(*) filter (where active) as active,
         count(*) filter (where not active) as disabled,
         count(*) filter (where concurrent_use_seen_at is not null) as concurrent,
         count(*) filter (where active and (speed_down_kbit is not null
           or speed_up_kbit is not null or speed_reduced_at is not null)) as shaped,
         count(*) filter (where active and speed_reduced_at is not null) as reduced
    from peers where server_id is not null group by server_id`;

/**
 * The control plane's Prometheus metrics (`/metrics`, plugins/prometheus.ts). One registry per app
 * instance (tests build several in one process). Counters are bumped where things happen (HTTP
 * hook, scheduler, mailer); fleet and invoice gauges are read from the database at scrape time, so
 * every instance reports the same fleet and a restart loses nothing. Label values are bounded:
 * route patterns (never raw URLs, which carry tokens), status codes, server ids and names,
 * gateways and invoice states. Over 400 lines: the metrics' declarations are most of it, and the
 * per-server peer counts (one count per period for the cluster, migration 0041) belong to them.
 */
export class Telemetry {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'vpn_http_request_duration_seconds',
    help: 'HTTP requests by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly schedulerRuns = new Counter({
    name: 'vpn_scheduler_runs_total',
    help: 'Scheduler ticks run (expiry, busy timeouts, invoice delivery, pruning)',
    registers: [this.registry],
  });

  readonly schedulerFailures = new Counter({
    name: 'vpn_scheduler_failures_total',
    help: 'Scheduler ticks that ended in an error',
    registers: [this.registry],
  });

  readonly mailsSent = new Counter({
    name: 'vpn_mails_sent_total',
    help: 'Mails accepted by the SMTP server',
    registers: [this.registry],
  });

  readonly mailsFailed = new Counter({
    name: 'vpn_mails_failed_total',
    help: 'Mails the SMTP server refused or could not be reached for',
    registers: [this.registry],
  });

  private readonly agentsConnected = new Gauge({
    name: 'vpn_agents_connected',
    help: 'Node agents connected to this control-plane instance',
    registers: [this.registry],
  });

  /** Building one delta for an agent, from its changes to the message (issue 33: a room join ≤ 20 ms). */
  readonly agentUpdateBuild = new Histogram({
    name: 'vpn_agent_update_build_seconds',
    help: 'Time to build one delta (peers, room pairs) for an agent, database reads included',
    // Fine around the 20 ms target: bench:fleet reads its percentiles as bucket bounds.
    buckets: [0.001, 0.002, 0.005, 0.01, 0.015, 0.02, 0.025, 0.03, 0.04, 0.05, 0.1, 0.2, 0.5, 1, 2],
    registers: [this.registry],
  });

  /**
   * From a bus event's publish on one instance to its notification's arrival on this one (PostgreSQL
   * LISTEN/NOTIFY; issue 33: p99 ≤ 20 ms). Every notifying commit is serialized cluster-wide, so
   * this is the first figure to watch before adding instances (docs/scale.md).
   */
  readonly busNotifyLag = new Histogram({
    name: 'vpn_bus_notify_lag_seconds',
    help: 'Time from a bus event published by any instance to its notification arriving at this one',
    buckets: [
      0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.1, 0.25, 0.5, 1, 2.5,
    ],
    registers: [this.registry],
  });

  private readonly statsQueued = new Gauge({
    name: 'vpn_agent_stats_queued_reports',
    help: "Agents' stats reports received by this instance and waiting to be stored (at most 4 per agent)",
    registers: [this.registry],
  });

  private readonly snapshotsWaiting = new Gauge({
    name: 'vpn_agent_snapshots_waiting',
    help: 'Agents waiting for this instance to build their snapshot (it builds two at a time)',
    registers: [this.registry],
  });

  private readonly serverConnected = new Gauge({
    name: 'vpn_server_agent_connected',
    help: 'Per server: 1 while its agent is connected to this instance (max over instances: connected at all)',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly websockets = new Gauge({
    name: 'vpn_websocket_connections',
    help: 'Open websockets on this instance: browsers (push) and agents',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });

  private readonly serverPeers = new Gauge({
    name: 'vpn_server_peers',
    help: 'Peers assigned to each VPN server, by state (active or disabled)',
    labelNames: ['server_id', 'server', 'state'] as const,
    registers: [this.registry],
  });

  private readonly serverRevision = new Gauge({
    name: 'vpn_server_revision',
    help: 'Desired-state revision of each VPN server',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverApplied = new Gauge({
    name: 'vpn_server_applied_revision',
    help: 'Revision the server’s agent last acknowledged as applied',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverLag = new Gauge({
    name: 'vpn_server_revision_lag',
    help: 'Revisions not yet applied by the server’s agent (desired minus applied)',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverLastSeen = new Gauge({
    name: 'vpn_server_last_seen_timestamp_seconds',
    help: 'When the server’s agent was last heard from (Unix time; 0 = never)',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverAgentInfo = new Gauge({
    name: 'vpn_server_agent_info',
    help: 'Per server with an agent seen at least once: 1, labelled with the agent version, its Node.js version and whether it is older than the panel’s agent file (outdated="true")',
    labelNames: ['server_id', 'server', 'version', 'node_version', 'outdated'] as const,
    registers: [this.registry],
  });

  private readonly serverConcurrentUse = new Gauge({
    name: 'vpn_server_concurrent_use_peers',
    help: 'Peers of the server flagged in use on more than one device (issue 19: their endpoint alternates between addresses)',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverSpeedPeers = new Gauge({
    name: 'vpn_server_speed_peers',
    help: 'Switched-on peers of the server its agent shapes (issue 35): state="shaped" with a speed limit (their plan sells a speed, or they are reduced), state="reduced" held at their plan\'s reduced speed (out of data on a plan that reduces, or within the grace after expiry)',
    labelNames: ['server_id', 'server', 'state'] as const,
    registers: [this.registry],
  });

  private readonly serverRelayActive = new Gauge({
    name: 'vpn_server_discovery_relay_active',
    help: 'Per server whose agent reported its game-discovery relay (issue 25): 1 while its rules are in place, 0 when switched off',
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverRelayFailing = new Gauge({
    name: 'vpn_server_discovery_relay_failing',
    help: "Per server whose agent reported its game-discovery relay: 1 while nft refuses the relay's rules (issue 31; the reason is in Servidores and the agent's log; peers are applied anyway), else 0",
    labelNames: ['server_id', 'server'] as const,
    registers: [this.registry],
  });

  private readonly serverRelayDatagrams = new Gauge({
    name: 'vpn_server_discovery_datagrams_total',
    help: 'Game-discovery datagrams (broadcast, multicast) of room members, relayed to the room or dropped by the limits (size, denied port, sender rate); counted by the agent since it started, so it resets when the agent restarts (use rate())',
    labelNames: ['server_id', 'server', 'outcome'] as const,
    registers: [this.registry],
  });

  private readonly invoiceCount = new Gauge({
    name: 'vpn_invoices',
    help: 'Invoices by gateway and state',
    labelNames: ['gateway', 'state'] as const,
    registers: [this.registry],
  });

  private readonly invoiceAmount = new Gauge({
    name: 'vpn_invoices_amount',
    help: 'Sum of invoice amounts by gateway, state and currency',
    labelNames: ['gateway', 'state', 'currency'] as const,
    registers: [this.registry],
  });

  /** This instance's own per-server peer counts and when they were read (see PEER_COUNTS_MAX_AGE_MS). */
  private counted: { at: number; counts: Promise<Map<number, PeerCounts>> } | null = null;

  private readonly countsMaxAge: number;
  private readonly now: () => number;

  /**
   * How often the scheduler counts peers for the whole cluster into `server_peer_counts`
   * (recordPeerCounts), 0 when it does not: /metrics off (no METRICS_TOKEN), or counts live at
   * every scrape (METRICS_PEER_COUNTS_SECONDS=0).
   */
  readonly peerCountsEveryMs: number;

  constructor(
    opts: {
      processMetrics?: boolean;
      peerCountsMaxAgeMs?: number;
      now?: () => number;
      /** The scheduler counts for the cluster (site/index.ts: when /metrics is served). */
      sharedPeerCounts?: boolean;
    } = {},
  ) {
    this.countsMaxAge = opts.peerCountsMaxAgeMs ?? PEER_COUNTS_MAX_AGE_MS;
    this.peerCountsEveryMs = opts.sharedPeerCounts ? this.countsMaxAge : 0;
    this.now = opts.now ?? Date.now;
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry, prefix: 'vpn_' });
  }

  /**
   * Counts every server's peers into `server_peer_counts`, for every instance's scrapes (issue 33).
   * The scheduler runs it on one instance per period (its `scheduler:peer-counts` lease): at
   * 1,000,000 peers the count reads all of `peers` (~143,000 buffers, ~1.4 s of PostgreSQL), once
   * for the cluster instead of once per instance. Count and write are one statement; every server
   * gets a row (0 when it has no peers any more), all with the same `counted_at`. Without JIT: the
   * plan's cost passes jit_above_cost at a million peers, and compiling its expressions (8
   * functions a process) cost more than it saved (EXPLAIN ANALYZE, docs/decisions.md).
   */
  async recordPeerCounts(db: Db): Promise<void> {
    await db.transaction(async (tx) => {
      await tx.execute(sql`select set_config('jit', 'off', true)`);
      await tx.execute(sql`
        with counted as (${COUNTS_BY_SERVER})
        insert into server_peer_counts (server_id, active, disabled, concurrent, shaped, reduced, counted_at)
        select s.id, coalesce(c.active, 0), coalesce(c.disabled, 0), coalesce(c.concurrent, 0),
               coalesce(c.shaped, 0), coalesce(c.reduced, 0), now()
          from servers s left join counted c on c.server_id = s.id
        on conflict (server_id) do update
          set active = excluded.active, disabled = excluded.disabled, concurrent = excluded.concurrent,
              shaped = excluded.shaped, reduced = excluded.reduced, counted_at = excluded.counted_at`);
    });
  }

  /**
   * Per-server peer counts: the cluster's (`server_peer_counts`, 100 rows at bench:fleet's size)
   * while they are fresh; else (no scheduler, a fresh install, the counting instance gone for three
   * periods) this instance counts itself, at most once per countsMaxAge.
   */
  private async peerCounts(db: Db): Promise<Map<number, PeerCounts>> {
    if (this.countsMaxAge > 0) {
      const staleMs = 3 * Math.max(this.countsMaxAge, SCHEDULER_TICK_MS);
      const shared = rowsOf<CountRow>(
        await db.execute(sql`
          select server_id, active, disabled, concurrent, shaped, reduced from server_peer_counts
           where counted_at > now() - ${staleMs}::double precision * interval '1 millisecond'`),
      );
      if (shared.length > 0) return countsOf(shared);
    }
    return this.ownPeerCounts(db);
  }

  /** This instance's count, read at most once per countsMaxAge (concurrent scrapes share a read). */
  private ownPeerCounts(db: Db): Promise<Map<number, PeerCounts>> {
    const at = this.now();
    if (this.counted && at - this.counted.at < this.countsMaxAge) return this.counted.counts;
    const counts = db.execute(COUNTS_BY_SERVER).then((result) => countsOf(rowsOf<CountRow>(result)));
    this.counted = { at, counts };
    // A failed read is not kept: the next scrape tries again.
    counts.catch(() => {
      if (this.counted?.counts === counts) this.counted = null;
    });
    return counts;
  }

  /** The scrape: live counts from this instance, fleet and invoices from the database, as text. */
  async scrape(
    db: Db,
    live: {
      agents: number;
      browserSockets: number;
      /** Stats reports waiting to be stored on this instance. */
      statsQueued?: number;
      /** Agents waiting for their snapshot on this instance. */
      snapshotsWaiting?: number;
      connectedServers?: number[];
      /** The agent version this panel serves (agent_info's `outdated`). */
      latestAgentVersion?: string | null;
    },
  ): Promise<{ contentType: string; body: string }> {
    this.agentsConnected.set(live.agents);
    this.statsQueued.set(live.statsQueued ?? 0);
    this.snapshotsWaiting.set(live.snapshotsWaiting ?? 0);
    this.websockets.set({ kind: 'browser' }, live.browserSockets);
    this.websockets.set({ kind: 'agent' }, live.agents);

    type FleetRow = {
      id: number;
      name: string;
      revision: string | number;
      acked: string | number;
      last_seen: string | number | null;
      agent_version: string | null;
      agent_node_version: string | null;
      relay_active: boolean | null;
      relay_failing: boolean;
      relay_relayed: string | number;
      relay_dropped: string | number;
    };
    const fleet = await db.execute(sql`
      select s.id, s.name, s.revision, s.acked_revision as acked,
             extract(epoch from s.last_seen_at) as last_seen,
             s.agent_version, s.agent_node_version,
             s.relay_active, s.relay_error is not null as relay_failing, s.relay_relayed, s.relay_dropped
        from servers s order by s.id`);
    const counts = await this.peerCounts(db);
    for (const g of [
      this.serverPeers,
      this.serverRevision,
      this.serverApplied,
      this.serverLag,
      this.serverLastSeen,
      this.serverConnected,
      this.serverAgentInfo,
      this.serverConcurrentUse,
      this.serverSpeedPeers,
      this.serverRelayActive,
      this.serverRelayFailing,
      this.serverRelayDatagrams,
    ])
      g.reset();
    const here = new Set(live.connectedServers ?? []);
    for (const s of rowsOf<FleetRow>(fleet)) {
      const labels = { server_id: String(s.id), server: s.name };
      const n = counts.get(Number(s.id)) ?? NO_PEERS;
      const revision = Number(s.revision);
      const acked = Number(s.acked);
      this.serverPeers.set({ ...labels, state: 'active' }, n.active);
      this.serverPeers.set({ ...labels, state: 'disabled' }, n.disabled);
      this.serverRevision.set(labels, revision);
      this.serverApplied.set(labels, acked);
      this.serverLag.set(labels, Math.max(0, revision - acked));
      this.serverLastSeen.set(labels, s.last_seen === null ? 0 : Number(s.last_seen));
      this.serverConnected.set(labels, here.has(Number(s.id)) ? 1 : 0);
      this.serverConcurrentUse.set(labels, n.concurrent);
      this.serverSpeedPeers.set({ ...labels, state: 'shaped' }, n.shaped);
      this.serverSpeedPeers.set({ ...labels, state: 'reduced' }, n.reduced);
      if (s.relay_active !== null) {
        this.serverRelayActive.set(labels, s.relay_active ? 1 : 0);
        this.serverRelayFailing.set(labels, s.relay_failing ? 1 : 0);
        this.serverRelayDatagrams.set({ ...labels, outcome: 'relayed' }, Number(s.relay_relayed));
        this.serverRelayDatagrams.set({ ...labels, outcome: 'dropped' }, Number(s.relay_dropped));
      }
      if (s.agent_version !== null) {
        const latest = live.latestAgentVersion ?? null;
        const outdated = latest !== null && compareVersions(s.agent_version, latest) < 0;
        this.serverAgentInfo.set(
          {
            ...labels,
            version: s.agent_version,
            node_version: s.agent_node_version ?? '',
            outdated: String(outdated),
          },
          1,
        );
      }
    }

    type InvoiceRow = {
      gateway: string;
      status: string;
      currency: string;
      n: string | number;
      amount: string | number;
    };
    const invoices = await db.execute(sql`
      select gateway, status, currency, count(*) as n, coalesce(sum(amount), 0) as amount
        from invoices group by gateway, status, currency`);
    this.invoiceCount.reset();
    this.invoiceAmount.reset();
    for (const r of rowsOf<InvoiceRow>(invoices)) {
      this.invoiceCount.inc({ gateway: r.gateway, state: r.status }, Number(r.n));
      this.invoiceAmount.set({ gateway: r.gateway, state: r.status, currency: r.currency }, Number(r.amount));
    }

    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Peers of one server by state, as the fleet gauges show them. */
interface PeerCounts {
  active: number;
  disabled: number;
  concurrent: number;
  shaped: number;
  reduced: number;
}
const NO_PEERS: PeerCounts = { active: 0, disabled: 0, concurrent: 0, shaped: 0, reduced: 0 };

type CountRow = {
  server_id: number;
  active: string | number;
  disabled: string | number;
  concurrent: string | number;
  shaped: string | number;
  reduced: string | number;
};
const countsOf = (rows: CountRow[]): Map<number, PeerCounts> =>
  new Map(
    rows.map((r) => [
      Number(r.server_id),
      {
        active: Number(r.active),
        disabled: Number(r.disabled),
        concurrent: Number(r.concurrent),
        shaped: Number(r.shaped),
        reduced: Number(r.reduced),
      },
    ]),
  );

/** The scheduler's pace (scheduler.ts): the cluster's counts are at most this often, whatever the period. */
const SCHEDULER_TICK_MS = 5_000;

/**
 * How long the per-server peer counts of a scrape are reused (METRICS_PEER_COUNTS_SECONDS), and how
 * often the scheduler counts them for the cluster (Telemetry.recordPeerCounts). Counting them reads every peer row:
 * at 1,000,000 peers 1.6 s of PostgreSQL per scrape (bench:fleet, load 8), for each instance at
 * each scrape, which was most of the database's CPU beside 2,400 stats readings a second. The
 * counts move slowly (peers bought, expired, moved); revisions, lag, last contact and the relay are
 * read at every scrape. Since migration 0041 one instance counts for all of them each period.
 */
export const PEER_COUNTS_MAX_AGE_MS = 60_000;

/** Both drivers (node-postgres, PGlite through Drizzle) answer `{ rows }`. */
const rowsOf = <T>(result: unknown): T[] => (result as { rows: T[] }).rows;
