import { afterAll, describe, expect, it } from 'vitest';
import type { CommandRunner } from '../exec.ts';
import { createRunner } from '../exec.ts';
import {
  RelayTable,
  directedBroadcast,
  normalizeRelayRooms,
  parseRelayCounters,
  renderRelay,
  renderRelayChange,
  type RelayRoom,
  type RelaySpec,
} from './relay.ts';
import { TestNet, nsExec, wireguardSkipReason } from '../testing/netns.ts';

const limits = {
  rate: 20,
  burst: 40,
  roomRate: 40,
  roomBurst: 80,
  maxBytes: 1400,
  denyPorts: [5355, 137, 138, 1900, 5353],
};
const spec = (rooms: RelayRoom[], iface = 'wg0'): RelaySpec => ({
  iface,
  broadcasts: ['10.127.255.255'],
  limits,
  rooms: normalizeRelayRooms(rooms).rooms,
});

/** `n` rooms of 4 local members: room i holds 10.64.x.(4i+2 … 4i+5). */
function rooms(n: number): RelayRoom[] {
  const out: RelayRoom[] = [];
  for (let i = 0; i < n; i++) {
    const local: string[] = [];
    for (let k = 0; k < 4; k++) {
      const host = 4 * i + 2 + k;
      local.push(`10.64.${host >> 8}.${host & 255}`);
    }
    out.push({ id: i + 1, local, remote: [] });
  }
  return out;
}

describe('renderRelay', () => {
  it('writes the exact table for one room with a mate on another server', () => {
    const script = renderRelay(spec([{ id: 7, local: ['10.64.0.2', '10.64.0.3'], remote: ['10.64.1.9'] }]));
    expect(script).toBe(`# vpn-agent: game discovery relay, generated
table netdev vpn_relay_wg0
delete table netdev vpn_relay_wg0
table netdev vpn_relay_wg0 {
  counter relayed {
  }
  counter dropped {
  }
  # Each sender's rate (entries expire a minute after its last discovery datagram).
  set rate4 {
    type ipv4_addr
    size 65535
    flags dynamic,timeout
    timeout 1m
  }
  # Local room member → its room's chain.
  map senders {
    type ipv4_addr : verdict
  }
  chain check {
    ip frag-off & 0x3fff != 0 counter name dropped drop comment "fragment"
    meta length > 1428 counter name dropped drop comment "larger than 1400 bytes of payload"
    udp dport { 137, 138, 1900, 5353, 5355 } counter name dropped drop comment "operating-system chatter"
    update @rate4 { ip saddr limit rate over 20/second burst 40 packets } counter name dropped drop comment "sender's limit"
    ip ttl set 64 comment "multicast leaves with TTL 1: a copy to another server is forwarded there"
  }
  chain ingress {
    type filter hook ingress device "wg0" priority 0; policy accept;
    ip daddr { 255.255.255.255, 10.127.255.255, 224.0.0.0/4 } meta l4proto udp ip saddr vmap @senders
  }
}
add limit netdev vpn_relay_wg0 budget_7 { rate over 40/second burst 80 packets }
add chain netdev vpn_relay_wg0 room_7
add rule netdev vpn_relay_wg0 room_7 jump check
add rule netdev vpn_relay_wg0 room_7 limit name "budget_7" counter name dropped drop comment "room's budget"
add rule netdev vpn_relay_wg0 room_7 ip saddr != 10.64.0.2 ip daddr set 10.64.0.2 dup to "wg0"
add rule netdev vpn_relay_wg0 room_7 ip saddr != 10.64.0.3 ip daddr set 10.64.0.3 dup to "wg0"
add rule netdev vpn_relay_wg0 room_7 ip saddr != 10.64.1.9 ip daddr set 10.64.1.9 dup to "wg0"
add rule netdev vpn_relay_wg0 room_7 counter name relayed drop
add element netdev vpn_relay_wg0 senders { 10.64.0.2 : goto room_7, 10.64.0.3 : goto room_7 }
`);
  });

  it('keys the map only by local members (a remote mate relays on its own server)', () => {
    const script = renderRelay(spec([{ id: 1, local: ['10.64.0.2'], remote: ['10.64.1.2', '10.64.2.2'] }]));
    expect(script).toContain('senders { 10.64.0.2 : goto room_1 }');
    expect(script).not.toContain('10.64.1.2 : goto');
  });

  it('leaves out rooms with nobody to relay to, bad addresses, and a peer listed in two rooms', () => {
    const { rooms: out, invalid } = normalizeRelayRooms([
      { id: 3, local: ['10.64.0.9'], remote: [] },
      { id: 1, local: ['10.64.0.2', '10.64.0.2', '10.64.0.3', 'x; flush ruleset'], remote: ['10.64.0.3'] },
      { id: 2, local: ['10.64.0.2', '10.64.0.4', '10.64.0.5'], remote: [] },
    ]);
    expect(invalid).toBe(1);
    expect(out).toEqual([
      { id: 1, local: ['10.64.0.2', '10.64.0.3'], remote: [] },
      { id: 2, local: ['10.64.0.4', '10.64.0.5'], remote: [] },
    ]);
  });

  it('refuses limits and names that could break the script', () => {
    expect(() => renderRelay({ ...spec([]), iface: 'wg0"; flush ruleset' })).toThrow();
    expect(() => renderRelay({ ...spec([]), limits: { ...limits, rate: 0 } })).toThrow();
    expect(() => renderRelay({ ...spec([]), limits: { ...limits, roomRate: 0 } })).toThrow();
    expect(() => renderRelay({ ...spec([]), limits: { ...limits, roomBurst: 1.5 } })).toThrow();
    expect(() => renderRelay({ ...spec([]), limits: { ...limits, denyPorts: [70000] } })).toThrow();
    expect(() => renderRelay({ ...spec([]), broadcasts: ['10.0.0.0/8'] })).toThrow();
  });

  it('finds the directed broadcast of the pool', () => {
    expect(directedBroadcast('10.64.0.1/10')).toBe('10.127.255.255');
    expect(directedBroadcast('192.168.7.1/24')).toBe('192.168.7.255');
    expect(directedBroadcast('10.64.0.2/32')).toBeNull();
    expect(directedBroadcast('fd00::1/64')).toBeNull();
  });
});

