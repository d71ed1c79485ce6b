import { and, asc, count, eq, isNotNull, ne, or, sql } from 'drizzle-orm';
import {
  agentMsg,
  fleetMsg,
  msg,
  type AdminServer,
  type AdminServerDetail,
  type AgentInstall,
  type ListQuery,
  type Paged,
  type ServerPatch,
  type Peer,
  type PushMessage,
  type ServerPeer,
} from '@vpn/contracts';
import type { Db } from '../../db/client.ts';
import { customers, rooms, peers, serverDrains, servers } from '../../db/schema.ts';
import { HttpError, conflict, notFound } from '../../lib/errors.ts';
import type { AgentRelease } from './agentRelease.ts';
import { installCommand } from './agentInstallScript.ts';
import { setUpgradeState } from './agentUpgrades.ts';
import type { Bus } from '../../realtime/bus.ts';
import { auditedTransaction, diffFields, type Actor } from '../site/audit.ts';
import { recordChanges, type Revision } from './desiredState.ts';
import { containsPattern, lowerContains, pageOf } from '../../db/listing.ts';
import {
  agentOnline,
  createServer,
  peerCountOfServer,
  rotateAgentToken,
  type NewServer,
  type ServerRow,
} from './servers.ts';
import { ONLINE_WINDOW, presentAdminServer } from './serverView.ts';

/**
 * What the server console needs of peers (PeerService has it): fleet is a lower domain than
 * peers, so it names the two methods instead of importing the class (docs/decisions.md, issue 18).
 */
export interface PeerPresenter {
  present(rows: (typeof peers.$inferSelect)[]): Promise<Peer[]>;
  push(customerId: number, message: PushMessage): Promise<void>;
}

export interface AdminServerDeps {
  db: Db;
  bus: Bus;
  peers: PeerPresenter;
  encryptionKey: Buffer;
  /** The agent file this panel serves: "desactualizado" and "Actualizar agente" compare with it. */
  release?: AgentRelease;
}

/** The console's servers: list, detail, edit, delete, create and token rotation (with audit). */
export class AdminServerService {
  constructor(private readonly deps: AdminServerDeps) {}

  private get db() {
    return this.deps.db;
  }

  /** The agent version this panel serves, or null when its file is not built. */
  private get latest(): string | null {
    return this.deps.release?.current()?.version ?? null;
  }

  /** Live status for consoles: every manager with `servers.read` re-reads this server. */
  async publishStatus(serverId: number): Promise<void> {
    await this.deps.bus.publish({
      kind: 'managers',
      permission: 'servers.read',
      message: { type: 'admin_server', server_id: serverId },
    });
  }

