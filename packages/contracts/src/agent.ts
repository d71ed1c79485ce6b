import { z } from './zod.ts';

/**
 * The node-agent protocol (versioned). The agent dials out to the control plane over a websocket
 * (`GET /api/agent/ws`, header `Authorization: Bearer <agent token>`), says `hello`, receives a full
 * `snapshot` of its server's desired state, then `delta`s with increasing revisions. It applies each
 * one to the WireGuard interface and answers `ack` with the revision. It reports `stats` every few
 * seconds; both sides send `heartbeat`. Any message that does not parse is refused (the receiver
 * answers `error` and ignores it).
 *
 * Over 400 lines: every message of the protocol, both directions, in one file that both sides read.
 */
export const AGENT_PROTOCOL_VERSION = 1;

const Key = z.string().regex(/^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/, 'clave WireGuard no válida');
const Cidr = z.string().regex(/^[0-9a-fA-F:.]+\/\d{1,3}$/, 'CIDR no válido');

/** One peer as the interface must carry it. */
export const AgentPeer = z.object({
  public_key: Key,
  preshared_key: Key,
  allowed_ips: z.array(Cidr).min(1),
  /** Only for mesh links to other VPN servers (rooms across servers): where that server listens. */
  endpoint: z.string().max(300).optional(),
  persistent_keepalive: z.number().int().min(0).max(65535).optional(),
  /**
   * Issue 35: the most the peer may receive (`down_kbit`, traffic to it) and send (`up_kbit`), in
   * kbit/s (10^3 bit/s); absent = unlimited. The agent shapes the first IPv4 /32 of `allowed_ips`
   * (agent/src/shaping). Older agents ignore the fields (unknown keys are stripped).
   */
  down_kbit: z.number().int().min(8).max(100_000_000).optional(),
  up_kbit: z.number().int().min(8).max(100_000_000).optional(),
});
export type AgentPeer = z.infer<typeof AgentPeer>;

/** The interface itself: keys, port, addresses and the fleet pool it routes. */
export const AgentInterface = z.object({
  name: z.string().regex(/^[A-Za-z0-9_=+.-]{1,15}$/),
  private_key: Key,
  listen_port: z.number().int().min(1).max(65535),
  /** The server's own tunnel address with the pool's prefix, e.g. 10.64.0.1/10. */
  address: Cidr,
  mtu: z.number().int().min(1280).max(9000),
  /** Masquerade tunnel traffic to the uplink so peers reach the internet. */
  nat: z.boolean(),
});
export type AgentInterface = z.infer<typeof AgentInterface>;

export const AgentHello = z.object({
  type: z.literal('hello'),
  protocol: z.number().int(),
  agent_version: z.string().max(64),
  hostname: z.string().max(255),
  /** The revision the agent applied last (0 when it has none): informational. */
  revision: z.number().int().min(0),
  backend: z.enum(['kernel', 'wireguard-go']),
  /**
   * The agent assembles a snapshot sent in parts (`snapshot` with `parts`, then `snapshot_peers`).
   * Absent (older agents): the control plane sends every snapshot whole.
   */
  snapshot_parts: z.boolean().optional(),
  /** The Node.js version the agent runs on (`process.versions.node`). Absent: older agents. */
  node_version: z.string().max(32).optional(),
  /**
   * The agent understands `upgrade` (and answers `upgrade_result`). Absent (older agents): the
   * control plane never sends it one; "Actualizar agente" says the agent must be reinstalled.
   */
  upgrade: z.boolean().optional(),
  /**
   * This agent put back its previous file by itself: the file an upgrade installed (`from`)
   * crashed within its first minute (`reason`, one line). Sent in every hello until a welcome; the
   * control plane records the upgrade as failed with agentMsg.rolledBack (docs/deploy.md).
   */
  rolled_back: z.object({ from: z.string().max(64), reason: z.string().max(300) }).optional(),
  /**
   * The agent holds its `stats` reports while the control plane says `stats_wait` (issue 33):
   * counters are cumulative, so the pass after the wait carries everything that changed meanwhile.
   * Absent (older agents): the control plane merges their reports itself, never queues them unbounded.
   */
  stats_wait: z.boolean().optional(),
  /**
   * The agent applies a room change as a delta (`room_pairs_add`/`room_pairs_remove`,
   * `relay_rooms`/`relay_rooms_remove`, mesh links among `upsert`/`remove`) with incremental nft
   * changes (issue 33). Absent (older agents): every room change reaches them as a full snapshot.
   */
  room_deltas: z.boolean().optional(),
  /**
   * The agent holds, in this process, the desired state of `revision`, applied to its interface (a
   * reconnection, not a restart). A control plane that recorded that same revision as this
   * server's applied one sends only the changes since, as a delta, instead of a snapshot of every
   * peer (issue 33: a panel instance dying sent its agents' snapshots again, all at once). Absent
   * or false (a restarted agent: its revision comes from its state file, its interface may be
   * empty): a snapshot, as always.
   */
  resume: z.boolean().optional(),
  /**
   * The agent understands `stats_stored` (issue 33). Absent (older agents): the control plane never
   * sends it one (they would answer each with `error`).
   */
  stats_stored: z.boolean().optional(),
});

