/**
 * The first minute after a self-upgrade (docs/deploy.md, "Vuelta atrás automática"). The upgrade
 * already checked that the new file starts and says its version (upgrade.ts); a file that passes
 * that and then crashes within TRIAL_MS of starting is put back to `FILE.previous` by itself, and the
 * previous file tells the control plane in its next hello (`rolled_back`), which shows it in Spanish.
 *
 * Beside the agent file (its directory is writable: the upgrade renamed the new file into it):
 *   FILE.trial       {from, to, at, running}: written by the old file right before it restarts into
 *                    the new one; `running` is set while a run of the new file is in its first
 *                    minute and cleared by a clean exit. Deleted once a run survives TRIAL_MS.
 *   FILE.rolledback  {from, to, at, reason}: written when the new file is put back; read by the
 *                    previous file for its hello until the control plane has welcomed it.
 *   FILE.failed      the file that was put back, for the operator to look at.
 *
 * A crash is seen two ways: in the process (an uncaught error during the trial: main.ts puts the
 * previous file back at once and restarts into it), and at the next start (a run of the new file
 * that ended without a clean exit and without surviving the minute left `running` set: killed,
 * out of memory, a native crash; systemd's Restart= started it again, and it steps aside).
 */
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export const TRIAL_MS = 60_000;

interface TrialMarker {
  /** The version that installed the new file (the one FILE.previous holds). */
  from: string;
  /** The version of the new file. */
  to: string;
  /** When the upgrade installed it (ms since the epoch). */
  at: number;
  /** A run of the new file is in its first minute (not yet survived, not ended cleanly). */
  running: boolean;
}

/** What the previous file reports once it runs again: sent in `hello.rolled_back`. */
export interface RollbackReport {
  /** The version that was put back. */
  from: string;
  /** The version running again (FILE.previous's). */
  to: string;
  at: number;
  /** Why, in one line (the error the new file died of, or that a run of it ended early). */
  reason: string;
}

const trialFile = (file: string) => `${file}.trial`;
const reportFile = (file: string) => `${file}.rolledback`;

function readJson<T>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Written through a temporary file and a rename, so a crash never leaves half a marker. */
function writeJson(path: string, value: unknown): void {
  writeFileSync(`${path}.tmp`, JSON.stringify(value));
  renameSync(`${path}.tmp`, path);
}

/** The old file, right after the upgrade replaced it and before it restarts into the new one. */
export function beginTrial(file: string, from: string, to: string, now = Date.now()): void {
  writeJson(trialFile(file), { from, to, at: now, running: false } satisfies TrialMarker);
}

export type TrialStart =
  | { kind: 'none' }
  /** A previous run of this (new) file crashed in its first minute: put the previous one back. */
  | { kind: 'rollback'; reason: string }
  | {
      kind: 'trial';
      /** A crash of this run (uncaught error): put the previous file back. False: nothing done. */
      crashed: (reason: string) => boolean;
      /** This run ends cleanly (a signal, a restart into an upgrade): not a crash. */
      cleanExit: () => void;
    };

/**
 * Called by main.ts before the agent starts, when it runs from its file. `version` is this file's.
 * During a trial, the run is marked as in its first minute; after TRIAL_MS the trial is over.
 */
export function startTrial(file: string, version: string, trialMs = TRIAL_MS): TrialStart {
  const marker = readJson<TrialMarker>(trialFile(file));
  if (!marker) return { kind: 'none' };
  // Not the file the upgrade installed (put back, or replaced by hand since): nothing to watch.
  if (marker.to !== version || !existsSync(`${file}.previous`)) {
    rmSync(trialFile(file), { force: true });
    return { kind: 'none' };
  }
  if (marker.running)
    return { kind: 'rollback', reason: 'el proceso terminó sin cerrarse dentro de su primer minuto' };
  writeJson(trialFile(file), { ...marker, running: true });
  let over = false;
  const timer = setTimeout(() => {
    over = true;
    rmSync(trialFile(file), { force: true });
  }, trialMs);
  timer.unref();
  return {
    kind: 'trial',
    crashed: (reason) => {
      if (over) return false;
      clearTimeout(timer);
      over = true;
      rollBack(file, reason);
      return true;
    },
    cleanExit: () => {
      if (over) return;
      clearTimeout(timer);
      over = true;
      const now = readJson<TrialMarker>(trialFile(file));
      // An upgrade again during the trial wrote a marker of its own: leave that one.
      if (now && now.to === marker.to && now.at === marker.at)
        writeJson(trialFile(file), { ...marker, running: false });
    },
  };
}

/**
 * Puts FILE.previous back as FILE (one rename: atomic), keeps the failed file as FILE.failed and
 * writes the report. The caller restarts into FILE.
 */
export function rollBack(file: string, reason: string, now = Date.now()): RollbackReport | null {
  const marker = readJson<TrialMarker>(trialFile(file));
  if (!marker || !existsSync(`${file}.previous`)) return null;
  const report: RollbackReport = {
    from: marker.to,
    to: marker.from,
    at: now,
    reason: reason.replace(/\s+/g, ' ').trim().slice(0, 300),
  };
  try {
    rmSync(`${file}.failed`, { force: true });
    linkSync(file, `${file}.failed`);
  } catch {
    // Best effort: the failed file is only kept for the operator to look at.
  }
  writeJson(reportFile(file), report);
  renameSync(`${file}.previous`, file);
  rmSync(trialFile(file), { force: true });
  return report;
}

/** The report of a rollback not yet acknowledged by the control plane, if any. */
export function pendingReport(file: string): RollbackReport | null {
  return readJson<RollbackReport>(reportFile(file));
}

/** The control plane welcomed a hello that carried the report: it is not sent again. */
export function clearReport(file: string): void {
  rmSync(reportFile(file), { force: true });
}
