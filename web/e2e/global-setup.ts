/**
 * Builds the SPA, starts the real control plane on a free port with a throw-away PGlite database and
 * hands its URL to the journeys (`inject('baseUrl')`). The server is stopped by its pid afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { ADMIN_PASSWORD } from './browser';

declare module 'vitest' {
  export interface ProvidedContext {
    baseUrl: string;
  }
}

const webDir = resolve(import.meta.dirname, '..');
const serverDir = resolve(webDir, '../server');

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => ok(port));
    });
  });
}

async function waitForHealth(url: string, child: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`El servidor terminó (código ${child.exitCode}):\n${log()}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`El servidor no respondió a tiempo:\n${log()}`);
}

export default async function setup(project: TestProject) {
  // The production build, exactly as `npm run build -w web` makes it (vitest's NODE_ENV=test would
  // otherwise give React's development bundles).
  const built = spawnSync('npx', ['vite', 'build', '--logLevel', 'warn'], {
    cwd: webDir,
    env: { ...process.env, NODE_ENV: 'production' },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`vite build falló:\n${built.stdout}${built.stderr}`);

  const dataDir = mkdtempSync(join(tmpdir(), 'vpn-web-e2e-'));
  const port = await freePort();
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: serverDir,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      WEB_DIST: join(webDir, 'dist'),
      ADMIN_USERNAME: 'admin',
      ADMIN_PASSWORD,
      SUPPORT_URL: 'https://soporte.example.com/chat',
      LOG_LEVEL: 'warn',
      SEED_DEMO: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));

  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitForHealth(baseUrl, child, () => output);
  } catch (error) {
    child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  project.provide('baseUrl', baseUrl);

  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
}