export const AgentAck = z.object({ type: z.literal('ack'), revision: z.number().int().min(0) });

export const AgentPeerStats = z.object({
  public_key: Key,
  rx_bytes: z.number().int().min(0),
  tx_bytes: z.number().int().min(0),
  /** Unix seconds; 0 = never. */
  latest_handshake: z.number().int().min(0),
  endpoint: z.string().max(64).nullable(),
  /**
   * Only in the last report of a key leaving the interface (issue 24): its counters at the agent's
   * previous read. When the control plane can no longer match the key to its own last reading from
   * this server (the peer moved and its new server reported first), it counts the difference.
   */
  since: z.object({ rx_bytes: z.number().int().min(0), tx_bytes: z.number().int().min(0) }).optional(),
  /**
   * The last report of a key leaving the interface (issue 33), with or without `since`: a key no
   * stats pass had read (re-keyed twice within one interval) has no `since`, and the control plane
   * counts all of it once, as a key that left this server (re-key or move). Absent: older agents.
   */
  final: z.boolean().optional(),
});
export type AgentPeerStats = z.infer<typeof AgentPeerStats>;

/**
 * Largest websocket message the control plane accepts from an agent; a bigger one closes the
 * connection (1009). Browsers' `/ws` gets a much smaller limit: they only listen.
 */
export const AGENT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;
/**
 * Stats are sent in messages of at most this many peers (≤ ~250 bytes each, so ≤ ~1.3 MB), keeping
 * every message far below AGENT_MAX_MESSAGE_BYTES at any fleet size. Each message is a complete
 * `stats` of its own (the control plane needs no reassembly), so protocol 1 is unchanged: a
 * control plane that predates chunking stores them just the same.
 */
export const AGENT_STATS_CHUNK_PEERS = 5000;

export const AgentStats = z.object({
  type: z.literal('stats'),
  /** Unix milliseconds at the agent. */
  at: z.number().int(),
  /**
   * The first report after each connection lists every peer; later ones only peers whose numbers
   * changed. A report is split into several messages of ≤ AGENT_STATS_CHUNK_PEERS peers (the
   * schema still accepts older agents' bigger ones, up to the message size limit).
   */
  peers: z.array(AgentPeerStats).max(200_000),
});

export const Heartbeat = z.object({ type: z.literal('heartbeat'), at: z.number().int() });
/** Asks the control plane for a fresh snapshot (the agent lost track of revisions). */
export const AgentResync = z.object({ type: z.literal('resync') });
export const ProtocolError = z.object({ type: z.literal('error'), message: z.string().max(1000) });
/**
 * The agent could not apply a revision (it keeps retrying). Lets the control plane end busy states
 * with an error instead of waiting for the timeout.
 */
export const AgentApplyError = z.object({
  type: z.literal('apply_error'),
  revision: z.number().int().min(0),
  message: z.string().max(1000),
});

