import { z } from './zod.ts';

/**
 * The node-agent protocol (versioned). The agent dials out to the control plane over a websocket
 * (`GET /api/agent/ws`, header `Authorization: Bearer <agent token>`), says `hello`, receives a full
 * `snapshot` of its server's desired state, then `delta`s with increasing revisions. It applies each
 * one to the WireGuard interface and answers `ack` with the revision. It reports `stats` every few
 * seconds; both sides send `heartbeat`. Any message that does not parse is refused (the receiver
 * answers `error` and ignores it).
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
});

export const AgentAck = z.object({ type: z.literal('ack'), revision: z.number().int().min(0) });

export const AgentPeerStats = z.object({
  public_key: Key,
  rx_bytes: z.number().int().min(0),
  tx_bytes: z.number().int().min(0),
  /** Unix seconds; 0 = never. */
  latest_handshake: z.number().int().min(0),
  endpoint: z.string().max(64).nullable(),
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

/** Everything an agent may send. */
export const AgentToServer = z.discriminatedUnion('type', [
  AgentHello,
  AgentAck,
  AgentStats,
  Heartbeat,
  AgentResync,
  ProtocolError,
  AgentApplyError,
]);
export type AgentToServer = z.infer<typeof AgentToServer>;

const Ipv4 = z.string().regex(/^\d{1,3}(\.\d{1,3}){3}$/, 'IPv4 no válida');

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
});
export type ServerDelta = z.infer<typeof ServerDelta>;

export const ServerWelcome = z.object({
  type: z.literal('welcome'),
  protocol: z.number().int(),
  server_id: z.number().int(),
  /** How often the agent should report stats, in milliseconds. */
  stats_interval_ms: z.number().int().min(1000),
});

/** Everything the control plane may send. */
export const ServerToAgent = z.discriminatedUnion('type', [
  ServerWelcome,
  ServerSnapshot,
  ServerSnapshotPeers,
  ServerDelta,
  Heartbeat,
  ProtocolError,
]);
export type ServerToAgent = z.infer<typeof ServerToAgent>;
