import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseCli } from './config.ts';

const run = (argv: string[], env: NodeJS.ProcessEnv = {}) => {
  const cmd = parseCli(argv, env);
  if (cmd.kind !== 'run') throw new Error(`se esperaba run, no ${cmd.kind}`);
  return cmd.config;
};

describe('parseCli', () => {
  it('reads --url and --token with sensible defaults', () => {
    expect(run(['--url', 'https://cp.example', '--token', 'abc'])).toEqual({
      url: 'https://cp.example',
      token: 'abc',
      interfaceName: undefined,
      uplink: undefined,
      netns: undefined,
      stateDir: undefined,
      logLevel: 'info',
      backend: 'auto',
      wireguardGo: 'wireguard-go',
      repairIntervalMs: 300_000,
      reconnectMaxMs: 30_000,
      firewall: true,
      hostTcpPorts: [],
      replaceForeignLink: false,
    });
  });

  it('takes the environment when flags are absent, flags winning', () => {
    const env = {
      AGENT_URL: 'https://a',
      AGENT_TOKEN: 'envtok',
      AGENT_INTERFACE: 'wg7',
      AGENT_NETNS: 'ns1',
      AGENT_FIREWALL: 'false',
      AGENT_RECONNECT_MAX: '2',
    };
    expect(run([], env)).toMatchObject({
      url: 'https://a',
      token: 'envtok',
      interfaceName: 'wg7',
      netns: 'ns1',
      firewall: false,
      reconnectMaxMs: 2000,
    });
    expect(run(['--interface', 'wg9'], env).interfaceName).toBe('wg9');
    expect(run(['--reconnect-max', '5'], env).reconnectMaxMs).toBe(5000);
  });

  it('reads the token from a file so it stays off the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-cfg-'));
    try {
      writeFileSync(join(dir, 'token'), 'filetoken\n');
      expect(run(['--url', 'https://a', '--token-file', join(dir, 'token')]).token).toBe('filetoken');
      expect(() => run(['--url', 'https://a', '--token-file', join(dir, 'nope')])).toThrow(
        /no se puede leer/,
      );
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('explains each bad argument in one sentence', () => {
    const cases: [string[], RegExp][] = [
      [['--token', 'x'], /falta la URL del plano de control/],
      [['--url', 'https://a'], /falta el token del agente/],
      [['--url', 'ftp://a', '--token', 'x'], /--url: .*http/],
      [['--url', 'https://a', '--token', 'x', '--interface', 'much-too-long-name0'], /--interface no válida/],
      [['--url', 'https://a', '--token', 'x', '--log-level', 'loud'], /--log-level debe ser uno de/],
      [['--url', 'https://a', '--token', 'x', '--backend', 'bsd'], /--backend debe ser/],
      [['--url', 'https://a', '--token', 'x', '--repair-interval', '5'], /--repair-interval/],
      [['--url', 'https://a', '--token', 'x', '--reconnect-max', '0'], /--reconnect-max/],
      [['--url', 'https://a', '--token', 'x', '--reconnect-max', '2.5'], /--reconnect-max/],
      [['--url', 'https://a', '--token', 'x', '--bogus'], /opción desconocida: --bogus/],
      [['--url'], /falta el valor de --url/],
      [['--down'], /--down necesita --interface/],
    ];
    for (const [argv, re] of cases) {
      expect(() => parseCli(argv, {})).toThrow(ConfigError);
      expect(() => parseCli(argv, {})).toThrow(re);
    }
  });

  it('recognises --help and --down', () => {
    expect(parseCli(['--help'], {})).toEqual({ kind: 'help' });
    expect(parseCli(['--version'], {})).toEqual({ kind: 'version' });
    expect(parseCli(['--down', '--interface', 'wg0', '--netns', 'x'], {})).toEqual({
      kind: 'down',
      interfaceName: 'wg0',
      netns: 'x',
      logLevel: 'info',
      replaceForeignLink: false,
    });
    expect(parseCli(['--down', '--interface', 'wg0', '--replace-foreign-link'], {})).toMatchObject({
      replaceForeignLink: true,
    });
  });

  it('takes a pid file from --pid-file or AGENT_PID_FILE', () => {
    const base = ['--url', 'https://panel.example.com', '--token', 't'];
    expect(parseCli([...base, '--pid-file', '/run/a.pid'], {})).toMatchObject({
      config: { pidFile: '/run/a.pid' },
    });
    expect(parseCli(base, { AGENT_PID_FILE: '/run/b.pid' })).toMatchObject({
      config: { pidFile: '/run/b.pid' },
    });
    expect(parseCli(base, {})).toMatchObject({ config: { pidFile: undefined } });
  });

  it('refuses a plain-http control plane off this machine unless asked explicitly', () => {
    for (const url of ['http://panel.example.com', 'ws://10.0.0.5:8080', 'http://192.168.1.2/base']) {
      expect(() => run(['--url', url, '--token', 'x'])).toThrow(ConfigError);
      expect(() => run(['--url', url, '--token', 'x'])).toThrow(
        /no está cifrada \(http:\/\/\) y el canal lleva la clave privada del servidor.*--allow-insecure-http \(AGENT_ALLOW_HTTP=true\)/,
      );
      expect(run(['--url', url, '--token', 'x', '--allow-insecure-http']).url).toBe(url);
      expect(run(['--url', url, '--token', 'x'], { AGENT_ALLOW_HTTP: 'true' }).url).toBe(url);
      expect(() => run(['--url', url, '--token', 'x'], { AGENT_ALLOW_HTTP: 'false' })).toThrow(
        /no está cifrada/,
      );
    }
    expect(() => run(['--url', 'http://a', '--token', 'x'], { AGENT_ALLOW_HTTP: 'quizá' })).toThrow(
      /AGENT_ALLOW_HTTP debe ser true o false/,
    );
    // This machine (the one-box LOCAL_AGENT, tests) may use http; https and wss always.
    for (const url of [
      'http://127.0.0.1:8080',
      'http://localhost:8080',
      'http://[::1]:8080',
      'https://panel.example.com',
      'wss://panel.example.com',
    ])
      expect(run(['--url', url, '--token', 'x']).url).toBe(url);
    // A host name that merely starts like loopback is not loopback.
    expect(() => run(['--url', 'http://127.0.0.1.evil.example', '--token', 'x'])).toThrow(/no está cifrada/);
  });

  it('reads --replace-foreign-link and --host-tcp-ports (flags or environment)', () => {
    expect(run(['--url', 'https://a', '--token', 'x', '--replace-foreign-link']).replaceForeignLink).toBe(
      true,
    );
    expect(
      run(['--url', 'https://a', '--token', 'x'], { AGENT_REPLACE_FOREIGN_LINK: 'true' }).replaceForeignLink,
    ).toBe(true);
    expect(run(['--url', 'https://a', '--token', 'x', '--host-tcp-ports', '443, 8080']).hostTcpPorts).toEqual(
      [443, 8080],
    );
    expect(run(['--url', 'https://a', '--token', 'x'], { AGENT_HOST_TCP_PORTS: '22' }).hostTcpPorts).toEqual([
      22,
    ]);
    for (const bad of ['0', '70000', '22,x', '22;443'])
      expect(() => run(['--url', 'https://a', '--token', 'x', '--host-tcp-ports', bad])).toThrow(
        /--host-tcp-ports debe ser una lista de puertos/,
      );
  });
});
