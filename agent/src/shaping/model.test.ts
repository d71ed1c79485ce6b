/**
 * The shaping diff on plain data (issue 35): what a snapshot, a delta and a restart's read-back turn
 * into, as the `tc -batch` lines they would run. The real kernel is in shaper.integration.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  DirectionState,
  deltaShaping,
  desiredShaping,
  handleOf,
  planDirection,
  skeletonLines,
  wantOf,
  type LiveDirection,
} from './model.ts';
import { parseClasses, parseDirection, parseRate, type TcFilter, type TcQdisc } from './tcRead.ts';

const empty = (): LiveDirection => ({
  skeleton: false,
  any: false,
  entries: new Map(),
  strayClasses: [],
  strayFilters: [],
  usedMinors: new Set(),
});

/** A read-back with the skeleton and these peers (address → minor, kbit). */
function live(peers: [string, number, number][], extra: Partial<LiveDirection> = {}): LiveDirection {
  const l = empty();
  l.skeleton = true;
  l.any = true;
  for (const [address, minor, kbit] of peers) {
    l.entries.set(address, {
      minor,
      kbit,
      handle: handleOf(address)!,
      leaf: true,
    });
    l.usedMinors.add(minor);
  }
  return { ...l, ...extra };
}

describe('desired shaping', () => {
  it('takes each limited peer’s first IPv4 /32 and leaves unlimited ones and mesh links out', () => {
    const d = desiredShaping([
      { allowedIps: ['10.64.0.2/32'], downKbit: 2000, upKbit: 2000 },
      { allowedIps: ['10.64.0.3/32'] },
      { allowedIps: ['10.64.0.4/32'], downKbit: 256 },
      { allowedIps: ['10.64.1.0/24', '10.64.9.9/32'], upKbit: 100 },
    ]);
    expect([...d]).toEqual([
      ['10.64.0.2', { down: 2000, up: 2000 }],
      ['10.64.0.4', { down: 256 }],
      ['10.64.9.9', { up: 100 }],
    ]);
    expect([...wantOf(d, 'up')]).toEqual([
      ['10.64.0.2', 2000],
      ['10.64.9.9', 100],
    ]);
  });

  it('a delta’s removal and re-addition of one address (a re-key) nets to the new rate', () => {
    const changes = deltaShaping(
      [{ allowedIps: ['10.64.0.2/32'], downKbit: 2000 }],
      [{ allowedIps: ['10.64.0.2/32'], downKbit: 256, upKbit: 256 }, { allowedIps: ['10.64.0.5/32'] }],
    );
    expect([...changes]).toEqual([
      ['10.64.0.2', { down: 256, up: 256 }],
      ['10.64.0.5', null],
    ]);
  });
});

describe('planDirection', () => {
  it('cold start: the skeleton, then one class, leaf and filter per peer', () => {
    const p = planDirection('wg0', 'down', new Map([['10.64.5.9', 2000]]), empty(), 'fq_codel');
    expect(p.lines.slice(0, 2)).toEqual([
      'qdisc replace dev wg0 root handle 1: htb default 0 direct_qlen 1000',
      'filter add dev wg0 parent 1: protocol ip prio 10 handle 10: u32 divisor 256',
    ]);
    expect(p.lines).toHaveLength(skeletonLines('wg0', 'down').length + 3);
    expect(p.lines.slice(-3)).toEqual([
      // burst and cburst: 50 ms of the rate (2,000,000 / 8 × 0.05 = 12,500 bytes), at least 3,200.
      'class add dev wg0 parent 1: classid 1:2 htb rate 2000kbit ceil 2000kbit burst 12500 cburst 12500 quantum 1514',
      'qdisc add dev wg0 parent 1:2 handle 2: fq_codel flows 32',
      'filter add dev wg0 parent 1: protocol ip prio 10 handle 105:9:a41 u32 ht 105:9: match ip dst 10.64.5.9/32 classid 1:2',
    ]);
    // The last skeleton line links the root table, on the destination for traffic to the peer.
    expect(skeletonLines('wg0', 'down').at(-1)).toBe(
      'filter add dev wg0 parent 1: protocol ip prio 10 u32 ht 800:: match u32 0 0 link 10: hashkey mask 0x0000ff00 at 16',
    );
    expect(skeletonLines('wg0-ifb', 'up').at(-1)).toContain('at 12');
  });

  it('a foreign root qdisc is deleted before the rebuild', () => {
    const p = planDirection('wg0', 'down', new Map(), { ...empty(), any: true }, 'bfifo');
    expect(p.lines[0]).toBe('qdisc del dev wg0 root');
  });

  it('restart with everything in place: nothing to do', () => {
    const p = planDirection(
      'wg0',
      'down',
      new Map([
        ['10.64.0.2', 2000],
        ['10.64.0.3', 256],
      ]),
      live([
        ['10.64.0.2', 2, 2000],
        ['10.64.0.3', 3, 256],
      ]),
      'fq_codel',
    );
    expect(p.lines).toEqual([]);
    expect(p.entries.get('10.64.0.3')).toMatchObject({ minor: 3, kbit: 256 });
  });

  it('drift: a changed rate changed in place, a gone peer deleted, a new one added on a free minor, strays removed', () => {
    const p = planDirection(
      'wg0-ifb',
      'up',
      new Map([
        ['10.64.0.2', 256],
        ['10.64.0.4', 1000],
      ]),
      live(
        [
          ['10.64.0.2', 2, 2000],
          ['10.64.0.3', 3, 2000],
        ],
        {
          strayClasses: [7],
          strayFilters: ['100:1:1'],
          usedMinors: new Set([2, 3, 7]),
        },
      ),
      'bfifo',
    );
    expect(p.lines).toEqual([
      'filter del dev wg0-ifb parent 1: protocol ip prio 10 handle 100:1:1 u32',
      'filter del dev wg0-ifb parent 1: protocol ip prio 10 handle 100:3:a41 u32',
      'class del dev wg0-ifb parent 1: classid 1:3',
      'class del dev wg0-ifb parent 1: classid 1:7',
      'class change dev wg0-ifb parent 1: classid 1:2 htb rate 256kbit ceil 256kbit burst 3200 cburst 3200 quantum 1514',
      // Without fq_codel the FIFO follows the rate: 300 ms of it, at least 16 packets of 1,514 bytes
      // (256 kbit/s: 9,600 bytes, so 24,224).
      'qdisc change dev wg0-ifb parent 1:2 handle 2: bfifo limit 24224',
      // 1 Mbit/s: burst 50 ms = 6,250 bytes; FIFO 300 ms = 37,500 bytes.
      'class add dev wg0-ifb parent 1: classid 1:3 htb rate 1000kbit ceil 1000kbit burst 6250 cburst 6250 quantum 1514',
      'qdisc add dev wg0-ifb parent 1:3 handle 3: bfifo limit 37500',
      'filter add dev wg0-ifb parent 1: protocol ip prio 10 handle 100:4:a41 u32 ht 100:4: match ip src 10.64.0.4/32 classid 1:3',
    ]);
  });
});

