import { describe, expect, it } from 'vitest';
import { RELAY_DEFAULTS, type AgentPeer, type ServerDelta, type ServerSnapshot } from '@vpn/contracts/agent';
import { Reconciler } from './reconcile.ts';
import { CommandError, type CommandRunner } from './exec.ts';
import { silentLogger } from './log.ts';
import { FakeDevice } from './testing/fakeWg.ts';
import { fakeReconcilerBackend } from './testing/fakeBackend.ts';
import { randomKey } from './testing/keys.ts';
import { keyToHex } from './keys.ts';

/**
 * Room changes as deltas (issue 33): a join, a leave or a deleted room changes the firewall by its
 * own pairs' elements (`nft add/delete element`), never by rewriting the table with every pair of
 * every room; the relay rewrites only that room's chain. A member's move hands its address from its
 * peer to the mesh link in one write. Counted on recorded nft scripts, at 10 and at 1,000 rooms
 * already on the server: the work follows the room's members, not the server's rooms.
 */

/** nft scripts recorded instead of run; `refuse` makes nft fail scripts that match it. */
function recordingRunner(refuse?: RegExp) {
  const scripts: string[] = [];
  const runner: CommandRunner = {
    netns: null,
    run: async (file, args, options) => {
      if (file !== 'nft') return { stdout: '', stderr: '' };
      if (args.includes('counters') || args.includes('list'))
        return { stdout: '{"nftables": []}', stderr: '' };
      const input = options?.input ?? '';
      if (refuse?.test(input)) throw new CommandError('nft', args, 1, 'Error: Could not process rule');
      scripts.push(input);
      return { stdout: '', stderr: '' };
    },
    spawn: () => {
      throw new Error('no se lanzan procesos en esta prueba');
    },
  };
  return { scripts, runner };
}

const fakeBackend = (runner: CommandRunner, device?: FakeDevice) =>
  fakeReconcilerBackend(runner, device).backend;

const ip = (n: number) => `10.64.${(n >> 8) & 255}.${n & 255}`;
/** Room `r`'s four members here: addresses 4r … 4r+3. */
const members = (r: number) => [0, 1, 2, 3].map((i) => ip(4 * r + i + 4));
/** Every pair of a room's members, both ways (what the control plane lists). */
const pairsOf = (addresses: string[]): [string, string][] =>
  addresses.flatMap((x) => addresses.filter((y) => y !== x).map((y): [string, string] => [x, y]));

const peer = (): AgentPeer => ({
  public_key: randomKey(),
  preshared_key: randomKey(),
  allowed_ips: ['10.64.0.2/32'],
});

const snapshot = (rooms: number): ServerSnapshot => ({
  type: 'snapshot',
  revision: 1,
  interface: {
    name: 'wgroom0',
    private_key: randomKey(),
    listen_port: 51820,
    address: '10.64.0.1/10',
    mtu: 1420,
    nat: true,
  },
  peers: [peer()],
  room_pairs: Array.from({ length: rooms }, (_, r) => pairsOf(members(r + 1))).flat(),
  relay: {
    enabled: true,
    rate_per_second: RELAY_DEFAULTS.rate_per_second,
    burst: RELAY_DEFAULTS.burst,
    max_bytes: RELAY_DEFAULTS.max_bytes,
    deny_ports: [...RELAY_DEFAULTS.deny_ports],
    rooms: Array.from({ length: rooms }, (_, r) => ({ id: r + 1, local: members(r + 1), remote: [] })),
  },
});

/** Elements (`a . b` lines) in a script. */
const elements = (script: string) =>
  script.split('\n').filter((l) => /^\s*\d+\.\d+\.\d+\.\d+ \. /.test(l)).length;

