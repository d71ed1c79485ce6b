/**
 * One full garbage collection after a rare, large event: a snapshot applied and the first stats pass
 * after it (every peer reported). V8 collects its old generation when that generation grows past a
 * limit; between those events the agent's does not grow (a stats pass's garbage dies young), so what
 * they promoted stayed in the agent's RSS for good: ~10 MB of old space at 50,000 peers, dead since
 * the first minute (issue 33, docs/performance.md "Agent RSS at 50,000 peers"). Until then the raw
 * UAPI answers every pass copied happened to force that collection, at a moment that depended on
 * the machine's load.
 *
 * `gc` is exposed on first use instead of by a node flag, so every way the agent is started (the
 * systemd unit, the install script's, the panel's local agent, `npm start`) gets it. The collection
 * stops the agent for ~20–40 ms at 50,000 peers, once per snapshot.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null = null;

/** Runs a full, compacting collection now. */
export function collectGarbage(): void {
  if (!gc) {
    if (typeof globalThis.gc !== 'function') setFlagsFromString('--expose-gc');
    gc = (typeof globalThis.gc === 'function' ? globalThis.gc : runInNewContext('gc')) as () => void;
  }
  gc();
}