describe('a delta against the last applied state', () => {
  it('touches only the changed peer: one line for a speed change, three to add, two to remove', () => {
    const entries = new Map(
      Array.from({ length: 10_000 }, (_, i) => {
        const address = `10.64.${(i + 2) >> 8}.${(i + 2) & 255}`;
        return [address, { minor: i + 2, kbit: 2000, handle: handleOf(address)!, leaf: true }] as const;
      }),
    );
    const state = new DirectionState(new Map(entries));
    const change = state.plan('wg0', 'down', new Map([['10.64.0.9', { down: 256, up: 256 }]]), 'fq_codel');
    expect(change.lines).toEqual([
      'class change dev wg0 parent 1: classid 1:9 htb rate 256kbit ceil 256kbit burst 3200 cburst 3200 quantum 1514',
    ]);
    const add = state.plan('wg0', 'down', new Map([['10.65.0.9', { down: 2000 }]]), 'fq_codel');
    expect(add.lines).toHaveLength(3);
    expect(add.lines[0]).toContain('classid 1:2712'); // the first free minor after 10,001
    const remove = state.plan('wg0', 'down', new Map([['10.64.0.9', null]]), 'fq_codel');
    expect(remove.lines).toEqual([
      'filter del dev wg0 parent 1: protocol ip prio 10 handle 100:9:a41 u32',
      'class del dev wg0 parent 1: classid 1:9',
    ]);
    // Unlimited and not shaped: nothing at all.
    expect(state.plan('wg0', 'down', new Map([['10.64.200.1', null]]), 'fq_codel').lines).toEqual([]);
  });
});

