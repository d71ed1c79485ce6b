import { afterAll, describe, expect, it } from 'vitest';
import { createRunner } from './exec.ts';
import { applyFirewall, defaultUplink, firewallTable, removeFirewall, renderFirewall } from './firewall.ts';
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

  it('says what to do when there is no default route', async () => {
    const ns = net.addNamespace('vfwn');
    await expect(defaultUplink(createRunner(ns))).rejects.toThrow(/--uplink/);
  });
});