  async list(query: ListQuery): Promise<Paged<AdminServer>> {
    const where = query.q
      ? or(
          lowerContains(servers.name, query.q),
          lowerContains(servers.host, query.q),
          lowerContains(servers.ubication, query.q),
        )
      : undefined;
    const { limit, offset } = pageOf(query);
    const [rows, [total]] = await Promise.all([
      this.db
        .select({ server: servers, peers: peerCountOfServer })
        .from(servers)
        .where(where)
        .orderBy(asc(servers.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(servers).where(where),
    ]);
    const latest = this.latest;
    return { count: total!.n, results: rows.map((r) => presentAdminServer(r.server, r.peers, latest)) };
  }

  private async row(id: number): Promise<ServerRow> {
    const [row] = await this.db.select().from(servers).where(eq(servers.id, id));
    if (!row) throw notFound(msg.serverNotFound);
    return row;
  }

  async detail(id: number): Promise<AdminServerDetail> {
    const row = await this.row(id);
    const [[peerCount], [online], [drain]] = await Promise.all([
      this.db.select({ n: count() }).from(peers).where(eq(peers.serverId, id)),
      this.db
        .select({ n: sql<number>`count(*)::int` })
        .from(sql`peer_stats`)
        .where(sql`server_id = ${id} and latest_handshake > now() - ${ONLINE_WINDOW}`),
      this.db.select().from(serverDrains).where(eq(serverDrains.serverId, id)),
    ]);
    return {
      ...presentAdminServer(row, peerCount!.n, this.latest),
      agent_latest_version: this.latest,
      revision_lag: Math.max(0, row.revision - row.ackedRevision),
      online_peers: online!.n,
      drain: drain
        ? {
            moved: drain.moved,
            total: drain.total,
            done: drain.finishedAt !== null,
            started_at: drain.startedAt.toISOString(),
            finished_at: drain.finishedAt?.toISOString() ?? null,
            error: drain.error,
          }
        : null,
    };
  }

  /** The peers on a server, by id, with owner, room and whether they shook hands in the last 3 minutes. */
  async peersOf(id: number, query: ListQuery): Promise<Paged<ServerPeer>> {
    await this.row(id);
    const where = and(
      eq(peers.serverId, id),
      query.q
        ? or(lowerContains(peers.name, query.q), sql`host(${peers.address}) like ${containsPattern(query.q)}`)
        : undefined,
    );
    const { limit, offset } = pageOf(query);
    const [rows, [total]] = await Promise.all([
      this.db
        .select({
          peer: peers,
          customer: customers.username,
          party: rooms.name,
          online: sql<boolean>`exists (select 1 from peer_stats s where s.peer_id = ${peers.id} and s.latest_handshake > now() - ${ONLINE_WINDOW})`,
        })
        .from(peers)
        .innerJoin(customers, eq(customers.id, peers.customerId))
        .leftJoin(rooms, eq(rooms.id, peers.roomId))
        .where(where)
        .orderBy(asc(peers.id))
        .limit(limit)
        .offset(offset),
      this.db.select({ n: count() }).from(peers).where(where),
    ]);
    return {
      count: total!.n,
      results: rows.map(({ peer, customer, party, online }) => ({
        id: peer.id,
        name: peer.name,
        customer,
        address: peer.address.replace(/\/\d+$/, ''),
        active: peer.active && (peer.expiresAt === null || peer.expiresAt.getTime() > Date.now()),
        expires_at: peer.expiresAt?.toISOString() ?? null,
        party,
        online,
      })),
    };
  }

  /** Creates a server (audited); the agent token and the install command are returned this once. */
  async create(
    actor: Actor,
    input: NewServer,
    baseUrl: string,
  ): Promise<AgentInstall & { server: AdminServer }> {
    const { server, agentToken } = await auditedTransaction(this.db, actor, async (tx, audit) => {
      const created = await createServer(tx, this.deps.encryptionKey, input);
      const shown = presentAdminServer(created.server);
      await audit({
        action: 'server.create',
        targetType: 'server',
        targetId: created.server.id,
        changes: diffFields(null, stripKeys(shown)),
      });
      return created;
    });
    await this.publishStatus(server.id);
    return {
      server: presentAdminServer(server, 0, this.latest),
      agent_token: agentToken,
      install_command: installCommand(baseUrl, agentToken),
    };
  }

  /**
   * A new agent token (the old one stops working at once, and the agent's socket is dropped on
   * whichever instance holds it), audited without its value.
   */
  async rotateToken(actor: Actor, id: number, baseUrl: string): Promise<AgentInstall> {
    const agentToken = await auditedTransaction(this.db, actor, async (tx, audit) => {
      const token = await rotateAgentToken(tx, id);
      await audit({
        action: 'server.rotate_token',
        targetType: 'server',
        targetId: id,
        changes: { agent_token: { before: '[oculto]', after: '[oculto]' } },
      });
      return token;
    });
    await this.deps.bus.publish({ kind: 'agent_revoked', serverId: id });
    await this.publishStatus(id);
    return { agent_token: agentToken, install_command: installCommand(baseUrl, agentToken) };
  }

  /**
   * Edits a server. A new port changes its own interface (a full snapshot for its agent); a new
   * host or port changes the mesh links other servers keep to it for rooms (full snapshots there).
   * Customers' configurations and mirror links are rendered from the server row, so they carry the
   * new endpoint at once; owners of its peers get `updated_peer` so open pages show it. Switching
   * rooms off is refused while peers here are in rooms (naming the rooms).
   */
  async update(actor: Actor, id: number, patch: ServerPatch): Promise<AdminServer> {
    const result = await auditedTransaction(this.db, actor, async (tx, audit) => {
      const [before] = await tx.select().from(servers).where(eq(servers.id, id)).for('update');
      if (!before) throw notFound(msg.serverNotFound);
      if (patch.allow_partys === false && before.allowRooms) {
        const inUse = await tx
          .selectDistinct({ name: rooms.name })
          .from(peers)
          .innerJoin(rooms, eq(rooms.id, peers.roomId))
          .where(and(eq(peers.serverId, id), isNotNull(peers.roomId)))
          .orderBy(asc(rooms.name))
          .limit(11);
        if (inUse.length > 0) {
          const names = inUse.slice(0, 10).map((r) => `«${r.name}»`);
          throw conflict(fleetMsg.roomsInUse(names.join(', ') + (inUse.length > 10 ? '…' : '')));
        }
      }
      const [after] = await tx
        .update(servers)
        .set({
          ...(patch.name !== undefined ? { name: patch.name } : {}),
          ...(patch.host !== undefined ? { host: patch.host.replace(/\.$/, '') } : {}),
          ...(patch.port !== undefined ? { port: patch.port } : {}),
          ...(patch.ubication !== undefined ? { ubication: patch.ubication } : {}),
          ...(patch.active !== undefined ? { active: patch.active } : {}),
          ...(patch.allow_partys !== undefined ? { allowRooms: patch.allow_partys } : {}),
          ...(patch.allow_discovery !== undefined ? { allowDiscovery: patch.allow_discovery } : {}),
        })
        .where(eq(servers.id, id))
        .returning();
      const endpointChanged = after!.host !== before.host || after!.port !== before.port;
      let revisions: Revision[] = [];
      // The discovery switch changes only this server's relay rules: a snapshot for its agent.
      if (!endpointChanged && after!.allowDiscovery !== before.allowDiscovery)
        revisions = await recordChanges(tx, [{ serverId: id, full: true }]);
      if (endpointChanged) {
        // Servers hosting room mates of this server's peers dial it through a mesh link.
        const meshed = await tx
          .selectDistinct({ s: sql<number>`o.server_id` })
          .from(peers)
          .innerJoin(sql`peers o`, sql`o.room_id = ${peers.roomId} and o.server_id <> ${id}`)
          .where(and(eq(peers.serverId, id), isNotNull(peers.roomId)));
        revisions = await recordChanges(tx, [
          { serverId: id, full: true },
          ...meshed.map((m) => ({ serverId: Number(m.s), full: true })),
        ]);
      }
      const changes = diffFields(
        stripKeys(presentAdminServer(before)),
        stripKeys(presentAdminServer(after!)),
      );
      if (Object.keys(changes).length > 0)
        await audit({
          action: 'server.update',
          targetType: 'server',
          targetId: id,
          changes,
        });
      return { after: after!, revisions, endpointChanged };
    });
    for (const r of result.revisions)
      await this.deps.bus.publish({ kind: 'server', serverId: r.serverId, revision: r.revision });
    await this.publishStatus(id);
    if (result.endpointChanged) await this.pushOwners(id);
    const [{ n }] = (await this.db.select({ n: count() }).from(peers).where(eq(peers.serverId, id))) as [
      { n: number },
    ];
    return presentAdminServer(result.after, n, this.latest);
  }

  /** `updated_peer` to the owner of every peer on the server, a page of peers at a time. */
  private async pushOwners(serverId: number): Promise<void> {
    for (let after = 0; ;) {
      const rows = await this.db
        .select()
        .from(peers)
        .where(and(eq(peers.serverId, serverId), sql`${peers.id} > ${after}`))
        .orderBy(asc(peers.id))
        .limit(500);
      if (rows.length === 0) return;
      const shown = await this.deps.peers.present(rows);
      for (const [i, peer] of shown.entries())
        await this.deps.peers.push(rows[i]!.customerId, { type: 'updated_peer', peer });
      after = rows.at(-1)!.id;
    }
  }

  /** Deletes a server that has no peers left (409 otherwise: drain it first). */
  async remove(actor: Actor, id: number): Promise<void> {
    await auditedTransaction(this.db, actor, async (tx, audit) => {
      const [row] = await tx.select().from(servers).where(eq(servers.id, id)).for('update');
      if (!row) throw notFound(msg.serverNotFound);
      const [left] = await tx.select({ n: count() }).from(peers).where(eq(peers.serverId, id));
      if (left!.n > 0) throw conflict(fleetMsg.serverHasPeers(left!.n));
      await tx.delete(servers).where(eq(servers.id, id));
      await audit({
        action: 'server.delete',
        targetType: 'server',
        targetId: id,
        changes: diffFields(stripKeys(presentAdminServer(row)), null),
      });
    });
    await this.deps.bus.publish({ kind: 'agent_revoked', serverId: id });
    await this.publishStatus(id);
  }

  /**
   * "Actualizar agente": asks the server's connected agent (on whichever instance holds its socket)
   * to replace itself with the file this panel serves. Audited. The outcome arrives later on the
   * server's row (`agent_upgrade`, pushed to consoles): the agent restarts and comes back with the
   * new version, or keeps its old file and says why.
   */
  async requestAgentUpgrade(actor: Actor, id: number): Promise<AdminServerDetail> {
    const target = this.latest;
    if (!target) throw new HttpError(503, agentMsg.fileMissing, 'agent_file_missing');
    await auditedTransaction(this.db, actor, async (tx, audit) => {
      const [row] = await tx.select().from(servers).where(eq(servers.id, id)).for('update');
      if (!row) throw notFound(msg.serverNotFound);
      if (!agentOnline(row)) throw conflict(agentMsg.notConnected);
      await setUpgradeState(tx, id, 'pending', { version: target });
      await audit({
        action: 'server.agent_upgrade',
        targetType: 'server',
        targetId: id,
        changes: { agent_version: { before: row.agentVersion, after: target } },
      });
    });
    await this.deps.bus.publish({ kind: 'agent_upgrade', serverId: id });
    await this.publishStatus(id);
    return this.detail(id);
  }

  /** Other active servers exist (drain and the console's checks). */
  async otherActive(id: number): Promise<ServerRow[]> {
    return this.db
      .select()
      .from(servers)
      .where(and(eq(servers.active, true), ne(servers.id, id)));
  }
}

/** What the audit compares: configuration, not the agent's live counters. */
function stripKeys(s: AdminServer): Record<string, unknown> {
  const { name, host, port, ubication, active, allow_partys, allow_discovery, dns, mtu, interface_name } = s;
  return { name, host, port, ubication, active, allow_partys, allow_discovery, dns, mtu, interface_name };
}
