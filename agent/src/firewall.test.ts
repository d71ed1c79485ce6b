import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from './exec.ts';
import {
  applyFirewall,
  defaultUplink,
  firewallTable,
  normalizeRoomPairs,
  removeFirewall,
  renderFirewall,
  type RoomPair,
} from './firewall.ts';
import { TestNet, nsExec, wireguardSkipReason } from './testing/netns.ts';

describe('renderFirewall', () => {
  const script = renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: '10.64.0.0/10', nat: true });

  it('replaces the table in one transaction (create, delete, define)', () => {
    const lines = script.split('\n');
    expect(lines).toContain('table inet vpn_agent_wg0');
    expect(lines).toContain('delete table inet vpn_agent_wg0');
    expect(script.indexOf('delete table')).toBeLessThan(script.indexOf('table inet vpn_agent_wg0 {'));
  });

  it('drops tunnel→tunnel unless the pair is in room_pairs, and lets tunnel→uplink out', () => {
    const room = script.indexOf('@room_pairs accept');
    const isolation = script.indexOf('counter drop comment "peer isolation"');
    expect(room).toBeGreaterThan(0);
    expect(isolation).toBeGreaterThan(room);
    expect(script).toContain('iifname "wg0" oifname "eth0" accept');
    expect(script).toContain('iifname "eth0" oifname "wg0" ct state established,related accept');
    expect(script).toContain('policy accept');
  });

  it('masquerades the pool out of the uplink only when NAT is on, IPv6 pools with ip6', () => {
    expect(script).toContain('ip saddr 10.64.0.0/10 oifname "eth0" masquerade');
    expect(renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: '10.64.0.0/10', nat: false })).not.toContain(
      'masquerade',
    );
    expect(renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: 'fd00:64::/48', nat: true })).toContain(
      'ip6 saddr fd00:64::/48 oifname "eth0" masquerade',
    );
  });

  it('leaves room_pairs without elements when there are no pairs', () => {
    expect(script).toMatch(/set room_pairs \{\n {4}type ipv4_addr \. ipv4_addr\n {2}\}/);
    expect(script).not.toContain('add element');
    expect(
      renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: '10.64.0.0/10', nat: true, roomPairs: [] }),
    ).toBe(script);
  });

  it('renders room pairs into the set, in the same script that recreates the table', () => {
    const withPairs = renderFirewall({
      iface: 'wg0',
      uplink: 'eth0',
      pool: '10.64.0.0/10',
      nat: true,
      roomPairs: [
        ['10.64.0.2', '10.64.1.2'],
        ['10.64.1.2', '10.64.0.2'],
        ['10.64.0.2', '10.64.1.2'],
      ],
    });
    expect(withPairs).toContain(
      '    type ipv4_addr . ipv4_addr\n    elements = {\n      10.64.0.2 . 10.64.1.2,\n      10.64.1.2 . 10.64.0.2\n    }\n  }',
    );
    // The IPv6 set stays empty; everything else is unchanged.
    expect(withPairs.replace(/\n {4}elements = \{\n[^}]*\}/, '')).toBe(script);
  });

  it('splits thousands of pairs into chunks of add element after the table', () => {
    const pairs: RoomPair[] = [];
    for (let i = 0; i < 1250; i++) {
      const a = `10.64.${i >> 8}.${i & 255}`;
      const b = `10.65.${i >> 8}.${i & 255}`;
      pairs.push([a, b], [b, a]);
    }
    const text = renderFirewall({
      iface: 'wg0',
      uplink: 'eth0',
      pool: '10.64.0.0/10',
      nat: false,
      roomPairs: pairs,
    });
    expect(text.match(/^ +\d+\.\d+\.\d+\.\d+ \. \d+\.\d+\.\d+\.\d+,?$/gm)).toHaveLength(2500);
    expect(text.match(/^add element inet vpn_agent_wg0 room_pairs \{$/gm)).toHaveLength(2);
    expect(text.indexOf('add element')).toBeGreaterThan(text.indexOf('chain forward'));
  });

  it('validates pair addresses: canonical, deduplicated, nothing else reaches the script', () => {
    expect(
      normalizeRoomPairs([
        ['10.64.000.002', '10.64.1.2'],
        ['10.64.0.2', '10.64.1.2'],
        ['10.64.0.2', '10.64.0.2'],
        ['10.64.0.256', '10.64.1.2'],
        ['10.64.0.2 . 0.0.0.0/0', '10.64.1.2'],
      ]),
    ).toEqual({
      pairs: [['10.64.0.2', '10.64.1.2']],
      invalid: [
        ['10.64.0.2', '10.64.0.2'],
        ['10.64.0.256', '10.64.1.2'],
        ['10.64.0.2 . 0.0.0.0/0', '10.64.1.2'],
      ],
    });
    for (const bad of ['10.64.0.2 }; flush ruleset; #', 'fd00::2', '10.64.0.2\n', '1.2.3'])
      expect(() =>
        renderFirewall({
          iface: 'wg0',
          uplink: 'eth0',
          pool: '10.64.0.0/10',
          nat: true,
          roomPairs: [[bad, '10.64.1.2']],
        }),
      ).toThrow(/par de sala/);
  });

  it("drops the server's private, shared and link-local networks from the tunnel, after rooms", () => {
    const text = renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: '10.64.0.0/10', nat: true });
    expect(text).toContain(
      'elements = { 10.0.0.0/8, 100.64.0.0/10, 169.254.0.0/16, 172.16.0.0/12, 192.168.0.0/16 }',
    );
    expect(text).toContain('elements = { fc00::/7, fe80::/10 }');
    const forward = text.slice(text.indexOf('chain forward'));
    const order = [
      'ip saddr . ip daddr @room_pairs accept',
      'comment "peer isolation"',
      'iifname "wg0" ip daddr @blocked4 counter drop',
      'iifname "wg0" ip6 daddr @blocked6 counter drop',
      'iifname "wg0" oifname "eth0" accept',
    ].map((rule) => forward.indexOf(rule));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
  });

  it('protects the host: from the tunnel only pings to its tunnel address and replies get in', () => {
    const text = renderFirewall({
      iface: 'wg0',
      uplink: 'eth0',
      pool: '10.64.0.0/10',
      nat: true,
      address: '10.64.0.1',
    });
    const input = text.slice(text.indexOf('chain input'), text.indexOf('chain forward'));
    expect(input).toContain('type filter hook input priority filter; policy accept;');
    expect(
      input
        .trim()
        .split('\n')
        .slice(1, -1)
        .map((l) => l.trim()),
    ).toEqual([
      'type filter hook input priority filter; policy accept;',
      'iifname "wg0" ct state established,related accept comment "replies to the host\'s connections"',
      'iifname "wg0" ip daddr 10.64.0.1 icmp type echo-request accept comment "ping the tunnel address"',
      'iifname "wg0" counter drop comment "host protected from the tunnel"',
    ]);
    // Without the address nothing but replies; with operator ports, those TCP ports as well.
    expect(script).not.toContain('echo-request');
    const open = renderFirewall({
      iface: 'wg0',
      uplink: 'eth0',
      pool: '10.64.0.0/10',
      nat: true,
      address: '10.64.0.1/10',
      hostTcpPorts: [8080, 443, 443],
    });
    expect(open).toContain('iifname "wg0" tcp dport { 443, 8080 } accept');
    expect(open).toContain('ip daddr 10.64.0.1 icmp type echo-request accept');
    expect(
      renderFirewall({
        iface: 'wg0',
        uplink: 'eth0',
        pool: 'fd00:64::/48',
        nat: true,
        address: 'fd00:64::1',
      }),
    ).toContain('ip6 daddr fd00:64::1 icmpv6 type echo-request accept');
    for (const bad of [
      { address: '10.64.0.1; flush ruleset' },
      { hostTcpPorts: [0] },
      { hostTcpPorts: [70000] },
    ])
      expect(() =>
        renderFirewall({ iface: 'wg0', uplink: 'eth0', pool: '10.64.0.0/10', nat: true, ...bad }),
      ).toThrow();
  });

  it('refuses interface names that could break out of the script', () => {
    expect(() =>
      renderFirewall({ iface: 'wg0"; flush ruleset', uplink: 'eth0', pool: '10.64.0.0/10', nat: true }),
    ).toThrow();
    expect(firewallTable('wg-0.a')).toBe('vpn_agent_wg_0_a');
  });
});

