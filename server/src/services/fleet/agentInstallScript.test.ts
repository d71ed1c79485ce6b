/**
 * Issue 31: the one-line install put the agent token in `sudo`'s arguments, which any local user
 * reads in `ps` while it runs. The line the panel shows is run here as an operator pastes it (into
 * a shell's input, not as an argument), under strace, with the real install script served by a
 * stand-in curl: every program started on the way — sudo, bash, curl, what the script runs — has
 * its arguments recorded, and the token is in none of them, while it did reach the agent download
 * (on curl's stdin). `sudo`, `ip`, `wg`, `nft` and `id` are stand-ins too: nothing here touches the
 * machine's network or packages; the script stops where the stand-in panel refuses the token.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { installCommand, installScript } from './agentInstallScript.ts';

const hasStrace = spawnSync('strace', ['-V'], { stdio: 'ignore' }).status === 0;
const dir = mkdtempSync(join(tmpdir(), 'vpn-install-argv-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function stub(name: string, body: string) {
  const file = join(dir, 'bin', name);
  writeFileSync(file, `#!/bin/bash\n${body}\n`);
  chmodSync(file, 0o755);
}

describe('the install line', () => {
  it.skipIf(!hasStrace)(
    "keeps the agent token out of every process's arguments, and still hands it to the script",
    () => {
      const panel = 'http://panel.example';
      // As the panel makes them: 32 random bytes, base64url.
      const token = randomBytes(32).toString('base64url');
      spawnSync('mkdir', ['-p', join(dir, 'bin'), join(dir, 'root')]);
      writeFileSync(
        join(dir, 'install.sh'),
        installScript({ panelUrl: panel, version: '9.9.9', sha256: 'x' }),
      );
      // sudo runs what follows it, with the VAR=value words as its environment, like the real one.
      stub('sudo', 'exec env "$@"');
      // curl: the install script for its URL; for the agent file, what it was given on stdin is kept
      // and the panel refuses the token (401), where the script stops.
      stub(
        'curl',
        `case "$*" in
  *install.sh*) cat "${join(dir, 'install.sh')}" ;;
  *vpn-agent.mjs*) cat > "${join(dir, 'curl-stdin')}"; printf 401 ;;
  *) exit 7 ;;
esac`,
      );
      stub('ip', 'exit 0');
      stub('wg', 'exit 0');
      stub('nft', 'exit 0');
      stub('id', 'echo 0');
      const trace = join(dir, 'trace');
      const line = installCommand(panel, token);
      // The operator types the line into a shell: it reaches bash on its input, not as an argument.
      const run = spawnSync(
        'strace',
        ['-f', '-qq', '-e', 'trace=execve', '-s', '65535', '-o', trace, 'bash', '--norc', '--noprofile'],
        {
          input: `${line}\n`,
          encoding: 'utf8',
          env: {
            PATH: `${join(dir, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
            VPN_AGENT_ROOT: join(dir, 'root'),
            VPN_AGENT_NO_SYSTEMD: '1',
          },
        },
      );
      // The script got as far as the download, with the token, and said why it stopped.
      expect(run.stdout + run.stderr).toContain('el panel rechazó el token');
      expect(readFileSync(join(dir, 'curl-stdin'), 'utf8')).toContain(`Bearer ${token}`);
      const execs = readFileSync(trace, 'utf8')
        .split('\n')
        .filter((l) => l.includes('execve('));
      // Every program on the way was seen: sudo, the script's bash, curl twice, sha256sum is not
      // reached (the download failed first) but mkdir and mktemp are.
      for (const program of ['/sudo"', '/curl"', '/mktemp"', '/env"'])
        expect(
          execs.some((l) => l.includes(program)),
          program,
        ).toBe(true);
      expect(execs.filter((l) => l.includes(token))).toEqual([]);
    },
  );
});