/**
 * How an `upgrade` ended on the agent. `failed`: nothing was replaced, the old file keeps running,
 * `message` says why (Spanish, shown in the console). `restarting`: the new file is in place and
 * checked; the agent exits now and comes back with the new version in its next `hello`.
 */
export const AgentUpgradeResult = z.object({
  type: z.literal('upgrade_result'),
  version: z.string().max(64),
  status: z.enum(['failed', 'restarting']),
  message: z.string().max(1000).optional(),
});
export type AgentUpgradeResult = z.infer<typeof AgentUpgradeResult>;

/**
 * Issue 19: a peer whose endpoint alternates between source addresses (A → B → A, at least
 * CONCURRENT_MIN_SWITCHES switches within CONCURRENT_WINDOW_MS), i.e. its keys seem to run on more
 * than one device. Only agents whose `welcome` said `concurrent_use: true` send it (an older control
 * plane would answer `error`). No full address leaves the agent: `endpoints` is how many distinct
 * addresses alternated, `last` the last two truncated to /24 (IPv4) or /48 (IPv6). An agent reports
 * a peer at most once per window while the alternation goes on.
 */
export const AgentConcurrentUsePeer = z.object({
  public_key: Key,
  endpoints: z.number().int().min(2).max(1000),
  switches: z.number().int().min(1).max(100_000),
  last: z.array(z.string().max(64)).max(2),
});
export type AgentConcurrentUsePeer = z.infer<typeof AgentConcurrentUsePeer>;
export const AgentConcurrentUse = z.object({
  type: z.literal('concurrent_use'),
  /** Unix milliseconds at the agent. */
  at: z.number().int(),
  peers: z.array(AgentConcurrentUsePeer).min(1).max(5000),
});
export type AgentConcurrentUse = z.infer<typeof AgentConcurrentUse>;
/** The window and the number of switches that make an alternation (docs/decisions.md, issue 19). */
export const CONCURRENT_WINDOW_MS = 10 * 60_000;
export const CONCURRENT_MIN_SWITCHES = 3;

/**
 * Issue 25: the discovery relay as the agent runs it, sent with every stats pass to a control plane
 * whose `welcome` said `relay_stats: true`. `active`: the relay rules are in place. `relayed` and
 * `dropped`: original datagrams relayed to their room, and dropped by the limits (size, denied
 * port, the sender's rate), counted since the agent started. `error` (issue 31): nft refused the
 * relay's rules (its reason); the agent applied the peers anyway and tries the relay again later.
 */
export const AgentRelayStats = z.object({
  type: z.literal('relay_stats'),
  at: z.number().int(),
  active: z.boolean(),
  relayed: z.number().int().min(0),
  dropped: z.number().int().min(0),
  error: z.string().max(500).optional(),
});
export type AgentRelayStats = z.infer<typeof AgentRelayStats>;

/**
 * Issue 34: the node's health, sent after every stats pass to a control plane whose `welcome` said
 * `node_health: true` (no other daemon: the agent reads them itself). Interface figures are over
 * every peer on the WireGuard interface at that pass (mesh links included, as `wg show` lists
 * them): `peers`, `handshakes_3m` (handshakes within the last 3 minutes, the console's "online"),
 * `rx_bytes`/`tx_bytes` (the peers' counters summed: received from and sent to them), and
 * `rx_rate`/`tx_rate` in bytes per second since the previous pass (null on the first). Host
 * figures from /proc, null where it cannot be read: `load` (/proc/loadavg: 1, 5, 15 minutes),
 * `cpu` (percent busy since the previous pass, /proc/stat), `memory` (/proc/meminfo, bytes).
 */