const skip = wireguardSkipReason();
describe.skipIf(skip !== null)(`nftables in a namespace${skip ? ` — omitido: ${skip}` : ''}`, () => {
  const net = new TestNet();
  afterAll(() => net.cleanup());

  it('applies idempotently, finds the default-route uplink, and removes its table', async () => {
    const ns = net.addNamespace('vfw');
    const other = net.addNamespace('vfwo');
    const { ifA } = net.link(ns, '192.0.2.2/24', other, '192.0.2.1/24');
    nsExec(ns, 'ip', ['route', 'add', 'default', 'via', '192.0.2.1']);
    const runner = createRunner(ns);
    expect(await defaultUplink(runner)).toBe(ifA);
    const spec = { iface: 'wgfw0', uplink: ifA, pool: '10.64.0.0/10', nat: true };
    await applyFirewall(runner, spec);
    const first = nsExec(ns, 'nft', ['list', 'ruleset']);
    await applyFirewall(runner, spec);
    expect(nsExec(ns, 'nft', ['list', 'ruleset'])).toBe(first);
    expect(first.match(/table inet vpn_agent_wgfw0/g)).toHaveLength(1);
    await removeFirewall(runner, 'wgfw0');
    await removeFirewall(runner, 'wgfw0');
    expect(nsExec(ns, 'nft', ['list', 'ruleset'])).not.toContain('vpn_agent_wgfw0');
  });

  it('loads room pairs (thousands too), replaces them on the next apply, empties them', async () => {
    const ns = net.addNamespace('vfwr');
    const runner = createRunner(ns);
    const spec = { iface: 'wgfwr0', uplink: 'lo', pool: '10.64.0.0/10', nat: false };
    const elements = () =>
      nsExec(ns, 'nft', ['-j', 'list', 'set', 'inet', 'vpn_agent_wgfwr0', 'room_pairs']).match(/"concat"/g)
        ?.length ?? 0;
    const pairs: RoomPair[] = [];
    for (let i = 0; i < 1500; i++) {
      const a = `10.64.${i >> 8}.${i & 255}`;
      const b = `10.65.${i >> 8}.${i & 255}`;
      pairs.push([a, b], [b, a]);
    }
    await applyFirewall(runner, { ...spec, roomPairs: pairs });
    expect(elements()).toBe(3000);
    const first = nsExec(ns, 'nft', ['list', 'ruleset']);
    await applyFirewall(runner, { ...spec, roomPairs: pairs });
    expect(nsExec(ns, 'nft', ['list', 'ruleset'])).toBe(first);
    await applyFirewall(runner, { ...spec, roomPairs: [['10.64.0.2', '10.64.0.3']] });
    const set = nsExec(ns, 'nft', ['list', 'set', 'inet', 'vpn_agent_wgfwr0', 'room_pairs']);
    expect(set).toContain('10.64.0.2 . 10.64.0.3');
    expect(elements()).toBe(1);
    await applyFirewall(runner, spec);
    expect(elements()).toBe(0);
    await removeFirewall(runner, 'wgfwr0');
  });

  it('says what to do when there is no default route', async () => {
    const ns = net.addNamespace('vfwn');
    await expect(defaultUplink(createRunner(ns))).rejects.toThrow(/--uplink/);
  });
});