describe('renderRelayChange', () => {
  it('touches only the room whose membership changed', () => {
    const before = spec(rooms(1000));
    const changed = rooms(1000);
    changed[499] = { ...changed[499]!, local: [...changed[499]!.local, '10.65.0.1'] };
    const script = renderRelayChange(before, spec(changed));
    // The room's budget is not written again: its state (what the room has used) survives.
    expect(script).toBe(`flush chain netdev vpn_relay_wg0 room_500
add rule netdev vpn_relay_wg0 room_500 jump check
add rule netdev vpn_relay_wg0 room_500 limit name "budget_500" counter name dropped drop comment "room's budget"
add rule netdev vpn_relay_wg0 room_500 ip saddr != 10.64.7.206 ip daddr set 10.64.7.206 dup to "wg0"
add rule netdev vpn_relay_wg0 room_500 ip saddr != 10.64.7.207 ip daddr set 10.64.7.207 dup to "wg0"
add rule netdev vpn_relay_wg0 room_500 ip saddr != 10.64.7.208 ip daddr set 10.64.7.208 dup to "wg0"
add rule netdev vpn_relay_wg0 room_500 ip saddr != 10.64.7.209 ip daddr set 10.64.7.209 dup to "wg0"
add rule netdev vpn_relay_wg0 room_500 ip saddr != 10.65.0.1 ip daddr set 10.65.0.1 dup to "wg0"
add rule netdev vpn_relay_wg0 room_500 counter name relayed drop
add element netdev vpn_relay_wg0 senders { 10.65.0.1 : goto room_500 }
`);
    expect(renderRelayChange(before, spec(rooms(1000)))).toBe('');
  });

  it('moves a member between rooms and deletes an emptied room after its elements', () => {
    const before = spec([
      { id: 1, local: ['10.64.0.2', '10.64.0.3'], remote: [] },
      { id: 2, local: ['10.64.0.4', '10.64.0.5'], remote: [] },
    ]);
    const after = spec([
      { id: 1, local: ['10.64.0.2', '10.64.0.3', '10.64.0.4'], remote: [] },
      { id: 2, local: ['10.64.0.5'], remote: [] },
    ]);
    const script = renderRelayChange(before, after);
    const lines = script.trim().split('\n');
    expect(lines[0]).toBe('delete element netdev vpn_relay_wg0 senders { 10.64.0.4, 10.64.0.5 }');
    expect(lines.at(-3)).toBe('delete chain netdev vpn_relay_wg0 room_2');
    expect(lines.at(-2)).toBe('delete limit netdev vpn_relay_wg0 budget_2');
    expect(lines.at(-1)).toBe('add element netdev vpn_relay_wg0 senders { 10.64.0.4 : goto room_1 }');
    expect(script).not.toMatch(/room_2 ip saddr/);
  });
});

/** A runner that records nft scripts and answers `ip -j link show` with a given index. */
function fakeRunner(): CommandRunner & { scripts: string[]; ifindex: number } {
  const r = {
    netns: null,
    scripts: [] as string[],
    ifindex: 7,
    run(file: string, args: readonly string[], options?: { input?: string }) {
      if (file === 'ip')
        return Promise.resolve({ stdout: JSON.stringify([{ ifindex: r.ifindex }]), stderr: '' });
      if (options?.input !== undefined) r.scripts.push(options.input);
      const stdout = args.includes('counters')
        ? JSON.stringify({
            nftables: [
              { counter: { name: 'relayed', packets: 5 } },
              { counter: { name: 'dropped', packets: 2 } },
            ],
          })
        : '';
      return Promise.resolve({ stdout, stderr: '' });
    },
    spawn(): never {
      throw new Error('no');
    },
  };
  return r;
}

