/**
 * The compiled control plane (`npm start`'s runtime) as a child process, for tests whose point is a
 * real process: kill -9, two instances on one database, a full disk.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Builds `server/dist` unless it is current; true when it is ready. */
export const buildServer = () =>
  spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'server']).status === 0;

export const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

/** Starts `node dist/main.js` on `port` with `env` and resolves once /healthz answers. */
/**
 * Every server process startServer spawned and not yet exited. A test's afterAll ends them with
 * killStarted(): its own variable only holds a process once startServer returned, so a server still
 * starting when the test timed out (a restart on a loaded CI machine) outlived it, holding its
 * DATA_DIR's mount (diskFull.test.ts: umount EBUSY).
 */
const started = new Set<ChildProcess>();

/** Kills (SIGKILL) every server process startServer spawned that is still running, and waits for them. */
export async function killStarted(): Promise<void> {
  const alive = [...started];
  for (const proc of alive) proc.kill('SIGKILL');
  await Promise.all(alive.map(exited));
}

export async function startServer(port: number, env: Record<string, string>): Promise<ChildProcess> {
  const proc = spawn(process.execPath, ['dist/main.js'], {
    cwd: join(ROOT, 'server'),
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SEED_DEMO: 'false',
      ...env,
    },
    stdio: 'ignore',
  });
  started.add(proc);
  proc.once('exit', () => started.delete(proc));
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`the server exited with ${proc.exitCode}`);
    if (
      await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return proc;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * The bearer and a manager's fresh confirmation (X-Reauth) from a running server, for the calls
 * that need one (adding a server, issue 31), with the JSON content type.
 */
export async function confirmedOver(base: string, access: string, password: string) {
  const res = await fetch(`${base}/api/admin/me/reauth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${access}` },
    body: JSON.stringify({ password }),
  });
  if (res.status !== 200) throw new Error(`reauth refused: ${res.status} ${await res.text()}`);
  const { token } = (await res.json()) as { token: string };
  return { 'content-type': 'application/json', authorization: `Bearer ${access}`, 'x-reauth': token };
}

/** Resolves when the process has exited (after a kill). */
export const exited = (proc: ChildProcess) =>
  new Promise((r) => (proc.exitCode !== null || proc.signalCode ? r(null) : proc.once('exit', r)));
