import { describe, expect, it } from 'vitest';
import { LastReadings } from './lastReadings.ts';

describe('LastReadings', () => {
  it('keeps, compares, forgets and reuses the slots of the last readings', () => {
    const r = new LastReadings();
    r.add('a', 1, 2, 3, '192.0.2.1:1', 1);
    r.add('b', 5_000_000_000, 6, 0, null, 1);
    expect(r.size).toBe(2);
    const a = r.slot('a');
    expect(r.same(a, 1, 2, 3, '192.0.2.1:1')).toBe(true);
    expect(r.same(a, 1, 2, 3, null)).toBe(false);
    expect(r.keyOf(a)).toBe('a');
    expect(r.since('b')).toEqual({ rx_bytes: 5_000_000_000, tx_bytes: 6 });
    expect(r.since('c')).toBeUndefined();
    expect(r.totals(3)).toEqual({ peers: 2, handshakes: 1, rx: 5_000_000_001, tx: 8 });
    // The pass that last reported a slot (issue 33); a new key's slot starts unreported.
    r.reported(a, 1_700_000_000_000);
    expect(r.reportedAt(a)).toBe(1_700_000_000_000);
    expect(r.reportedAt(r.slot('b'))).toBe(0);
    r.seen(a, 2);
    r.set(a, 10, 20, 30, null);
    const forgotten: string[] = [];
    r.sweep(2, (key) => forgotten.push(key));
    expect(forgotten).toEqual(['b']);
    expect(r.slot('b')).toBe(-1);
    expect(r.endpointOf(a)).toBeNull();
    // b's slot is taken again, and 100 more grow the arrays without losing a.
    r.add('c', 7, 8, 9, null, 2);
    expect(r.slot('c')).not.toBe(a);
    for (let i = 0; i < 100; i++) r.add(`k${i}`, i, i, 0, null, 2);
    expect(r.since('a')).toEqual({ rx_bytes: 10, tx_bytes: 20 });
    expect(r.since('k99')).toEqual({ rx_bytes: 99, tx_bytes: 99 });
    r.clear();
    expect(r.size).toBe(0);
  });
});