describe('RelayTable', () => {
  it('writes the whole table once, then only what changed, nothing when nothing did', async () => {
    const runner = fakeRunner();
    const table = new RelayTable(runner);
    await table.apply(spec(rooms(50)), { verify: true });
    expect(runner.scripts).toHaveLength(1);
    expect(runner.scripts[0]).toContain('delete table netdev vpn_relay_wg0');
    await table.apply(spec(rooms(50)), { verify: true });
    expect(runner.scripts).toHaveLength(1);
    await table.apply(spec(rooms(51)), { verify: true });
    expect(runner.scripts).toHaveLength(2);
    expect(runner.scripts[1]).not.toContain('delete table');
    expect(runner.scripts[1]!.match(/room_\d+/g)!.every((c) => c === 'room_51')).toBe(true);
  });

  it('writes the whole table again when the interface was re-created or the limits changed', async () => {
    const runner = fakeRunner();
    const table = new RelayTable(runner);
    await table.apply(spec(rooms(3)), { verify: true });
    runner.ifindex = 9;
    await table.apply(spec(rooms(3)), { verify: true });
    expect(runner.scripts).toHaveLength(2);
    expect(runner.scripts[1]).toContain('delete table');
    await table.apply({ ...spec(rooms(3)), limits: { ...limits, rate: 5 } }, { verify: true });
    expect(runner.scripts).toHaveLength(3);
    expect(runner.scripts[2]).toContain('limit rate over 5/second burst 40 packets');
    await table.apply({ ...spec(rooms(3)), limits: { ...limits, rate: 5, roomRate: 7 } }, { verify: true });
    expect(runner.scripts).toHaveLength(4);
    expect(runner.scripts[3]).toContain('budget_3 { rate over 7/second burst 80 packets }');
  });

  it('removes the table when switched off, and keeps counting across re-creations', async () => {
    const runner = fakeRunner();
    const table = new RelayTable(runner);
    expect(await table.counters()).toBeNull();
    await table.apply(spec(rooms(2)));
    expect(table.active).toBe(true);
    expect(await table.counters()).toEqual({ relayed: 5, dropped: 2 });
    await table.apply(null);
    expect(table.active).toBe(false);
    expect(runner.scripts.at(-1)).toBe('table netdev vpn_relay_wg0\ndelete table netdev vpn_relay_wg0\n');
    await table.apply(spec(rooms(2)));
    expect(await table.counters()).toEqual({ relayed: 10, dropped: 4 });
  });

  it('parses nft counters', () => {
    expect(
      parseRelayCounters(
        '{"nftables": [{"metainfo": {"version": "1.0.6"}}, {"counter": {"family": "netdev", "name": "relayed", "table": "t", "handle": 3, "packets": 12, "bytes": 400}}, {"counter": {"name": "dropped", "packets": 3}}]}',
      ),
    ).toEqual({ relayed: 12, dropped: 3 });
  });
});

const skip = wireguardSkipReason();
describe.skipIf(skip !== null)(`relay table in a namespace${skip ? ` — omitido: ${skip}` : ''}`, () => {
  const net = new TestNet();
  afterAll(() => net.cleanup());

  it('nft accepts the whole table and a change, and the change leaves the other rooms alone', async () => {
    const ns = net.addNamespace('vrl');
    const other = net.addNamespace('vrlo');
    const { ifA } = net.link(ns, '192.0.2.2/24', other, '192.0.2.1/24');
    const table = new RelayTable(createRunner(ns));
    await table.apply(spec(rooms(300), ifA), { verify: true });
    const listed = () => nsExec(ns, 'nft', ['list', 'table', 'netdev', `vpn_relay_${ifA}`]);
    const first = listed();
    expect(first.match(/chain room_\d+ \{/g)).toHaveLength(300);
    const changed = rooms(300);
    changed[10] = { ...changed[10]!, local: changed[10]!.local.slice(0, 3) };
    await table.apply(spec(changed, ifA), { verify: true });
    const second = listed();
    const chain = (text: string, id: number) => new RegExp(`chain room_${id} \\{[^}]*\\}`).exec(text)?.[0];
    expect(chain(second, 11)).not.toContain('10.64.0.45');
    expect(chain(second, 12)).toBe(chain(first, 12));
    expect(second).not.toContain('10.64.0.45 : goto');
    expect(second).toContain('limit budget_11 {');
    // A room that goes takes its budget with it.
    await table.apply(spec(changed.slice(0, 299), ifA), { verify: true });
    const third = listed();
    expect(third).not.toContain('chain room_300 ');
    expect(third).not.toContain('limit budget_300 ');
    expect(third).toContain('limit budget_299 {');
    expect(await table.counters()).toEqual({ relayed: 0, dropped: 0 });
    await table.apply(null);
    expect(nsExec(ns, 'nft', ['list', 'ruleset'])).not.toContain('vpn_relay_');
  });
});