describe('reading tc back', () => {
  const u32 = (options: TcFilter['options']): TcFilter => ({ kind: 'u32', pref: 10, options });
  /** The download skeleton's filters (destination offset 16) as `tc -j filter show` prints them. */
  const skeletonFilters: TcFilter[] = [
    u32({ fh: '10:', ht_divisor: 256 }),
    ...Array.from({ length: 256 }, (_, b) => u32({ fh: `${(0x100 + b).toString(16)}:`, ht_divisor: 256 })),
    ...Array.from({ length: 256 }, (_, b) =>
      u32({
        fh: `10:${b.toString(16)}:800`,
        link: `${(0x100 + b).toString(16)}:`,
        hash_mask: 'ff',
        hash_off: 16,
      }),
    ),
    u32({ fh: '800::800', link: '10:', hash_mask: 'ff00', hash_off: 16 }),
  ];

  it('parses rates and classes as iproute2 6.1 prints them', () => {
    expect(parseRate('2Mbit')).toBe(2000);
    expect(parseRate('256Kbit')).toBe(256);
    expect(parseRate('2500Kbit')).toBe(2500);
    expect(
      parseClasses(
        'class htb 1:7 root leaf 7: prio 0 rate 2Mbit ceil 2Mbit burst 12500b cburst 12500b \nclass htb 1:a root prio 0 rate 1Mbit ceil 2Mbit burst 12500b cburst 12500b \n',
      ),
    ).toEqual(
      new Map([
        [7, 2000],
        [10, null],
      ]),
    );
  });

  it('an older agent’s sizes (10 ms burst, 100 ms FIFO) read as changed, so a restart resizes them in place', () => {
    // Lines as iproute2 6.1 printed them on this machine for classes written with 50 ms bursts
    // (333 kbit/s and 7,777 kbit/s come back a few bytes off) and with an older agent's 10 ms.
    expect(
      parseClasses(
        [
          'class htb 1:13 root prio 0 rate 333Kbit ceil 333Kbit burst 3199b cburst 3199b ',
          'class htb 1:15 root prio 0 rate 7777Kbit ceil 7777Kbit burst 48604b cburst 48604b ',
          'class htb 1:7 root leaf 7: prio 0 rate 2Mbit ceil 2Mbit burst 3200b cburst 3200b ',
          'class htb 1:8 root leaf 8: prio 0 rate 2Mbit ceil 2Mbit burst 12500b cburst 3200b ',
        ].join('\n'),
      ),
    ).toEqual(
      new Map([
        [0x13, 333],
        [0x15, 7777],
        [7, null],
        [8, null],
      ]),
    );
    const filters: TcFilter[] = [
      ...skeletonFilters,
      u32({ fh: '105:9:a41', flowid: '1:7', match: { value: 'a400509', mask: 'ffffffff', off: 16 } }),
      u32({ fh: '105:a:a41', flowid: '1:8', match: { value: 'a40050a', mask: 'ffffffff', off: 16 } }),
    ];
    const classes =
      'class htb 1:7 root leaf 7: prio 0 rate 2Mbit ceil 2Mbit burst 12500b cburst 12500b \nclass htb 1:8 root leaf 8: prio 0 rate 2Mbit ceil 2Mbit burst 12500b cburst 12500b \n';
    const qdiscs: TcQdisc[] = [
      { kind: 'htb', handle: '1:', root: true, options: { default: '0' } },
      // 300 ms of 2 Mbit/s, as this agent writes it; and an older agent's 100 ms.
      { kind: 'bfifo', handle: '7:', parent: '1:7', options: { limit: 75_000 } },
      { kind: 'bfifo', handle: '8:', parent: '1:8', options: { limit: 25_000 } },
    ];
    const d = parseDirection('down', qdiscs, classes, filters);
    expect(d.entries.get('10.64.5.9')).toMatchObject({ kbit: 2000, leaf: true });
    expect(d.entries.get('10.64.5.10')).toMatchObject({ kbit: null, leaf: true });
    const p = planDirection(
      'wg0',
      'down',
      new Map([
        ['10.64.5.9', 2000],
        ['10.64.5.10', 2000],
      ]),
      d,
      'bfifo',
    );
    expect(p.lines).toEqual([
      'class change dev wg0 parent 1: classid 1:8 htb rate 2000kbit ceil 2000kbit burst 12500 cburst 12500 quantum 1514',
      'qdisc change dev wg0 parent 1:8 handle 8: bfifo limit 75000',
    ]);
  });

  it('recognises the skeleton, peers and strays in `tc -j filter show`', () => {
    const qdiscs: TcQdisc[] = [
      { kind: 'htb', handle: '1:', root: true, options: { default: '0' } },
      { kind: 'fq_codel', handle: '7:', parent: '1:7' },
    ];
    const filters: TcFilter[] = [
      ...skeletonFilters,
      u32({
        fh: '105:9:a41',
        flowid: '1:7',
        match: { value: 'a400509', mask: 'ffffffff', off: 16 },
      }),
      // Points at a class that is not there: a stray.
      u32({
        fh: '105:a:a41',
        flowid: '1:8',
        match: { value: 'a40050a', mask: 'ffffffff', off: 16 },
      }),
    ];
    const classes =
      'class htb 1:7 root leaf 7: prio 0 rate 2Mbit ceil 2Mbit\nclass htb 1:c root prio 0 rate 2Mbit ceil 2Mbit\n';
    const d = parseDirection('down', qdiscs, classes, filters);
    expect(d.skeleton).toBe(true);
    expect([...d.entries]).toEqual([
      ['10.64.5.9', { minor: 7, kbit: 2000, handle: '105:9:a41', leaf: true }],
    ]);
    expect(d.strayFilters).toEqual(['105:a:a41']);
    expect(d.strayClasses).toEqual([12]);
    // The same filters read as the other direction (source offset) are not its skeleton.
    expect(parseDirection('up', qdiscs, classes, filters).skeleton).toBe(false);
    // One missing second-level link: not a skeleton (rebuilt).
    expect(
      parseDirection(
        'down',
        qdiscs,
        classes,
        filters.filter((f) => f.options?.fh !== '10:3:800'),
      ).skeleton,
    ).toBe(false);
  });
});
