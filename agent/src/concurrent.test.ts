import { describe, expect, it } from 'vitest';
import { ConcurrentUseDetector, endpointHost, truncatedNetwork } from './concurrent.ts';

const KEY = 'x'.repeat(43) + '=';
const OTHER = 'y'.repeat(43) + '=';
const MIN = 60_000;

/** Feeds the detector a peer's endpoint as successive stats passes read it, like the reconciler. */
function passes(d: ConcurrentUseDetector, key: string, seen: [number, string][]): void {
  for (let i = 1; i < seen.length; i++) {
    const [at, to] = seen[i]!;
    const from = seen[i - 1]![1];
    if (from !== to) d.moved(key, from, to, at);
  }
}

describe('endpoint addresses', () => {
  it('reads the address of IPv4 and IPv6 endpoints as UAPI prints them', () => {
    expect(endpointHost('203.0.113.7:51820')).toBe('203.0.113.7');
    expect(endpointHost('[2001:db8:1:2::7]:40000')).toBe('2001:db8:1:2::7');
    expect(endpointHost('garbage')).toBeNull();
  });

  it('truncates to /24 and /48, never keeping the host part', () => {
    expect(truncatedNetwork('203.0.113.7')).toBe('203.0.113.0/24');
    expect(truncatedNetwork('2001:db8:1:2::7')).toBe('2001:db8:1::/48');
  });
});

describe('ConcurrentUseDetector', () => {
  it('never flags a single move that stays (roaming Wi-Fi → mobile data)', () => {
    const d = new ConcurrentUseDetector();
    const seen: [number, string][] = [[0, '192.0.2.10:40000']];
    seen.push([10_000, '198.51.100.20:50000']);
    // It then stays there (new NAT ports on the same address are not moves) for an hour.
    for (let t = 20_000; t < 60 * MIN; t += 10_000) seen.push([t, `198.51.100.20:${50000 + (t % 7)}`]);
    passes(d, KEY, seen);
    for (let t = 0; t <= 60 * MIN; t += 10_000) expect(d.take(t)).toEqual([]);
    expect(d.size).toBe(0);
  });

  it('does not flag a walk through new networks without going back (A → B → C → D)', () => {
    const d = new ConcurrentUseDetector();
    passes(d, KEY, [
      [0, '192.0.2.1:1'],
      [MIN, '198.51.100.1:1'],
      [2 * MIN, '203.0.113.1:1'],
      [3 * MIN, '100.64.9.1:1'],
    ]);
    expect(d.take(3 * MIN)).toEqual([]);
  });

  it('flags A → B → A → B (three switches) within ten minutes, with only truncated addresses', () => {
    const d = new ConcurrentUseDetector();
    passes(d, KEY, [
      [0, '192.0.2.10:40000'],
      [10_000, '198.51.100.20:50000'],
      [2 * MIN, '192.0.2.10:40000'],
    ]);
    // Two switches are not enough yet.
    expect(d.take(2 * MIN)).toEqual([]);
    passes(d, KEY, [
      [2 * MIN, '192.0.2.10:40000'],
      [4 * MIN, '198.51.100.20:50001'],
    ]);
    expect(d.take(4 * MIN)).toEqual([
      { public_key: KEY, endpoints: 2, switches: 3, last: ['192.0.2.0/24', '198.51.100.0/24'] },
    ]);
    // Reported once per window while it goes on.
    passes(d, KEY, [
      [4 * MIN, '198.51.100.20:50001'],
      [5 * MIN, '192.0.2.10:40000'],
      [6 * MIN, '198.51.100.20:50001'],
      [7 * MIN, '192.0.2.10:40000'],
    ]);
    expect(d.take(7 * MIN)).toEqual([]);
    passes(d, KEY, [
      [7 * MIN, '192.0.2.10:40000'],
      [14 * MIN + 1, '198.51.100.20:50001'],
    ]);
    const again = d.take(14 * MIN + 1);
    expect(again.map((p) => p.public_key)).toEqual([KEY]);
  });

  it('does not flag the same three switches spread over more than ten minutes', () => {
    const d = new ConcurrentUseDetector();
    passes(d, KEY, [
      [0, '192.0.2.10:40000'],
      [MIN, '198.51.100.20:50000'],
      [6 * MIN, '192.0.2.10:40000'],
      [12 * MIN, '198.51.100.20:50000'],
    ]);
    for (const t of [MIN, 6 * MIN, 12 * MIN]) expect(d.take(t)).toEqual([]);
  });

  it('flags two devices keeping the endpoint jumping every pass, and counts three addresses', () => {
    const d = new ConcurrentUseDetector();
    const hosts = ['192.0.2.10:1', '198.51.100.20:2', '192.0.2.10:1', '203.0.113.30:3'];
    const seen: [number, string][] = [];
    for (let i = 0; i < 8; i++) seen.push([i * 10_000, hosts[i % hosts.length]!]);
    passes(d, KEY, seen);
    const [report] = d.take(70_000);
    expect(report).toMatchObject({ public_key: KEY, endpoints: 3, switches: 7 });
    expect(report?.last).toEqual(['192.0.2.0/24', '203.0.113.0/24']);
  });

  it('keeps a bounded number of peers and forgets quiet ones after the window', () => {
    const d = new ConcurrentUseDetector({ maxTracked: 3 });
    for (let i = 0; i < 10; i++) d.moved(`k${i}`, '192.0.2.1:1', '192.0.2.2:1', i);
    expect(d.size).toBe(3);
    d.take(10 * MIN + 10);
    expect(d.size).toBe(0);
    d.moved(OTHER, '192.0.2.1:1', '192.0.2.2:1', 0);
    d.forget(OTHER);
    expect(d.size).toBe(0);
  });
});
