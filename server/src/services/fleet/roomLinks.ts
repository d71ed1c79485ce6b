import { createHmac } from 'node:crypto';
import type { AgentPeer, AgentRelayRoom } from '@vpn/contracts';
import type { RoomChangeRecord } from '../../db/schema.ts';

/** A room member as the room computations need it. */
export interface RoomMember {
  id: number;
  roomId: number | null;
  address: string;
  serverId: number;
}

const host = (a: string) => a.replace(/\/\d+$/, '');

/** The preshared key of the mesh link between two servers: the same on both sides, never stored. */
export function meshPresharedKey(meshKey: Buffer, a: number, b: number): string {
  return createHmac('sha256', meshKey)
    .update(`mesh:${Math.min(a, b)}:${Math.max(a, b)}`)
    .digest('base64');
}

/**
 * The room pairs one server enforces and the addresses each other server must carry for it, from
 * every member of the rooms that have a member here. Grouped by room first: the work is the sum of
 * each room's members × its local members, not every local member × every member of every room
 * (1.38 s at 16,000 × 16,000 before, issue 33; guard in fleet/scale.test.ts).
 */
export function roomLinks(
  serverId: number,
  members: Iterable<RoomMember>,
): { pairs: [string, string][]; remote: Map<number, Set<string>> } {
  const byRoom = new Map<number, RoomMember[]>();
  for (const m of members) {
    if (m.roomId === null) continue;
    const list = byRoom.get(m.roomId);
    if (list) list.push(m);
    else byRoom.set(m.roomId, [m]);
  }
  const pairs = new Map<string, [string, string]>();
  const remote = new Map<number, Set<string>>();
  for (const room of byRoom.values()) {
    for (const l of room) {
      if (l.serverId !== serverId) continue;
      const a = host(l.address);
      for (const m of room) {
        if (m.id === l.id) continue;
        const b = host(m.address);
        pairs.set(`${a}>${b}`, [a, b]);
        pairs.set(`${b}>${a}`, [b, a]);
        if (m.serverId !== serverId) {
          const set = remote.get(m.serverId) ?? new Set<string>();
          set.add(`${b}/32`);
          remote.set(m.serverId, set);
        }
      }
    }
  }
  return { pairs: [...pairs.values()], remote };
}

const sameSet = (a: Set<string> | undefined, b: Set<string> | undefined) =>
  (a?.size ?? 0) === (b?.size ?? 0) && [...(a ?? [])].every((x) => b?.has(x));

/**
 * What one room's change (its members `before` → `after`, `after` empty when it is deleted) does
 * to each server that hosts a member before or after (issue 33): the pairs that server starts and
 * stops allowing, its relay entry for the room, and the other servers whose mesh link from it
 * carries different addresses. Work and size follow the room's members, never the fleet's rooms.
 * A peer is in at most one room, so a pair belongs to exactly one room: no other room can still
 * need a pair this one removes.
 */
export function roomChanges(
  roomId: number,
  before: readonly RoomMember[],
  after: readonly RoomMember[],
): Map<number, RoomChangeRecord> {
  const out = new Map<number, RoomChangeRecord>();
  const servers = [...new Set([...before, ...after].map((m) => m.serverId))].sort((a, b) => a - b);
  for (const s of servers) {
    const was = roomLinks(s, before);
    const is = roomLinks(s, after);
    const key = ([a, b]: [string, string]) => `${a}>${b}`;
    const had = new Set(was.pairs.map(key));
    const has = new Set(is.pairs.map(key));
    const mesh = [...new Set([...was.remote.keys(), ...is.remote.keys()])]
      .filter((o) => !sameSet(was.remote.get(o), is.remote.get(o)))
      .sort((a, b) => a - b);
    out.set(s, {
      add: is.pairs.filter((p) => !had.has(key(p))),
      remove: was.pairs.filter((p) => !has.has(key(p))),
      rooms: [roomId],
      mesh,
    });
  }
  return out;
}

/** Where the other server of a mesh link listens, as `endpoint` says it. */
interface MeshEnd {
  id: number;
  publicKey: string;
  host: string;
  port: number;
}

/** The mesh link from server `serverId` to `other`, carrying `addresses` (the mates there). */
export function meshPeer(
  meshKey: Buffer,
  serverId: number,
  other: MeshEnd,
  addresses: Iterable<string>,
): AgentPeer {
  return {
    public_key: other.publicKey,
    preshared_key: meshPresharedKey(meshKey, serverId, other.id),
    allowed_ips: [...addresses].sort(),
    endpoint: other.host.includes(':') ? `[${other.host}]:${other.port}` : `${other.host}:${other.port}`,
    persistent_keepalive: 25,
  };
}

/**
 * The relay entries of server `serverId` (issue 25) from every member of the rooms given: each room
 * with a member here, its members here (`local`) and elsewhere (`remote`), in peer order. Rooms
 * with no member here are left out.
 */
export function relayRooms(serverId: number, members: readonly RoomMember[]): AgentRelayRoom[] {
  const relay = new Map<number, AgentRelayRoom>();
  for (const m of [...members].sort((a, b) => a.id - b.id)) {
    if (m.roomId === null) continue;
    const room = relay.get(m.roomId) ?? { id: m.roomId, local: [], remote: [] };
    (m.serverId === serverId ? room.local : room.remote).push(host(m.address));
    relay.set(m.roomId, room);
  }
  return [...relay.values()].filter((r) => r.local.length > 0).sort((a, b) => a.id - b.id);
}
