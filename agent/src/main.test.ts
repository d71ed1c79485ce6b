/**
 * The agent as an operator runs it: its command line, started as a process. The command-line cases
 * run the sources (`node --import tsx src/main.ts`, what `npm run agent -- …` runs); the process
 * lifecycle runs the compiled agent (`agent/dist/main.js`, built once here, as the server's
 * data-plane tests run it). Each of its cases starts the agent up to three times, and each start
 * through tsx compiles every source again in an esbuild child: on a loaded machine (two cores, load
 * 10–17) those starts alone outlasted the test's 30 s — not anything the agent waited for. The test
 * waits on events only (the ack, the process's exit), never on a clock.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeControlPlane } from './testing/fakeControlPlane.ts';
import { genKeyPair, randomKey } from './testing/keys.ts';
import { TestNet, nsExec, sh, uniqueName, wireguardSkipReason } from './testing/netns.ts';
import { uapiSocketPath } from './uapi.ts';

const agentDir = new URL('..', import.meta.url).pathname;
const SOURCES = ['--import', 'tsx', 'src/main.ts'];
const COMPILED = ['dist/main.js'];
const runAgent = (args: string[], env: NodeJS.ProcessEnv = {}, entry = SOURCES) =>
  spawnSync(process.execPath, [...entry, ...args], {
    cwd: agentDir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
    // The first run through tsx compiles every source cold: 30 s was not enough at load 30–40
    // (a clean-clone CI run beside five engineers' builds); the exit status is what is checked.
    timeout: 120_000,
  });

describe('agent command line', { timeout: 150_000 }, () => {
  it('exits 2 with one clear sentence on a bad argument', () => {
    const r = runAgent(['--url', 'http://127.0.0.1:1', '--tokn', 'x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('error: opción desconocida: --tokn');
    expect(r.stderr).toContain('--help');
  });

  it('exits 2 when the URL or token is missing', () => {
    const r = runAgent([]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('falta la URL del plano de control');
  });

  it('exits 2 on a plain-http control plane off this machine, naming the way out', () => {
    const r = runAgent(['--url', 'http://panel.example.com', '--token', 'x']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('error: --url: http://panel.example.com no está cifrada (http://)');
    expect(r.stderr).toContain('--allow-insecure-http (AGENT_ALLOW_HTTP=true)');
  });

  it('prints its version (agent/package.json) with --version', () => {
    const r = runAgent(['--version']);
    expect(r.status).toBe(0);
    const pkg = JSON.parse(readFileSync(join(agentDir, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout).toBe(`${pkg.version}\n`);
  });

  it('prints its usage with --help', () => {
    const r = runAgent(['--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('--url');
    expect(r.stdout).toContain('SIGTERM');
  });
});

const skip = wireguardSkipReason();
describe.skipIf(skip !== null)(`agent process lifecycle${skip ? ` — omitido: ${skip}` : ''}`, () => {
  const net = new TestNet();
  const stateDir = mkdtempSync(join(tmpdir(), 'agent-state-'));
  beforeAll(() => {
    const built = spawnSync(
      process.execPath,
      [join(agentDir, '../scripts/build.mjs'), '--if-stale', 'agent'],
      {
        encoding: 'utf8',
      },
    );
    if (built.status !== 0) throw new Error(`no se pudo compilar el agente: ${built.stderr}`);
  });
  let child: ChildProcess | null = null;
  let iface = '';
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    // The daemon the agent process left running (found by its unique interface name).
    const pids = iface
      ? (spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' }).stdout ?? '')
          .split('\n')
          .filter(Boolean)
          .map(Number)
      : [];
    await net.cleanup(pids);
    rmSync(stateDir, { recursive: true, force: true });
  });

  it('on SIGTERM closes its connection, exits 0 and leaves the tunnel up; --down removes it', async () => {
    const ns = net.addNamespace('vmain');
    iface = net.track(uniqueName('wgm'));
    const token = randomKey();
    const server = genKeyPair();
    const peer = {
      public_key: genKeyPair().publicKey,
      preshared_key: randomKey(),
      allowed_ips: ['10.64.0.2/32'],
    };
    const cp = await startFakeControlPlane({
      token,
      onConnect: (send) => {
        send({ type: 'welcome', protocol: 1, server_id: 3, stats_interval_ms: 5000 });
        send({
          type: 'snapshot',
          revision: 12,
          interface: {
            name: iface,
            private_key: server.privateKey,
            listen_port: 51999,
            address: '10.64.0.1/10',
            mtu: 1420,
            nat: true,
          },
          peers: [peer],
        });
      },
    });
    try {
      child = spawn(
        process.execPath,
        [...COMPILED, '--netns', ns, '--uplink', 'lo', '--state-dir', stateDir, '--log-level', 'debug'],
        {
          cwd: agentDir,
          env: { PATH: process.env.PATH, AGENT_URL: cp.url, AGENT_TOKEN: token },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let logs = '';
      child.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
      await cp.waitFor((m) => m.type === 'ack' && m.revision === 12, { timeoutMs: 20_000 });
      const exited = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      // The agent closed its connection cleanly rather than just vanishing.
      for (let i = 0; i < 100 && cp.closes.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
      expect(cp.closes).toEqual([{ conn: 1, code: 1000 }]);
      expect(sh('wg', ['show', iface, 'dump'])).toContain(peer.public_key);
      expect(nsExec(ns, 'nft', ['list', 'tables'])).toContain(`vpn_agent_${iface}`);
      expect(JSON.parse(readFileSync(join(stateDir, 'state.json'), 'utf8'))).toEqual({ revision: 12 });
      // Neither the token nor any key reached the logs.
      for (const secret of [token, server.privateKey, peer.preshared_key]) expect(logs).not.toContain(secret);

      const down = runAgent(['--down', '--interface', iface, '--netns', ns], {}, COMPILED);
      expect(down.status).toBe(0);
      for (let i = 0; i < 100 && existsSync(uapiSocketPath(iface)); i++)
        await new Promise((r) => setTimeout(r, 50));
      expect(existsSync(uapiSocketPath(iface))).toBe(false);
      expect(nsExec(ns, 'nft', ['list', 'tables'])).not.toContain(`vpn_agent_${iface}`);
    } finally {
      await cp.close();
    }
  });

  it('never deletes a link of its name that is not WireGuard unless told to (exit 3)', async () => {
    const ns = net.addNamespace('vmainf');
    const name = uniqueName('wgf');
    // Say, one end of a container's veth that happens to carry the name.
    nsExec(ns, 'ip', ['link', 'add', name, 'type', 'veth', 'peer', 'name', uniqueName('vp')]);
    const token = randomKey();
    const cp = await startFakeControlPlane({
      token,
      onConnect: (send) => {
        send({ type: 'welcome', protocol: 1, server_id: 4, stats_interval_ms: 5000 });
        send({
          type: 'snapshot',
          revision: 3,
          interface: {
            name,
            private_key: genKeyPair().privateKey,
            listen_port: 51998,
            address: '10.64.0.1/10',
            mtu: 1420,
            nat: false,
          },
          peers: [],
        });
      },
    });
    try {
      const agent = spawn(
        process.execPath,
        [...COMPILED, '--netns', ns, '--uplink', 'lo', '--backend', 'wireguard-go'],
        {
          cwd: agentDir,
          env: { PATH: process.env.PATH, AGENT_URL: cp.url, AGENT_TOKEN: token },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      );
      let logs = '';
      agent.stderr?.on('data', (d: Buffer) => (logs += d.toString()));
      const code = await new Promise<number | null>((r) => agent.once('exit', (c) => r(c)));
      expect(code).toBe(3);
      expect(logs).toContain(`la interfaz ${name} ya existe y no es de WireGuard (tipo veth)`);
      expect(logs).toContain('--replace-foreign-link');
      // The control plane heard why the revision did not apply.
      expect(cp.received.some(({ message: m }) => m.type === 'apply_error' && m.revision === 3)).toBe(true);
      expect(nsExec(ns, 'ip', ['-d', 'link', 'show', name])).toContain('veth');

      const down = runAgent(['--down', '--interface', name, '--netns', ns], {}, COMPILED);
      expect(down.status).toBe(3);
      expect(down.stderr).toContain('no es de WireGuard');
      expect(nsExec(ns, 'ip', ['-d', 'link', 'show', name])).toContain('veth');
      const forced = runAgent(
        ['--down', '--interface', name, '--netns', ns, '--replace-foreign-link'],
        {},
        COMPILED,
      );
      expect(forced.status).toBe(0);
      expect(() => nsExec(ns, 'ip', ['link', 'show', name])).toThrow();
    } finally {
      await cp.close();
    }
  });
});
