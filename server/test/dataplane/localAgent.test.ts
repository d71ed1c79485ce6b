/**
 * One box: `LOCAL_AGENT=true npm start` runs the control plane and an agent for a local server.
 * The whole box runs inside a namespace here (so its interface and nftables table stay there);
 * the test talks to its API from inside that namespace.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Lab, dataplaneSkipReason, eventually, uniqueName } from './network.ts';

const skip = dataplaneSkipReason();
const MAIN = new URL('../../src/main.ts', import.meta.url).pathname;
const TSX = new URL('../../../node_modules/.bin/tsx', import.meta.url).pathname;

describe.skipIf(skip !== null)('one box (LOCAL_AGENT)', () => {
  const lab = skip ? undefined : new Lab();
  const dataDir = mkdtempSync(join(tmpdir(), 'vpn-box-'));
  let box: ChildProcess | undefined;
  const iface = uniqueName('dpbox');

  afterAll(async () => {
    if (box && box.exitCode === null) {
      await new Promise<void>((r) => {
        box!.once('exit', () => r());
        box!.kill('SIGTERM');
      });
    }
    const pids = spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter(Boolean)
      .map(Number);
    for (const pid of pids) process.kill(pid, 'SIGTERM');
    await lab?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the local server, brings its WireGuard interface up and shows its agent online', async () => {
    const host = lab!.host('dpb', '198.51.100.5');
    lab!.net.track(iface);
    box = spawn('ip', ['netns', 'exec', host.ns, TSX, MAIN], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        PORT: '18080',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ADMIN_PASSWORD: 'clave-de-la-caja',
        LOCAL_AGENT: 'true',
        LOCAL_AGENT_INTERFACE: iface,
        LOCAL_AGENT_ENDPOINT: '198.51.100.5:51820',
        LOCAL_AGENT_UPLINK: host.iface,
        SEED_DEMO: 'false',
        WEB_DIST: join(dataDir, 'no-web'),
      },
    });
    const curl = (args: string[]) =>
      spawnSync(
        'ip',
        ['netns', 'exec', host.ns, 'curl', '-s', '-H', 'content-type: application/json', ...args],
        { encoding: 'utf8' },
      ).stdout;
    await eventually(
      () => spawnSync('wg', ['show', iface], { stdio: 'ignore' }).status === 0,
      60_000,
      'interfaz local',
    );
    // wireguard-go starts on a random port; the agent then sets the server's.
    await eventually(
      () => spawnSync('wg', ['show', iface, 'listen-port'], { encoding: 'utf8' }).stdout.trim() === '51820',
      30_000,
      'puerto 51820',
    );
    const { access } = JSON.parse(
      curl([
        '-X',
        'POST',
        'http://127.0.0.1:18080/api/admin/login',
        '-d',
        JSON.stringify({ username: 'admin', password: 'clave-de-la-caja' }),
      ]),
    ) as { access: string };
    const servers = JSON.parse(
      curl(['-H', `authorization: Bearer ${access}`, 'http://127.0.0.1:18080/api/admin/servers']),
    ) as { results: { name: string; agent_online: boolean; endpoint: string }[] };
    expect(servers.results).toMatchObject([{ name: 'Local', endpoint: '198.51.100.5:51820' }]);
    await eventually(
      () => {
        const list = JSON.parse(
          curl(['-H', `authorization: Bearer ${access}`, 'http://127.0.0.1:18080/api/admin/servers']),
        ) as { results: { agent_online: boolean }[] };
        return list.results[0]?.agent_online === true;
      },
      30_000,
      'agente local en línea',
    );
  });
});