export const AgentNodeHealth = z.object({
  type: z.literal('node_health'),
  at: z.number().int(),
  peers: z.number().int().min(0),
  handshakes_3m: z.number().int().min(0),
  rx_bytes: z.number().int().min(0),
  tx_bytes: z.number().int().min(0),
  rx_rate: z.number().min(0).nullable(),
  tx_rate: z.number().min(0).nullable(),
  load: z.tuple([z.number().min(0), z.number().min(0), z.number().min(0)]).nullable(),
  cpu: z.number().min(0).max(100).nullable(),
  memory: z.object({ total: z.number().int().min(0), available: z.number().int().min(0) }).nullable(),
});
export type AgentNodeHealth = z.infer<typeof AgentNodeHealth>;

/** Everything an agent may send. */
export const AgentToServer = z.discriminatedUnion('type', [
  AgentHello,
  AgentAck,
  AgentStats,
  Heartbeat,
  AgentResync,
  ProtocolError,
  AgentApplyError,
  AgentUpgradeResult,
  AgentConcurrentUse,
  AgentRelayStats,
  AgentNodeHealth,
]);
export type AgentToServer = z.infer<typeof AgentToServer>;

const Ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'IPv4 no válida');

/**
 * Game discovery across rooms (issue 25): the limits every server applies to each sender, unless
 * the panel's environment says otherwise (docs/decisions.md, issue 25).
 */
export const RELAY_DEFAULTS = {
  rate_per_second: 20,
  burst: 40,
  /**
   * All of one room's senders on one server together (issue 31): what a room of many members may
   * have relayed, whoever sends (docs/decisions.md, "Discovery relay bounded").
   */
  room_rate_per_second: 40,
  room_burst: 80,
  max_bytes: 1400,
  /** NetBIOS (137, 138), SSDP (1900), mDNS (5353), LLMNR (5355): operating-system chatter. */
  deny_ports: [137, 138, 1900, 5353, 5355],
} as const;

/** A room as one server relays it: its members' addresses here and on other servers. */
export const AgentRelayRoom = z.object({
  id: z.number().int().min(0),
  local: z.array(Ipv4).min(1),
  remote: z.array(Ipv4),
});
export type AgentRelayRoom = z.infer<typeof AgentRelayRoom>;

/**
 * Discovery relay of a server: a room member's UDP datagram to 255.255.255.255, the pool's
 * broadcast or 224.0.0.0/4 is copied, as unicast, to each other member of its room. `enabled`
 * false (switched off in Ajustes, globally or for this server, or rooms not allowed here): the
 * agent removes its relay rules.
 */
export const AgentRelay = z.object({
  enabled: z.boolean(),
  rate_per_second: z.number().int().min(1).max(10_000),
  burst: z.number().int().min(1).max(10_000),
  /** The budget of each room's senders on this server together (issue 31). Absent: RELAY_DEFAULTS'. */
  room_rate_per_second: z.number().int().min(1).max(10_000).optional(),
  room_burst: z.number().int().min(1).max(10_000).optional(),
  max_bytes: z.number().int().min(1).max(65_507),
  deny_ports: z.array(z.number().int().min(1).max(65_535)).max(100),
  /** Rooms with a member on this server (only when enabled). */
  rooms: z.array(AgentRelayRoom),
});
export type AgentRelay = z.infer<typeof AgentRelay>;

export const ServerSnapshot = z.object({
  type: z.literal('snapshot'),
  revision: z.number().int().min(0),
  interface: AgentInterface,
  /** Customers' peers on this server, then mesh links to the servers of their room mates. */
  peers: z.array(AgentPeer),
  /**
   * Rooms: address pairs (source, destination) allowed to cross the tunnel, both directions
   * listed. Everything else peer-to-peer stays dropped.
   */
  room_pairs: z.array(z.tuple([Ipv4, Ipv4])).optional(),
  /** Discovery relay (issue 25). Absent (older control planes): no relay. */
  relay: AgentRelay.optional(),
  /**
   * How many messages carry the peers: this one and `parts − 1` `snapshot_peers` right after it
   * (absent: 1). Only to agents whose hello said `snapshot_parts`.
   */
  parts: z.number().int().min(1).max(100_000).optional(),
});
export type ServerSnapshot = z.infer<typeof ServerSnapshot>;

