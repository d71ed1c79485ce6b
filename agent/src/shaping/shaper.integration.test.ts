/**
 * The shaper against the real kernel (issue 35), in a namespace with a tun device standing in for
 * wireguard-go's: a cold apply builds both directions, a restart reads them back and changes
 * nothing, a delta touches one peer's class only, drift is repaired, and the last shaped peer's
 * removal leaves the interface as it found it. Traffic through it: server/test/dataplane/speed.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRunner } from '../exec.ts';
import { silentLogger } from '../log.ts';
import { TestNet, nsExec, wireguardSkipReason } from '../testing/netns.ts';
import { Shaper, ifbName } from './shaper.ts';

const skip = wireguardSkipReason();
const title = `per-peer speed with tc${skip ? ` — omitido: ${skip}` : ''}`;

describe.skipIf(skip !== null)(title, () => {
  const net = new TestNet();
  let ns = '';
  const iface = 'wgspd0';
  const tc = (...args: string[]) => nsExec(ns, 'tc', args);

  beforeAll(() => {
    ns = net.addNamespace('spdsh');
    nsExec(ns, 'ip', ['tuntap', 'add', 'dev', iface, 'mode', 'tun']);
    nsExec(ns, 'ip', ['link', 'set', iface, 'up']);
  });
  afterAll(() => net.cleanup());

  const desired = (entries: [string, { down?: number; up?: number }][]) => new Map(entries);

  it('builds, reads back, changes one peer, repairs drift and tears down', async () => {
    const runner = createRunner(ns);
    const shaper = new Shaper(runner, silentLogger);
    const cold = await shaper.converge(
      iface,
      desired([
        ['10.64.0.2', { down: 2000, up: 2000 }],
        ['10.64.0.3', { down: 256 }],
        ['10.64.1.4', { up: 512 }],
      ]),
    );
    expect(cold).toMatchObject({ shaped: 4, rebuilt: true });
    expect(tc('class', 'show', 'dev', iface)).toMatch(/class htb 1:2 root leaf 2: .*rate 2Mbit ceil 2Mbit/);
    expect(tc('class', 'show', 'dev', iface)).toMatch(/class htb 1:3 root leaf 3: .*rate 256Kbit/);
    expect(tc('class', 'show', 'dev', ifbName(iface))).toMatch(/rate 512Kbit/);
    expect(tc('filter', 'show', 'dev', iface, 'parent', 'ffff:')).toContain(
      `Redirect to device ${ifbName(iface)}`,
    );

    // A restarted agent reads it all back: nothing to change.
    const restarted = new Shaper(runner, silentLogger);
    const again = await restarted.converge(
      iface,
      desired([
        ['10.64.0.2', { down: 2000, up: 2000 }],
        ['10.64.0.3', { down: 256 }],
        ['10.64.1.4', { up: 512 }],
      ]),
    );
    expect(again).toEqual({ shaped: 4, lines: 0, rebuilt: false });

    // A delta: one peer reduced, in place (same class).
    const delta = await restarted.update(iface, new Map([['10.64.0.2', { down: 256, up: 256 }]]));
    // One class change per direction (and its FIFO's size, where the kernel has no fq_codel).
    expect(delta).toMatchObject({ shaped: 4, rebuilt: false });
    expect(delta === 'converge' ? 0 : delta.lines).toBeGreaterThanOrEqual(2);
    expect(delta === 'converge' ? 0 : delta.lines).toBeLessThanOrEqual(4);
    expect(tc('class', 'show', 'dev', iface)).toMatch(
      /class htb 1:2 root leaf 2: .*rate 256Kbit ceil 256Kbit/,
    );

    // Drift (someone deleted a class's filter): the next repair puts back only that.
    tc(
      'filter',
      'del',
      'dev',
      iface,
      'parent',
      '1:',
      'protocol',
      'ip',
      'prio',
      '10',
      'handle',
      '100:3:a41',
      'u32',
    );
    const repaired = await restarted.converge(
      iface,
      desired([
        ['10.64.0.2', { down: 256, up: 256 }],
        ['10.64.0.3', { down: 256 }],
        ['10.64.1.4', { up: 512 }],
      ]),
    );
    expect(repaired.rebuilt).toBe(false);
    expect(repaired.lines).toBeGreaterThan(0);
    expect(repaired.lines).toBeLessThanOrEqual(4);
    expect(tc('-j', 'filter', 'show', 'dev', iface, 'parent', '1:')).toContain('"fh":"100:3:a41"');

    // Nobody shaped any more: the interface is as it was, the ifb device gone.
    await restarted.converge(iface, new Map());
    expect(tc('qdisc', 'show', 'dev', iface)).not.toMatch(/htb|ingress/);
    expect(() => nsExec(ns, 'ip', ['link', 'show', ifbName(iface)])).toThrow();
    // While nobody is shaped an unlimited peer's delta costs nothing; a first speed asks for a pass.
    expect(await restarted.update(iface, new Map([['10.64.0.9', null]]))).toEqual({
      shaped: 0,
      lines: 0,
      rebuilt: false,
    });
    expect(await restarted.update(iface, new Map([['10.64.0.9', { down: 256 }]]))).toBe('converge');
  });
});
