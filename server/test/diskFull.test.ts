/**
 * The embedded database on a full disk: the compiled server, its DATA_DIR on a small tmpfs of its
 * own, the disk filled up. Writes are refused with a clear Spanish 503 (`disk_full`) and change
 * nothing, reads and the health check go on; once space is freed writes work again without a
 * restart, and after a restart every acknowledged change is there (no corruption). Needs root (mount).
 */
import type { ChildProcess } from 'node:child_process';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { msg } from '@vpn/contracts';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer, confirmedOver, exited, freePort, killStarted, startServer } from './serverProcess.ts';

const root = process.getuid?.() === 0;

describe.skipIf(!root)('embedded database on a full disk', () => {
  const mountPoint = mkdtempSync(join(tmpdir(), 'vpn-diskfull-'));
  let mounted = false;
  let child: ChildProcess | null = null;
  afterAll(async () => {
    // Also a server still starting when the test timed out (child is still the previous one then).
    await killStarted();
    if (mounted) spawnSync('umount', [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  });

  /** Writes zeros until the filesystem refuses (ENOSPC). */
  function fill(file: string) {
    const fd = openSync(file, 'w');
    const chunk = Buffer.alloc(1 << 20);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
    } finally {
      closeSync(fd);
    }
    // The last partial megabyte too.
    const tail = openSync(file, 'a');
    try {
      for (;;) writeSync(tail, Buffer.alloc(4096));
    } catch {
      /* full */
    } finally {
      closeSync(tail);
    }
  }

  it(
    'refuses writes with a clear 503, keeps serving reads, and recovers once space is freed',
    { timeout: 300_000 },
    async () => {
      expect(buildServer()).toBe(true);
      expect(spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=96m', 'tmpfs', mountPoint]).status).toBe(0);
      mounted = true;
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      const env = { DATA_DIR: join(mountPoint, 'data'), ADMIN_PASSWORD: 'clave-de-gestor' };
      child = await startServer(port, env);
      const login = await fetch(`${base}/api/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'clave-de-gestor' }),
      });
      const { access } = (await login.json()) as { access: string };
      const headers = await confirmedOver(base, access, 'clave-de-gestor');
      const create = (name: string) =>
        fetch(`${base}/api/admin/servers`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name, endpoint: 'uno.vpn.example:51820', ubication: 'La Habana' }),
        });
      const names = async () =>
        (
          (await (await fetch(`${base}/api/admin/servers?page_size=100`, { headers })).json()) as {
            results: { name: string }[];
          }
        ).results.map((s) => s.name);

      const acked: string[] = [];
      for (const name of ['antes-1', 'antes-2']) {
        expect((await create(name)).status).toBe(201);
        acked.push(name);
      }

      const filler = join(mountPoint, 'relleno');
      fill(filler);
      // Pages already allocated may take a few more rows; then the disk refuses.
      let refused: Response | null = null;
      for (let i = 0; i < 200 && !refused; i++) {
        const res = await create(`lleno-${i}`);
        if (res.status === 201) acked.push(`lleno-${i}`);
        else refused = res;
      }
      expect(refused?.status).toBe(503);
      expect(await refused!.json()).toEqual({ message: msg.diskFull, code: 'disk_full' });
      expect(refused!.headers.get('retry-after')).toBe('60');
      // Reads and the health check go on.
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const whileFull = await names();
      expect(acked.filter((n) => !whileFull.includes(n))).toEqual([]);

      // Space back: writes work again, same process.
      rmSync(filler);
      let after = await create('despues');
      for (let i = 0; i < 20 && after.status !== 201; i++) {
        await new Promise((r) => setTimeout(r, 500));
        after = await create('despues');
      }
      expect(after.status).toBe(201);
      acked.push('despues');

      // And the database opens again intact after a restart.
      child.kill('SIGTERM');
      await exited(child);
      child = await startServer(port, env);
      const relogin = await fetch(`${base}/api/admin/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ username: 'admin', password: 'clave-de-gestor' }),
      });
      headers.authorization = `Bearer ${((await relogin.json()) as { access: string }).access}`;
      const restarted = await names();
      expect(acked.filter((n) => !restarted.includes(n))).toEqual([]);
      expect(restarted.filter((n) => n.startsWith('lleno-') && !acked.includes(n))).toEqual([]);
    },
  );
});