/** More peers of the snapshot of `revision`: part 2, 3, … in order, the last one completes it. */
export const ServerSnapshotPeers = z.object({
  type: z.literal('snapshot_peers'),
  revision: z.number().int().min(0),
  part: z.number().int().min(2),
  peers: z.array(AgentPeer),
});
export type ServerSnapshotPeers = z.infer<typeof ServerSnapshotPeers>;

/**
 * Peers per message of a snapshot sent in parts. A 50,000-peer snapshot whole is an 8 MB message
 * that the agent holds as text, parsed JSON and validated objects at once (its memory peak); in
 * parts of this size each message is ~800 KB and only the validated peers accumulate.
 */
export const AGENT_SNAPSHOT_CHUNK_PEERS = 5000;

/** A snapshot as the messages that carry it: itself when small, else in parts. */
export function snapshotMessages(
  snapshot: ServerSnapshot,
  chunk = AGENT_SNAPSHOT_CHUNK_PEERS,
): (ServerSnapshot | ServerSnapshotPeers)[] {
  if (snapshot.peers.length <= chunk) return [snapshot];
  const parts = Math.ceil(snapshot.peers.length / chunk);
  const out: (ServerSnapshot | ServerSnapshotPeers)[] = [
    { ...snapshot, peers: snapshot.peers.slice(0, chunk), parts },
  ];
  for (let part = 2; part <= parts; part++)
    out.push({
      type: 'snapshot_peers',
      revision: snapshot.revision,
      part,
      peers: snapshot.peers.slice((part - 1) * chunk, part * chunk),
    });
  return out;
}

export const ServerDelta = z.object({
  type: z.literal('delta'),
  revision: z.number().int().min(1),
  /** Peers to add or replace (matched by public key). */
  upsert: z.array(AgentPeer),
  /** Public keys to remove. */
  remove: z.array(Key),
  /**
   * Room changes (issue 33), only to agents whose hello said `room_deltas`: the (source,
   * destination) pairs to allow and to stop allowing, disjoint (the changes' net effect, in order).
   * Mesh links whose addresses changed come among `upsert` (with `endpoint`, their whole address
   * list) and links no longer needed among `remove`.
   */
  room_pairs_add: z.array(z.tuple([Ipv4, Ipv4])).optional(),
  room_pairs_remove: z.array(z.tuple([Ipv4, Ipv4])).optional(),
  /** Rooms whose relay entry changed, each whole (only while the relay is enabled). */
  relay_rooms: z.array(AgentRelayRoom).optional(),
  /** Rooms with no member left on this server: their relay entries go. */
  relay_rooms_remove: z.array(z.number().int().min(0)).optional(),
});
export type ServerDelta = z.infer<typeof ServerDelta>;

/**
 * Back-pressure on stats (issue 33): `wait: true` when the control plane has more reports of this
 * agent queued than it stores in one go; the agent then skips its stats passes (its next report
 * after `wait: false` lists every peer that changed since the last one it sent). Sent only to
 * agents whose hello said `stats_wait`.
 */
export const ServerStatsWait = z.object({ type: z.literal('stats_wait'), wait: z.boolean() });

/**
 * Issue 33: the `stats` frames of one stored report (stored without error), by their `at`: one
 * entry a frame, so a report merged from several frames (the same pass's or several passes') names
 * each of them. Sent only to agents whose hello said `stats_stored`; a report that failed to store
 * is never named. A frame's `at` is its pass's timestamp, shared by all the frames of that pass:
 * the agent counts, per pass, the frames sent and the frames named here, and a resumed connection's
 * first report lists only the peers last reported in a pass not wholly stored, instead of every peer.
 */
export const ServerStatsStored = z.object({
  type: z.literal('stats_stored'),
  at: z.array(z.number().int()).max(100_000),
});
export type ServerStatsStored = z.infer<typeof ServerStatsStored>;

