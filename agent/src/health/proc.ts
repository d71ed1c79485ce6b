/**
 * The host's figures for the console's node health (issue 34), read from /proc as `uptime`, `top`
 * and `free` do: no daemon, no command run. Each reader answers null when its file is missing or
 * not as expected (a container without /proc, another kernel), and the report carries the rest.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** /proc/loadavg's first three fields: the run-queue averages over 1, 5 and 15 minutes. */
export function parseLoadavg(text: string): [number, number, number] | null {
  const [a, b, c] = text.trim().split(/\s+/).map(Number);
  if (![a, b, c].every((n) => n !== undefined && Number.isFinite(n) && n >= 0)) return null;
  return [a!, b!, c!];
}

/** The aggregate `cpu` line of /proc/stat: jiffies spent idle (idle + iowait) and in all. */
export interface CpuTimes {
  idle: number;
  total: number;
}

export function parseStat(text: string): CpuTimes | null {
  const line = text.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) return null;
  // user nice system idle iowait irq softirq steal (guest and guest_nice are inside user and nice).
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 4 || fields.some((n) => !Number.isFinite(n))) return null;
  const idle = fields[3]! + (fields[4] ?? 0);
  const total = fields.reduce((sum, n) => sum + n, 0);
  return { idle, total };
}

/** Percent of CPU time busy between two readings of /proc/stat (null when no time passed). */
export function cpuPercent(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  if (total <= 0) return null;
  const busy = total - (after.idle - before.idle);
  return Math.min(100, Math.max(0, Math.round((busy / total) * 1000) / 10));
}

/** MemTotal and MemAvailable of /proc/meminfo, in bytes (the kernel writes kB). */
export function parseMeminfo(text: string): { total: number; available: number } | null {
  const kb = (name: string) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : null;
  };
  const total = kb('MemTotal');
  const available = kb('MemAvailable');
  if (total === null || available === null) return null;
  return { total, available };
}

/** Reads a file of `dir`, or null. */
async function read(dir: string, name: string): Promise<string | null> {
  try {
    return await readFile(join(dir, name), 'utf8');
  } catch {
    return null;
  }
}

export interface HostSample {
  load: [number, number, number] | null;
  cpu: CpuTimes | null;
  memory: { total: number; available: number } | null;
}

/** One reading of the three files under `dir` (default /proc). */
export async function readHost(dir = '/proc'): Promise<HostSample> {
  const [loadavg, stat, meminfo] = await Promise.all([
    read(dir, 'loadavg'),
    read(dir, 'stat'),
    read(dir, 'meminfo'),
  ]);
  return {
    load: loadavg === null ? null : parseLoadavg(loadavg),
    cpu: stat === null ? null : parseStat(stat),
    memory: meminfo === null ? null : parseMeminfo(meminfo),
  };
}
