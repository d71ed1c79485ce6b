/**
 * Runs the host tools (`ip`, `nft`, `wg`, `sysctl`, `wireguard-go`) with argument arrays, never a
 * shell string, optionally inside a network namespace (`ip netns exec NS …`). Secrets never go in
 * arguments (visible in `ps`): nft scripts go on stdin, `wg` key files see src/wgtool.ts.
 */
import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';

export interface RunOptions {
  /** Written to the program's stdin (nft scripts). */
  input?: string;
  timeoutMs?: number;
}

export interface RunResult {
  stdout: string;
  stderr: string;
}

/** A failed command. Its text holds the program, its arguments and stderr, never the stdin. */
export class CommandError extends Error {
  constructor(
    readonly file: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`${[file, ...args].join(' ')} falló (${exitCode ?? 'señal'}): ${stderr.trim().slice(0, 500)}`);
    this.name = 'CommandError';
  }
}

export interface CommandRunner {
  /** The namespace commands run in, or null for the current one. */
  readonly netns: string | null;
  run(file: string, args: readonly string[], options?: RunOptions): Promise<RunResult>;
  /** Starts a long-lived program (in the namespace, if any); the child's pid is the program's own. */
  spawn(file: string, args: readonly string[], stdio: StdioOptions, env?: NodeJS.ProcessEnv): ChildProcess;
}

/** A runner for the current namespace, or for `netns` through `ip netns exec` (which execs in place). */
export function createRunner(netns: string | null = null): CommandRunner {
  const wrap = (file: string, args: readonly string[]): [string, string[]] =>
    netns ? ['ip', ['netns', 'exec', netns, file, ...args]] : [file, [...args]];
  return {
    netns,
    run(file, args, options = {}) {
      const [f, a] = wrap(file, args);
      return new Promise((resolve, reject) => {
        const child = execFile(
          f,
          a,
          { timeout: options.timeoutMs ?? 30_000, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
          (err, stdout, stderr) => {
            if (err) {
              const code = typeof err.code === 'number' ? err.code : null;
              reject(new CommandError(file, args, code, stderr || err.message));
            } else resolve({ stdout, stderr });
          },
        );
        child.stdin?.on('error', () => {
          // The program may exit before reading stdin (e.g. on a usage error): the exit code says why.
        });
        child.stdin?.end(options.input ?? '');
      });
    },
    spawn(file, args, stdio, env) {
      const [f, a] = wrap(file, args);
      return spawn(f, a, { stdio, env: env ?? process.env, detached: true });
    },
  };
}
