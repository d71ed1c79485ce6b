/**
 * The production start (`npm start`): the server and the agent run as compiled JavaScript with no
 * TypeScript loader, the compiled server migrates a fresh database and serves (its route folders,
 * migrations and SPA directory found from dist/ as from src/), and a build whose sources did not
 * change is not redone.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const build = (...args: string[]) =>
  spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), ...args], { cwd: ROOT, encoding: 'utf8' });

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('compiled runtime', () => {
  // The build is made once per run (`npm run build`, or scripts/test-all.mjs before the suites),
  // never forced here: the suites running beside this one read agent/dist while it runs.
  it('builds once, records the hash of its sources, then skips while they are unchanged', () => {
    expect(build('--if-stale', 'agent').status).toBe(0);
    const sources = build('hash', 'agent');
    expect(sources.status).toBe(0);
    expect(sources.stdout.trim()).toMatch(/^[0-9a-f]{64}$/);
    expect(readFileSync(join(ROOT, 'agent/dist/.source-hash'), 'utf8').trim()).toBe(sources.stdout.trim());
    const built = statSync(join(ROOT, 'agent/dist/main.js')).mtimeMs;
    const again = build('--if-stale', 'agent');
    expect(again.status).toBe(0);
    expect(again.stdout).not.toContain('built agent');
    expect(statSync(join(ROOT, 'agent/dist/main.js')).mtimeMs).toBe(built);
  });

  it('runs the agent with plain node', () => {
    const run = spawnSync(process.execPath, [join(ROOT, 'agent/dist/main.js'), '--help'], {
      encoding: 'utf8',
    });
    expect(run.status).toBe(0);
    expect(run.stdout + run.stderr).toContain('--help');
  });

  it(
    'starts the server with plain node on a fresh embedded database and serves',
    { timeout: 300_000 },
    async () => {
      expect(build('--if-stale', 'server').status).toBe(0);
      const dataDir = mkdtempSync(join(tmpdir(), 'vpn-prod-'));
      dirs.push(dataDir);
      const port = await freePort();
      const child = spawn(process.execPath, ['dist/main.js'], {
        cwd: join(ROOT, 'server'),
        env: {
          ...process.env,
          DATA_DIR: dataDir,
          PORT: String(port),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
          SEED_DEMO: 'true',
          ADMIN_PASSWORD: 'clave-de-gestor',
          METRICS_TOKEN: 'metrics-token-0123456789abcdef',
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      try {
        const base = `http://127.0.0.1:${port}`;
        for (;;) {
          if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`);
          if (
            await fetch(`${base}/healthz`).then(
              (r) => r.ok,
              () => false,
            )
          )
            break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const plans = await fetch(`${base}/api/client/plans`);
        expect(plans.status).toBe(200);
        expect(((await plans.json()) as unknown[]).length).toBeGreaterThan(0);
        const login = await fetch(`${base}/api/admin/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: 'admin', password: 'clave-de-gestor' }),
        });
        expect(login.status).toBe(200);
        const metrics = await fetch(`${base}/metrics`, {
          headers: { authorization: 'Bearer metrics-token-0123456789abcdef' },
        });
        expect(await metrics.text()).toContain(
          'vpn_http_request_duration_seconds_count{method="POST",route="/api/admin/login",status_code="200"} 1',
        );
        expect(stderr).toBe('');
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
    },
  );
});
