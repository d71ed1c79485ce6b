/**
 * The optional state directory: remembers the last applied revision so `hello` can report it
 * after a restart. Holds no keys. Writes are atomic (temp file + rename) and coalesced.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface AgentState {
  revision: number;
}

export function loadState(dir: string): AgentState {
  try {
    const data = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')) as Partial<AgentState>;
    return { revision: typeof data.revision === 'number' && data.revision >= 0 ? data.revision : 0 };
  } catch {
    return { revision: 0 };
  }
}

export function saveState(dir: string, state: AgentState): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, 'state.json.tmp');
  writeFileSync(tmp, JSON.stringify(state) + '\n', { mode: 0o600 });
  renameSync(tmp, join(dir, 'state.json'));
}

/** Saves at most once per `everyMs`; `flush()` writes the pending state now. */
export function createStateWriter(dir: string, everyMs = 1000) {
  let pending: AgentState | null = null;
  let timer: NodeJS.Timeout | null = null;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending) saveState(dir, pending);
    pending = null;
  };
  return {
    write(state: AgentState) {
      pending = state;
      if (!timer) {
        timer = setTimeout(flush, everyMs);
        timer.unref();
      }
    },
    flush,
  };
}