export const ServerWelcome = z.object({
  type: z.literal('welcome'),
  protocol: z.number().int(),
  server_id: z.number().int(),
  /** How often the agent should report stats, in milliseconds. */
  stats_interval_ms: z.number().int().min(1000),
  /** The control plane stores `concurrent_use` reports (issue 19). Absent: older control planes. */
  concurrent_use: z.boolean().optional(),
  /** The control plane stores `relay_stats` reports (issue 25). Absent: older control planes. */
  relay_stats: z.boolean().optional(),
  /** The control plane stores `node_health` reports (issue 34). Absent: older control planes. */
  node_health: z.boolean().optional(),
  /**
   * The control plane answers every stored `stats` report with `stats_stored` (issue 33), to an
   * agent whose hello said `stats_stored`. Absent (older control planes): no acknowledgement will
   * come, and the agent's first report of every connection lists every peer.
   */
  stats_stored: z.boolean().optional(),
});

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'SHA-256 no válido');

/**
 * Replace yourself with the panel's current agent file (only to agents whose hello said `upgrade`).
 * The agent downloads `GET <its control-plane URL>/api/agent/vpn-agent.mjs` with its own token,
 * checks that the bytes hash to `sha256` and that the file runs on its Node and says `version`,
 * renames it over its own file (atomic) and restarts, leaving the WireGuard interface up. It
 * answers `upgrade_result`.
 */
export const ServerUpgrade = z.object({
  type: z.literal('upgrade'),
  version: z.string().max(64),
  sha256: Sha256,
});
export type ServerUpgrade = z.infer<typeof ServerUpgrade>;

/** Everything the control plane may send. */
export const ServerToAgent = z.discriminatedUnion('type', [
  ServerWelcome,
  ServerSnapshot,
  ServerSnapshotPeers,
  ServerDelta,
  Heartbeat,
  ProtocolError,
  ServerUpgrade,
  ServerStatsWait,
  ServerStatsStored,
]);
export type ServerToAgent = z.infer<typeof ServerToAgent>;

/** Where the panel serves the bundled agent (token required) and its install script. */
export const AGENT_FILE_PATH = '/api/agent/vpn-agent.mjs';
export const AGENT_INSTALL_PATH = '/api/agent/install.sh';
/** Oldest Node.js the bundled agent runs on (Debian 12 and Ubuntu 24.04 ship 18.19). */
export const AGENT_MIN_NODE = '18.19.0';

/**
 * Compares two versions `MAJOR.MINOR.PATCH[-pre]` (a leading `v` allowed): negative when `a` is
 * older. A pre-release is older than its release; pre-release tags compare as text. Anything that
 * does not parse compares as older than everything that does (an unknown agent is not "current").
 */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const m = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(v.trim());
    return m ? { n: [Number(m[1]), Number(m[2]), Number(m[3])], pre: m[4] ?? null } : null;
  };
  const x = parse(a);
  const y = parse(b);
  if (!x || !y) return (x ? 1 : 0) - (y ? 1 : 0);
  for (let i = 0; i < 3; i++) if (x.n[i] !== y.n[i]) return x.n[i]! - y.n[i]!;
  if (x.pre === y.pre) return 0;
  if (x.pre === null) return 1;
  if (y.pre === null) return -1;
  return x.pre < y.pre ? -1 : 1;
}

/** Spanish answers about agent files and upgrades (the console and install.sh show them as they are). */
export const agentMsg = {
  fileMissing:
    'El archivo del agente no está compilado en este panel: ejecute npm run build (o npm start) en el panel.',
  notConnected: 'El agente de este servidor no está conectado: no se le puede pedir que se actualice.',
  oldAgent: (version: string) =>
    `El agente ${version} no sabe actualizarse solo: vuelva a ejecutar en el servidor la línea de instalación (Rotar token la muestra).`,
  upgradeLost: 'El agente se desconectó antes de responder. Vuelva a pedir la actualización.',
  cameBackOld: (version: string, target: string) =>
    `El agente volvió con la versión ${version} en lugar de la ${target}.`,
  rolledBack: (from: string, to: string, reason: string) =>
    `El agente ${from} se cerró con un error en su primer minuto (${reason}) y volvió solo al archivo anterior, la versión ${to}.`,
} as const;
