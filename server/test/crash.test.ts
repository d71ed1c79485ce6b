/**
 * The control plane killed with SIGKILL under write load and started again on the same embedded
 * database: it recovers by itself and every change it had acknowledged (201) is there. Runs the
 * compiled server (`npm start`'s runtime) as its own process, since the point is a real kill.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { buildServer, confirmedOver, exited, freePort, killStarted, startServer } from './serverProcess.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'vpn-crash-'));
let child: ChildProcess | null = null;
afterAll(async () => {
  await killStarted();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (port: number) => startServer(port, { DATA_DIR: dataDir, ADMIN_PASSWORD: 'clave-de-gestor' });

async function token(base: string): Promise<string> {
  const res = await fetch(`${base}/api/admin/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'clave-de-gestor' }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access: string }).access;
}

it(
  'keeps every acknowledged change through kill -9 and restarts on the same database',
  { timeout: 600_000 },
  async () => {
    expect(buildServer()).toBe(true);
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    child = await start(port);
    const access = await token(base);
    const headers = await confirmedOver(base, access, 'clave-de-gestor');

    // Four writers create servers until 40 were acknowledged, then the process is killed mid-flight.
    const acked: string[] = [];
    let n = 0;
    let killed = false;
    const writer = async () => {
      while (!killed) {
        const name = `crash-${n++}`;
        const res = await fetch(`${base}/api/admin/servers`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name, endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' }),
        }).catch(() => null);
        if (res?.status === 201) acked.push(name);
        if (acked.length >= 40 && !killed) {
          killed = true;
          child!.kill('SIGKILL');
        }
      }
    };
    await Promise.all([writer(), writer(), writer(), writer()]);
    await exited(child!);
    expect(acked.length).toBeGreaterThanOrEqual(40);

    child = await start(port);
    const again = await token(base);
    const res = await fetch(`${base}/api/admin/servers?q=crash-&page_size=100`, {
      headers: { authorization: `Bearer ${again}` },
    });
    expect(res.status).toBe(200);
    const names = new Set(((await res.json()) as { results: { name: string }[] }).results.map((s) => s.name));
    expect(acked.filter((a) => !names.has(a))).toEqual([]);
    // Still writable after the recovery.
    const after = await fetch(`${base}/api/admin/servers`, {
      method: 'POST',
      headers: await confirmedOver(base, again, 'clave-de-gestor'),
      body: JSON.stringify({
        name: 'after-crash',
        endpoint: 'uno.vpn.example:51820',
        ubication: 'La Habana',
      }),
    });
    expect(after.status).toBe(201);
  },
);
