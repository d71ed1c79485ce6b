/**
 * The install line and an upgrade over https, with the panel behind Caddy (`tls internal`: a private
 * CA) as an operator with their own CA would run it: `{ echo AGENT_TOKEN=…; curl --cacert CA …; } |
 * sudo AGENT_CA_FILE=CA bash`. The script must fetch the agent through that CA, and the agent must trust it
 * both for its websocket and for its own upgrade download (NODE_EXTRA_CA_CERTS in agent.env).
 *
 * Caddy runs inside the VPN server's namespace on 127.0.0.1:8443 and proxies to the panel through a
 * unix socket (sockets on the filesystem cross namespaces); its CA stays in the test's directory
 * (`skip_install_trust`, its own HOME and XDG dirs): nothing is added to the machine's trust store.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, confirmed, createTestApp, listen, managerToken, type TestApp } from '../helpers.ts';
import { DEBIAN_NODE_VERSION, debianNode18 } from './debianNode18.ts';
import { Lab, dataplaneSkipReason, eventually, uniqueName, type Host } from './network.ts';

const REPO = new URL('../../../', import.meta.url).pathname;
const PANEL = 'https://127.0.0.1:8443';

function skipReason(): string | null {
  const base = dataplaneSkipReason();
  if (base) return base;
  for (const bin of ['curl', 'unshare', 'sha256sum', 'setsid', 'caddy'])
    if (spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status !== 0) return `falta ${bin}`;
  return null;
}

const skip = skipReason();
const node18 = skip ? null : debianNode18();
const reason = skip ?? (node18 && 'skip' in node18 ? node18.skip : null);
if (process.env.CI && !skip && reason) throw new Error(`no se pudo preparar el node de Debian 12: ${reason}`);

function buildAgentFile(version: string, out: string): void {
  const tmp = `${out}.${process.pid}.tmp`;
  const r = spawnSync(
    process.execPath,
    [join(REPO, 'scripts/build.mjs'), 'agent-file', '--version', version, '--out', tmp],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`no se pudo construir el agente: ${r.stderr}`);
  renameSync(tmp, out);
}

describe.skipIf(reason !== null)(`agent install over https${reason ? ` (omitido: ${reason})` : ''}`, () => {
  const bin = node18 && 'bin' in node18 ? node18.bin : '';
  const dir = mkdtempSync(join(tmpdir(), 'vpn-install-tls-'));
  const agentFile = join(dir, 'panel/vpn-agent.mjs');
  const root = join(dir, 'server');
  const caddyData = join(dir, 'caddy-data');
  const ca = join(caddyData, 'caddy/pki/authorities/local/root.crt');
  const iface = uniqueName('dptw');
  const pkgVersion = JSON.parse(readFileSync(join(REPO, 'agent/package.json'), 'utf8')).version as string;
  const [major, minor, patch] = pkgVersion.split('.').map(Number) as [number, number, number];
  const v2 = `${major}.${minor}.${patch + 1}`;

  let lab: Lab;
  let t: TestApp;
  let admin: string;
  let relay: Server;
  let server: Host;
  let serverId: number;

  const detail = async () =>
    (
      await t.app.inject({ method: 'GET', url: `/api/admin/servers/${serverId}`, headers: bearer(admin) })
    ).json<{
      agent_online: boolean;
      agent_version: string | null;
      agent_upgrade: { status: string } | null;
    }>();

  function runOnServer(line: string): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
      const child = spawn('ip', ['netns', 'exec', server.ns, 'bash', '-c', line], {
        env: {
          PATH: `${bin}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`,
          VPN_AGENT_NO_SYSTEMD: '1',
          VPN_AGENT_ROOT: root,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.stderr.on('data', (d: Buffer) => (out += d.toString()));
      child.on('exit', (code) => resolve({ code, out }));
    });
  }

  beforeAll(async () => {
    buildAgentFile(pkgVersion, agentFile);
    lab = new Lab();
    t = await createTestApp({ scheduler: false, agentFile, env: { PUBLIC_URL: PANEL } });
    const base = await listen(t);
    admin = await managerToken(t);
    const sock = join(dir, 'panel.sock');
    const port = Number(new URL(base).port);
    relay = createServer((c) => {
      const up = createConnection(port, '127.0.0.1');
      c.pipe(up).pipe(c);
      up.on('error', () => c.destroy());
      c.on('error', () => up.destroy());
    });
    await new Promise<void>((r) => relay.listen(sock, r));
    server = lab.host('dpts', '198.51.100.71');
    lab.net.track(iface);
    const caddyfile = join(dir, 'Caddyfile');
    writeFileSync(
      caddyfile,
      `{
\tadmin off
\tskip_install_trust
\tauto_https disable_redirects
}

${PANEL} {
\ttls internal
\treverse_proxy unix/${sock}
}
`,
    );
    for (const d of ['caddy-home', 'caddy-data', 'caddy-config']) mkdirSync(join(dir, d));
    // Caddy logs to stderr; its first line means it is up (the certificate comes right after).
    await lab.net.startProcess(server.ns, 'sh', [
      '-c',
      `HOME=${dir}/caddy-home XDG_DATA_HOME=${caddyData} XDG_CONFIG_HOME=${dir}/caddy-config exec caddy run --config ${caddyfile} --adapter caddyfile 2>&1`,
    ]);
    await eventually(() => existsSync(ca), 30_000, 'CA local de Caddy');
  });

  afterAll(async () => {
    if (server) {
      const inNetns = () =>
        spawnSync('ip', ['netns', 'pids', server.ns], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean)
          .map(Number);
      // SIGTERM first, then SIGKILL whatever is left, until the namespace is empty: an agent that
      // saw its wireguard-go die from the first round before its own SIGTERM started a new one,
      // which outlived the test (found running hours later, its namespace gone).
      for (let round = 0; round < 20; round++) {
        const pids = inNetns();
        if (pids.length === 0) break;
        for (const pid of pids) {
          try {
            process.kill(pid, round < 5 ? 'SIGTERM' : 'SIGKILL');
          } catch {
            // gone
          }
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    relay?.close();
    await t?.close();
    await lab?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  it('installs through a private CA and upgrades over https', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/admin/servers',
      headers: await confirmed(t, admin),
      payload: { name: 'Nodo TLS', endpoint: '198.51.100.71:51820', ubication: 'Lab', interface_name: iface },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json<{ server: { id: number }; agent_token: string; install_command: string }>();
    serverId = created.server.id;
    // The operator's line, with their CA for curl and for the script (docs/deploy.md).
    const line = created.install_command
      .replace('curl -fsSL', `curl --cacert ${ca} -fsSL`)
      .replace('sudo ', `sudo AGENT_CA_FILE=${ca} `);
    expect(line).not.toBe(created.install_command);
    const run = await runOnServer(line);
    expect(run.out).toContain(
      `Listo: agente VPN instalado (versión ${pkgVersion}, Node v${DEBIAN_NODE_VERSION}) y conectado al panel ${PANEL}.`,
    );
    expect(run.code).toBe(0);
    const saved = join(root, 'etc/vpn-agent/ca.pem');
    expect(readFileSync(saved, 'utf8')).toBe(readFileSync(ca, 'utf8'));
    expect(readFileSync(join(root, 'etc/vpn-agent/agent.env'), 'utf8')).toContain(
      `NODE_EXTRA_CA_CERTS=${saved}\n`,
    );
    await eventually(async () => (await detail()).agent_online, 30_000, 'agente en línea');

    // The upgrade's download goes through Caddy too, trusting the same CA.
    buildAgentFile(v2, agentFile);
    const up = await t.app.inject({
      method: 'POST',
      url: `/api/admin/servers/${serverId}/agent-upgrade`,
      headers: bearer(admin),
    });
    expect(up.statusCode).toBe(202);
    await eventually(
      async () => {
        const d = await detail();
        return d.agent_version === v2 && d.agent_upgrade === null;
      },
      60_000,
      'actualizado por https',
    );
    const installed = join(root, 'opt/vpn-agent/vpn-agent.mjs');
    const sha = (f: string) => createHash('sha256').update(readFileSync(f)).digest('hex');
    expect(sha(installed)).toBe(sha(agentFile));
  });
});
