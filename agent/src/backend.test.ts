/** The daemon check that decides between adopting a live interface and deleting a leftover. */
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { daemonAnswers } from './backend.ts';

describe('daemonAnswers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vpn-agent-sock-'));
  let server: Server | null = null;
  afterEach(async () => {
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    server = null;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps asking a daemon that refuses its first connects, so a live interface is adopted', async () => {
    const path = join(dir, 'busy.sock');
    // A socket path nobody listens on yet refuses the connect, as a daemon that cannot accept does.
    writeFileSync(path, '');
    setTimeout(() => {
      unlinkSync(path);
      server = createServer((c) => c.destroy()).listen(path);
    }, 400);
    expect(await daemonAnswers(path)).toBe(true);
  });

  it('gives up on a leftover socket file with no daemon behind it', async () => {
    const path = join(dir, 'left.sock');
    writeFileSync(path, '');
    expect(await daemonAnswers(path)).toBe(false);
  });

  it('says no when there is no socket at all', async () => {
    expect(await daemonAnswers(join(dir, 'none.sock'))).toBe(false);
  });
});
