import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeHealth } from './nodeHealth.ts';
import { cpuPercent, parseLoadavg, parseMeminfo, parseStat } from './proc.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A stand-in /proc with the three files as Linux writes them (proc(5)). */
function fakeProc(stat: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'agent-proc-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'loadavg'), '0.52 0.31 0.20 2/345 6789\n');
  writeFileSync(
    join(dir, 'meminfo'),
    'MemTotal:        2031616 kB\nMemFree:          100000 kB\nMemAvailable:    1015808 kB\n',
  );
  writeFileSync(join(dir, 'stat'), stat);
  return dir;
}

describe('/proc readers', () => {
  it('reads the load averages, CPU times and memory as Linux writes them', () => {
    expect(parseLoadavg('0.52 0.31 0.20 2/345 6789\n')).toEqual([0.52, 0.31, 0.2]);
    expect(parseLoadavg('')).toBeNull();
    const times = parseStat('cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 100 0 50 800 50 0 0 0 0 0\n');
    expect(times).toEqual({ idle: 850, total: 1000 });
    expect(parseStat('intr 1 2 3\n')).toBeNull();
    expect(parseMeminfo('MemTotal: 1024 kB\nMemAvailable: 512 kB\n')).toEqual({
      total: 1024 * 1024,
      available: 512 * 1024,
    });
    expect(parseMeminfo('MemTotal: 1024 kB\n')).toBeNull();
  });

  it('counts CPU busy time between two readings, idle and iowait as idle', () => {
    expect(cpuPercent({ idle: 850, total: 1000 }, { idle: 900, total: 1200 })).toBe(75);
    expect(cpuPercent({ idle: 850, total: 1000 }, { idle: 850, total: 1000 })).toBeNull();
  });
});

describe('NodeHealth', () => {
  it('reports the interface totals with rates since the previous pass and the host figures', async () => {
    const dir = fakeProc('cpu  100 0 50 800 50 0 0 0 0 0\n');
    const health = new NodeHealth(dir);
    const first = await health.sample({ peers: 3, handshakes3m: 2, rx: 1000, tx: 5000 }, 10_000);
    expect(first).toEqual({
      peers: 3,
      handshakes_3m: 2,
      rx_bytes: 1000,
      tx_bytes: 5000,
      rx_rate: null,
      tx_rate: null,
      load: [0.52, 0.31, 0.2],
      cpu: null,
      memory: { total: 2031616 * 1024, available: 1015808 * 1024 },
    });
    writeFileSync(join(dir, 'stat'), 'cpu  250 0 50 850 50 0 0 0 0 0\n');
    const second = await health.sample({ peers: 3, handshakes3m: 3, rx: 21_000, tx: 105_000 }, 20_000);
    expect(second).toMatchObject({ rx_rate: 2000, tx_rate: 10_000, cpu: 75, handshakes_3m: 3 });
    // A peer left: the summed counters fell; the pass says 0, not a negative rate.
    const third = await health.sample({ peers: 2, handshakes3m: 2, rx: 500, tx: 600 }, 30_000);
    expect(third).toMatchObject({ peers: 2, rx_rate: 0, tx_rate: 0 });
  });

  it('reports nothing before a stats pass, and null host figures where /proc is missing', async () => {
    const health = new NodeHealth('/nonexistent-proc');
    expect(await health.sample(null, 1)).toBeNull();
    expect(await health.sample({ peers: 0, handshakes3m: 0, rx: 0, tx: 0 }, 2)).toMatchObject({
      load: null,
      cpu: null,
      memory: null,
    });
  });
});