describe('a room change applied as a delta (issue 33)', () => {
  const joins: { rooms: number; scripts: number; elements: number; snapshotElements: number }[] = [];

  it.each([10, 1000])('a join at %i rooms adds its own pairs only, and a leave deletes them', async (n) => {
    const { scripts, runner } = recordingRunner();
    const r = new Reconciler({ backend: fakeBackend(runner), log: silentLogger, uplink: 'eth0' });
    await r.applySnapshot(snapshot(n));
    const firewall = scripts.filter((s) => s.includes('vpn_agent_'));
    expect(firewall).toHaveLength(1);
    const snapshotElements = elements(firewall[0]!);
    expect(snapshotElements).toBe(12 * n);
    scripts.length = 0;

    // A fifth member joins room 1: its pairs with the four others, both ways.
    const room = members(1);
    const joiner = ip(4 * (n + 1) + 4);
    const joined = pairsOf([...room, joiner]).filter(([x, y]) => x === joiner || y === joiner);
    const join: ServerDelta = {
      type: 'delta',
      revision: 2,
      upsert: [],
      remove: [],
      room_pairs_add: joined,
      room_pairs_remove: [],
      relay_rooms: [{ id: 1, local: [...room, joiner], remote: [] }],
      relay_rooms_remove: [],
    };
    expect(await r.applyDelta(join)).toMatchObject({ revision: 2 });
    const pairScripts = scripts.filter((s) => s.includes('vpn_agent_'));
    expect(pairScripts).toEqual([
      `add element inet vpn_agent_wgroom0 room_pairs {\n${joined.map(([x, y]) => `  ${x} . ${y}`).join(',\n')}\n}\n`,
    ]);
    // The relay rewrote room 1's chain only: no other room's mates in its script.
    const relay = scripts.filter((s) => s.includes('vpn_relay_'));
    expect(relay.join('\n')).toContain(joiner);
    expect(relay.join('\n')).not.toContain(members(2)[0]);
    joins.push({ rooms: n, scripts: scripts.length, elements: elements(pairScripts[0]!), snapshotElements });

    scripts.length = 0;
    await r.applyDelta({
      type: 'delta',
      revision: 3,
      upsert: [],
      remove: [],
      room_pairs_add: [],
      room_pairs_remove: joined,
      relay_rooms: [{ id: 1, local: room, remote: [] }],
      relay_rooms_remove: [],
    });
    const left = scripts.filter((s) => s.includes('vpn_agent_'));
    expect(left).toHaveLength(1);
    expect(left[0]).toMatch(/^delete element inet vpn_agent_wgroom0 room_pairs \{/);
    expect(elements(left[0]!)).toBe(8);
    expect(left[0]).not.toContain('delete table');

    // A deleted room: its twelve pairs go, its relay entry too. Pairs it never had are no change.
    scripts.length = 0;
    await r.applyDelta({
      type: 'delta',
      revision: 4,
      upsert: [],
      remove: [],
      room_pairs_remove: [...pairsOf(room), ['10.99.9.9', '10.99.9.8']],
      relay_rooms_remove: [1],
    });
    expect(elements(scripts.find((s) => s.includes('vpn_agent_'))!)).toBe(12);

    // A repair rewrites the table from the desired state: the other rooms' pairs, nothing of room 1.
    scripts.length = 0;
    await r.repair();
    const table = scripts.find((s) => s.includes('delete table inet vpn_agent_'))!;
    expect(elements(table)).toBe(12 * (n - 1));
    expect(table).not.toContain(`${room[0]} . `);
    await r.close();
  });

  it('costs the same nft work at 1,000 rooms as at 10 (a snapshot rewrote every pair)', () => {
    console.log('room join on the agent', joins);
    const [small, large] = joins as [(typeof joins)[0], (typeof joins)[0]];
    expect(large.elements).toBe(8);
    expect(large.elements).toBe(small.elements);
    expect(large.scripts).toBe(small.scripts);
    expect(large.snapshotElements).toBe(12_000);
  });

  it("a member's move to another server: its key leaves, its address goes to the mesh link, in one write; no table rewrite", async () => {
    const { scripts, runner } = recordingRunner();
    const device = new FakeDevice();
    const r = new Reconciler({ backend: fakeBackend(runner, device), log: silentLogger, uplink: 'eth0' });
    // Room 1's four members are here, one of them (`mover`) a peer on this interface; a mesh link
    // to server B carries a mate there.
    const room = members(1);
    const mate = ip(900);
    const mover: AgentPeer = {
      public_key: randomKey(),
      preshared_key: randomKey(),
      allowed_ips: [`${room[0]}/32`],
    };
    const linkKey = randomKey();
    const linkPsk = randomKey();
    const link = (addresses: string[]): AgentPeer => ({
      public_key: linkKey,
      preshared_key: linkPsk,
      allowed_ips: addresses.map((a) => `${a}/32`).sort(),
      endpoint: '192.0.2.2:51820',
      persistent_keepalive: 25,
    });
    const base = snapshot(10);
    await r.applySnapshot({
      ...base,
      peers: [...base.peers, mover, link([mate])],
      room_pairs: [
        ...base.room_pairs!,
        ...pairsOf([...room, mate]).filter(([x, y]) => x === mate || y === mate),
      ],
      relay: {
        ...base.relay!,
        rooms: [{ id: 1, local: room, remote: [mate] }, ...base.relay!.rooms.slice(1)],
      },
    });
    expect(device.peers.get(keyToHex(mover.public_key))?.allowedIps).toEqual([`${room[0]}/32`]);
    scripts.length = 0;

    // What the control plane sends this server for the move (fleet/roomDelta.ts, roomMoveChanges):
    // the mover's key removed, the link to B re-sent with the mover's address, room 1's relay entry;
    // no pair changes (the three members left here still pair with the mover, now a mate on B).
    await r.applyDelta({
      type: 'delta',
      revision: 2,
      upsert: [link([mate, room[0]!])],
      remove: [mover.public_key],
      room_pairs_add: [],
      room_pairs_remove: [],
      relay_rooms: [{ id: 1, local: room.slice(1), remote: [room[0]!, mate] }],
      relay_rooms_remove: [],
    });
    expect(device.peers.has(keyToHex(mover.public_key))).toBe(false);
    expect(device.peers.get(keyToHex(linkKey))?.allowedIps.sort()).toEqual(
      [`${mate}/32`, `${room[0]}/32`].sort(),
    );
    // The firewall's pairs untouched; the relay rewrote room 1's chain only.
    expect(scripts.filter((s) => s.includes('vpn_agent_'))).toEqual([]);
    const relay = scripts.filter((s) => s.includes('vpn_relay_')).join('\n');
    expect(relay).toContain(room[1]);
    expect(relay).not.toContain(members(2)[0]);
    await r.close();
  });

  it('rewrites the whole table when nft refuses an element change (the table drifted)', async () => {
    const { scripts, runner } = recordingRunner(/^delete element/);
    const r = new Reconciler({ backend: fakeBackend(runner), log: silentLogger, uplink: 'eth0' });
    await r.applySnapshot(snapshot(3));
    scripts.length = 0;
    const result = await r.applyDelta({
      type: 'delta',
      revision: 2,
      upsert: [],
      remove: [],
      room_pairs_remove: pairsOf(members(2)),
    });
    expect(result).toMatchObject({ revision: 2 });
    const table = scripts.find((s) => s.includes('delete table inet vpn_agent_'))!;
    expect(elements(table)).toBe(24);
    expect(table).not.toContain(`${members(2)[0]} . `);
    await r.close();
  });
});
