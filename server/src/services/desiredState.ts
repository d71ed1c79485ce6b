import { and, asc, eq, gt, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { AgentPeer, ServerDelta, ServerSnapshot } from '@vpn/contracts';
import type { Db } from '../db/client.ts';
import { peers, serverChanges, servers } from '../db/schema.ts';
import { decrypt } from '../lib/crypto.ts';
import { SERVER_TUNNEL_ADDRESS } from './addresses.ts';
import type { ServerRow } from './servers.ts';

/**
 * Desired state, not commands (architecture decision 3): a request changes rows and records here,
 * per server, which peers to re-send and which keys to drop. Agents get a snapshot on connect and
 * these changes as deltas after it.
 */
export interface Change {
  serverId: number;
  upsertPeerIds?: number[];
  removeKeys?: string[];
}

export interface Revision {
  serverId: number;
  revision: number;
}

/** Records changes inside the caller's transaction; returns the new revision of each server. */
export async function recordChanges(tx: Db, changes: Change[]): Promise<Revision[]> {
  const out: Revision[] = [];
  // Same order for every caller, so two transactions never lock two servers crosswise.
  for (const change of [...changes].sort((a, b) => a.serverId - b.serverId)) {
    const [row] = await tx
      .update(servers)
      .set({ revision: sql`${servers.revision} + 1` })
      .where(eq(servers.id, change.serverId))
      .returning({ revision: servers.revision });
    if (!row) continue;
    await tx.insert(serverChanges).values({
      serverId: change.serverId,
      revision: row.revision,
      upsertPeerIds: change.upsertPeerIds ?? [],
      removeKeys: change.removeKeys ?? [],
    });
    out.push({ serverId: change.serverId, revision: row.revision });
  }
  return out;
}

/** A peer belongs on its server's interface while it is active and not expired. */
const liveOnServer = (serverId: number) =>
  and(
    eq(peers.serverId, serverId),
    eq(peers.active, true),
    or(isNull(peers.expiresAt), gt(peers.expiresAt, sql`now()`)),
  );

type PeerKeys = Pick<typeof peers.$inferSelect, 'publicKey' | 'presharedKeyEnc' | 'address'>;

const toAgentPeer = (key: Buffer, p: PeerKeys): AgentPeer => ({
  public_key: p.publicKey,
  preshared_key: decrypt(key, p.presharedKeyEnc),
  allowed_ips: [`${p.address.replace(/\/\d+$/, '')}/32`],
});

/**
 * The whole desired state of one server. The revision is read before the peers, so the peers are
 * at least that new; a change that lands in between is sent again as a delta (applying is idempotent).
 */
export async function buildSnapshot(db: Db, server: ServerRow, key: Buffer): Promise<ServerSnapshot> {
  const [current] = await db
    .select({ revision: servers.revision })
    .from(servers)
    .where(eq(servers.id, server.id));
  const rows = await db
    .select({ publicKey: peers.publicKey, presharedKeyEnc: peers.presharedKeyEnc, address: peers.address })
    .from(peers)
    .where(liveOnServer(server.id))
    .orderBy(asc(peers.id));
  return {
    type: 'snapshot',
    revision: current?.revision ?? server.revision,
    interface: {
      name: server.interfaceName,
      private_key: decrypt(key, server.privateKeyEnc),
      listen_port: server.port,
      address: SERVER_TUNNEL_ADDRESS,
      mtu: server.mtu,
      nat: true,
    },
    peers: rows.map((p) => toAgentPeer(key, p)),
  };
}

/**
 * One delta that brings an agent from `after` to the newest recorded revision, or 'resync' when the
 * log no longer reaches back that far (send a snapshot), or null when there is nothing new.
 */
export async function buildDelta(
  db: Db,
  serverId: number,
  after: number,
  key: Buffer,
): Promise<ServerDelta | 'resync' | null> {
  const changes = await db
    .select()
    .from(serverChanges)
    .where(and(eq(serverChanges.serverId, serverId), gt(serverChanges.revision, after)))
    .orderBy(asc(serverChanges.revision));
  if (changes.length === 0) return null;
  if (changes[0]!.revision !== after + 1) return 'resync';
  const ids = [...new Set(changes.flatMap((c) => c.upsertPeerIds))];
  const live = ids.length
    ? await db
        .select({
          id: peers.id,
          publicKey: peers.publicKey,
          presharedKeyEnc: peers.presharedKeyEnc,
          address: peers.address,
        })
        .from(peers)
        .where(and(inArray(peers.id, ids), liveOnServer(serverId)))
    : [];
  const upsert = live.map((p) => toAgentPeer(key, p));
  const kept = new Set(upsert.map((p) => p.public_key));
  // A peer named for upsert that is no longer live here (disabled, expired, moved) is removed by key.
  const stale = ids.length
    ? await db
        .select({ publicKey: peers.publicKey })
        .from(peers)
        .where(and(inArray(peers.id, ids), sql`not (${liveOnServer(serverId)})`))
    : [];
  const remove = [
    ...new Set([...changes.flatMap((c) => c.removeKeys), ...stale.map((s) => s.publicKey)]),
  ].filter((k) => !kept.has(k));
  return { type: 'delta', revision: changes.at(-1)!.revision, upsert, remove };
}

/** Forgets log entries the agent has acknowledged (they are in every later snapshot). */
export async function pruneChanges(db: Db, serverId: number, acked: number): Promise<void> {
  await db
    .delete(serverChanges)
    .where(and(eq(serverChanges.serverId, serverId), lte(serverChanges.revision, acked)));
}
