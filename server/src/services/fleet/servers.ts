import { and, asc, eq, ne, sql } from 'drizzle-orm';
import { msg, type AvailableServer, type PeerServer, type ServerStatus } from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { servers } from '../../db/schema.ts';
import { encrypt, generateWireguardKeyPair, randomToken, sha256 } from '../../lib/crypto.ts';
import { badRequest, notFound } from '../../lib/errors.ts';

export type ServerRow = typeof servers.$inferSelect;

/** An agent that has not been heard from for this long counts as offline. */
export const AGENT_OFFLINE_AFTER_MS = 45_000;

export function agentOnline(row: Pick<ServerRow, 'lastSeenAt'>, now = Date.now()): boolean {
  return row.lastSeenAt !== null && now - row.lastSeenAt.getTime() < AGENT_OFFLINE_AFTER_MS;
}

/** What customers see as the server's state: switched on by managers and its agent alive. */
export const serverUsable = (row: ServerRow, now = Date.now()) => row.active && agentOnline(row, now);

/** The state customer and console name alike: Activo, Sin conexión (agent silent), Inactivo (switched off). */
export function serverStatus(row: ServerRow, now = Date.now()): ServerStatus {
  if (!row.active) return 'inactive';
  return agentOnline(row, now) ? 'active' : 'offline';
}

export const endpointOf = (row: Pick<ServerRow, 'host' | 'port'>) =>
  row.host.includes(':') ? `[${row.host}]:${row.port}` : `${row.host}:${row.port}`;

export function presentPeerServer(row: ServerRow): PeerServer {
  return {
    id: row.id,
    name: row.name,
    address: endpointOf(row),
    active: serverUsable(row),
    ubication: row.ubication,
    allow_partys: row.allowRooms,
    status: serverStatus(row),
  };
}

export const presentAvailableServer = (row: ServerRow): AvailableServer => presentPeerServer(row);

/** Servers a peer may move to: switched on, other than its current one (offline ones shown as Inactivo). */
export async function listAvailableServers(db: Db, exceptServerId: number): Promise<AvailableServer[]> {
  const rows = await db
    .select()
    .from(servers)
    .where(and(eq(servers.active, true), ne(servers.id, exceptServerId)))
    .orderBy(asc(servers.name), asc(servers.id));
  return rows.map(presentAvailableServer);
}

/**
 * Peers on each server of a `from(servers)` select. The outer column is written out in full: drizzle
 * renders `${servers.id}` unqualified in a one-table select, and inside the subquery a bare "id" is
 * the peer's own id — which silently counted the wrong rows.
 */
export const peerCountOfServer = sql<number>`(select count(*)::int from peers p where p.server_id = "servers"."id")`;

/**
 * Whether a new peer can be placed now: some server is switched on and its agent answers. Asked
 * before payment (the purchase dialog and the invoice's creation), so a customer is never charged
 * for a peer no server can carry.
 */
export async function newPeerPlaceable(db: Db, now = Date.now()): Promise<boolean> {
  const rows = await db
    .select({ lastSeenAt: servers.lastSeenAt })
    .from(servers)
    .where(eq(servers.active, true));
  return rows.some((row) => agentOnline(row, now));
}

/**
 * The server new peers go to: an active one with a live agent and the fewest peers. At delivery a
 * paid invoice must deliver, so when the last live agent went away between the purchase and the
 * payment the peer is placed on the emptiest active server all the same (its card then reads "Sin
 * conexión" with "Cambiar servidor" beside it; docs/decisions.md, "Placing a new peer").
 */
export async function pickServerForNewPeer(db: Db): Promise<ServerRow> {
  const rows = await db
    .select({
      server: servers,
      load: peerCountOfServer,
    })
    .from(servers)
    .where(eq(servers.active, true));
  if (rows.length === 0) throw badRequest(msg.noServers);
  rows.sort((a, b) => Number(agentOnline(b.server)) - Number(agentOnline(a.server)) || a.load - b.load);
  return rows[0]!.server;
}

const ENDPOINT_RE = /^(?:\[([0-9a-fA-F:]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

export interface NewServer {
  name: string;
  endpoint: string;
  ubication: string;
  allow_partys?: boolean;
  active?: boolean;
  dns?: string;
  mtu?: number;
  interface_name?: string;
}

export function parseEndpoint(endpoint: string): { host: string; port: number } {
  const m = ENDPOINT_RE.exec(endpoint.trim());
  const port = Number(m?.[3]);
  if (!m || port < 1 || port > 65535)
    throw badRequest(msg.endpointInvalid, { endpoint: msg.endpointInvalid });
  return { host: (m[1] ?? m[2])!, port };
}

/** Creates a server with its own WireGuard key pair; the agent token is returned this once, stored hashed. */
export async function createServer(
  db: Db,
  encryptionKey: Buffer,
  input: NewServer,
): Promise<{ server: ServerRow; agentToken: string }> {
  if (!input.name.trim()) throw badRequest(msg.serverNameRequired, { name: msg.serverNameRequired });
  const { host, port } = parseEndpoint(input.endpoint);
  const keys = generateWireguardKeyPair();
  const agentToken = randomToken(32);
  const [server] = await db
    .insert(servers)
    .values({
      name: input.name.trim(),
      host,
      port,
      ubication: input.ubication.trim(),
      allowRooms: input.allow_partys ?? false,
      active: input.active ?? true,
      dns: input.dns ?? undefined,
      mtu: input.mtu ?? undefined,
      interfaceName: input.interface_name ?? undefined,
      publicKey: keys.publicKey,
      privateKeyEnc: encrypt(encryptionKey, keys.privateKey),
      agentTokenHash: sha256(agentToken),
    })
    .returning();
  return { server: server!, agentToken };
}

/** Issues a new agent token; the old one stops working at once. */
export async function rotateAgentToken(db: Db, serverId: number): Promise<string> {
  const agentToken = randomToken(32);
  const updated = await db
    .update(servers)
    .set({ agentTokenHash: sha256(agentToken) })
    .where(eq(servers.id, serverId))
    .returning({ id: servers.id });
  if (updated.length === 0) throw notFound(msg.serverNotFound);
  return agentToken;
}

export async function findServerByAgentToken(db: Db, token: string): Promise<ServerRow | undefined> {
  const [row] = await db
    .select()
    .from(servers)
    .where(eq(servers.agentTokenHash, sha256(token)));
  return row;
}
