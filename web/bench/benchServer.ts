/**
 * The control plane `web.bench.ts` measures: the real `server/src/main.ts` (as `npm start` runs it)
 * on a free port, with a throw-away PGlite database and the demo content, serving a copy of a web
 * build with the 1 KiB floor page beside it. The bench starts one for the current build and one for
 * the baseline's build (the same server code, each its own database): both builds' documents are
 * filled by the same code (the boot data, the headers, the Content-Security-Policy).
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A static 1 KiB page: the floor of the network (one connection, one request). */
export const FLOOR = '/bench-floor.html';

export interface BenchServer {
  url: string;
  stop: () => Promise<void>;
}

function floorPage(): string {
  const head =
    '<!doctype html><html lang="es"><head><meta charset="utf-8"><title>Suelo</title></head><body><p>';
  const tail = '</p></body></html>';
  return head + 'x'.repeat(1024 - head.length - tail.length) + tail;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      srv.close(() => ok(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * Starts the server of `serverDir` on a copy of `sourceDist` (copied so the floor page can sit beside
 * it without touching the build) and resolves once `/healthz` answers.
 */
export async function startServer(
  serverDir: string,
  sourceDist: string,
  adminPassword: string,
): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'vpn-bench-web-'));
  const dist = join(dataDir, 'dist');
  cpSync(sourceDist, dist, { recursive: true });
  writeFileSync(join(dist, FLOOR.slice(1)), floorPage());

  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let log = '';
  const server = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      WEB_DIST: dist,
      ADMIN_PASSWORD: adminPassword,
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'true',
      // The journey pays through the built-in sandbox gateway.
      PAYMENTS_SANDBOX: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.on('data', (c: Buffer) => (log += c.toString()));
  server.stderr.on('data', (c: Buffer) => (log += c.toString()));

  const stop = async () => {
    if (server.exitCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (server.exitCode === null) server.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`El servidor terminó:\n${log}`);
      if (Date.now() > deadline) throw new Error(`El servidor no respondió:\n${log}`);
      try {
        if ((await fetch(`${url}/healthz`)).ok) break;
      } catch {
        /* not listening yet */
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}
