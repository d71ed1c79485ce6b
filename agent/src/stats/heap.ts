/**
 * One full, compacting garbage collection after a rare, large event: a snapshot applied and the
 * first stats pass after it (every peer reported). V8 collects its old generation when that
 * generation grows past a limit; between those events the agent's does not grow (a stats pass's
 * garbage dies young), so what they promoted stayed in its RSS for good. Measured at 50,000 peers
 * (issue 33, docs/performance.md "Agent RSS at 50,000 peers"): old space 34.6 MB used of 38 MB
 * committed for 27 MB alive; a plain collection frees the dead objects but leaves the live ones
 * spread over the same pages (27.0 used of 37–38 committed); a memory-reducing one a second later
 * moves them together (27 of 29 committed: −9 MB of RSS) in ~80 ms, without the +26 MB transient of
 * evacuating every page at once (`--compact-on-every-full-gc`: peak 120 MB). Run at once, with the
 * dead objects still there, the memory-reducing one did worse (27 of 43 committed, peak +10 MB).
 *
 * A memory-reducing collection is what V8 runs under `--optimize-for-size`; the flag is set for this
 * one call only (kept for good it slowed deltas: p99 68 ms, docs/reliability.md section 7). `gc` is
 * exposed on first use instead of by a node flag, so every way the agent is started (the systemd
 * unit, the install script's, the panel's local agent, `npm start`) gets it.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = null;
/** Started with --optimize-for-size: every collection reduces memory already; leave the flag alone. */
const sizeFlagGiven = process.execArgv.includes('--optimize-for-size');

/** Runs a full collection now (frees what is dead; moves little). */
export function collectGarbage(): void {
  exposedGc()();
}

/**
 * A full collection now, then a memory-reducing one a second later (see above): after a snapshot's
 * first stats pass.
 */
export function settleHeap(): void {
  collectGarbage();
  setTimeout(reduceHeap, 1_000).unref();
}

function reduceHeap(): void {
  const collect = exposedGc();
  if (sizeFlagGiven) return collect();
  setFlagsFromString('--optimize-for-size');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-optimize-for-size');
  }
}

function exposedGc(): () => void {
  if (!gc) {
    if (typeof globalThis.gc !== 'function') setFlagsFromString('--expose-gc');
    gc = (typeof globalThis.gc === 'function' ? globalThis.gc : runInNewContext('gc')) as () => void;
  }
  return gc;
}
