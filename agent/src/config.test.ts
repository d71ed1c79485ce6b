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
      firewall: true,
    });
  });

  it('takes the environment when flags are absent, flags winning', () => {
    const env = {
      AGENT_URL: 'http://a',
      AGENT_TOKEN: 'envtok',
      AGENT_INTERFACE: 'wg7',
      AGENT_NETNS: 'ns1',
      AGENT_FIREWALL: 'false',
    };
    expect(run([], env)).toMatchObject({
      url: 'http://a',
      token: 'envtok',
      interfaceName: 'wg7',
      netns: 'ns1',
      firewall: false,
    });
    expect(run(['--interface', 'wg9'], env).interfaceName).toBe('wg9');
  });

  it('reads the token from a file so it stays off the command line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'agent-cfg-'));
    try {
      writeFileSync(join(dir, 'token'), 'filetoken\n');
      expect(run(['--url', 'http://a', '--token-file', join(dir, 'token')]).token).toBe('filetoken');
      expect(() => run(['--url', 'http://a', '--token-file', join(dir, 'nope')])).toThrow(/no se puede leer/);
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('explains each bad argument in one sentence', () => {
    const cases: [string[], RegExp][] = [
      [['--token', 'x'], /falta la URL del plano de control/],
      [['--url', 'http://a'], /falta el token del agente/],
      [['--url', 'ftp://a', '--token', 'x'], /--url: .*http/],
      [['--url', 'http://a', '--token', 'x', '--interface', 'much-too-long-name0'], /--interface no válida/],
      [['--url', 'http://a', '--token', 'x', '--log-level', 'loud'], /--log-level debe ser uno de/],
      [['--url', 'http://a', '--token', 'x', '--backend', 'bsd'], /--backend debe ser/],
      [['--url', 'http://a', '--token', 'x', '--repair-interval', '5'], /--repair-interval/],
      [['--url', 'http://a', '--token', 'x', '--bogus'], /opción desconocida: --bogus/],
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
    expect(parseCli(['--down', '--interface', 'wg0', '--netns', 'x'], {})).toEqual({
      kind: 'down',
      interfaceName: 'wg0',
      netns: 'x',
      logLevel: 'info',
    });
  });
});
