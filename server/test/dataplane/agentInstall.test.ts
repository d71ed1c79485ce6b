/**
 * A VPN node in one pasted line, and upgrades without dropped tunnels (issue 16), on real parts:
 * a namespace acting as a fresh VPN server runs the exact line "Nuevo servidor" shows (`curl … |
 * sudo bash` after the token's `echo`, with the no-systemd switch), which installs the bundled agent file and
 * starts it on Debian 12's own Node 18. A customer's tunnel comes up through it; then the agent is
 * upgraded from the console while pings flow through that tunnel (at most one lost), a broken file
 * is refused with the reason shown and the old agent kept, and running the line again upgrades in
 * place.
 *
 * The panel listens on this machine's loopback; inside the server's namespace a relay on
 * 127.0.0.1:8080 reaches it through a unix socket (sockets on the filesystem cross namespaces), so
 * PUBLIC_URL is http://127.0.0.1:8080 for both.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createConnection, createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plans } from '../../src/db/schema.ts';
import {
  bearer,
  confirmed,
  createCustomer,
  createTestApp,
  listen,
  login,
  managerToken,
  type TestApp,
} from '../helpers.ts';
import { pidAlive } from '../../../agent/src/testing/netns.ts';
import { DEBIAN_NODE_VERSION, debianNode18 } from './debianNode18.ts';
import { INTERNET_HOST, Lab, dataplaneSkipReason, eventually, uniqueName, type Host } from './network.ts';

const REPO = new URL('../../../', import.meta.url).pathname;
const PANEL = 'http://127.0.0.1:8080';

function skipReason(): string | null {
  const base = dataplaneSkipReason();
  if (base) return base;
  for (const bin of ['curl', 'unshare', 'sha256sum', 'setsid'])
    if (spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status !== 0) return `falta ${bin}`;
  return null;
}

const skip = skipReason();
const node18 = skip ? null : debianNode18();
const reason = skip ?? (node18 && 'skip' in node18 ? node18.skip : null);
// On CI (root, apt-get, the data-plane tools) Debian's Node 18 must be had: not finding it fails.
if (process.env.CI && !skip && reason) throw new Error(`no se pudo preparar el node de Debian 12: ${reason}`);

/** The agent file as `npm run build` makes it, with another version written in (a later release). */
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

const sha256Of = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

describe.skipIf(reason !== null)(
  `agent install line and upgrade${reason ? ` (omitido: ${reason})` : ''}`,
  () => {
    const bin = node18 && 'bin' in node18 ? node18.bin : '';
    const dir = mkdtempSync(join(tmpdir(), 'vpn-install-'));
    const agentFile = join(dir, 'panel/vpn-agent.mjs');
    /** The fresh server's filesystem root for what install.sh writes (VPN_AGENT_ROOT). */
    const root = join(dir, 'server');
    const pidFile = join(root, 'run/vpn-agent.pid');
    const installed = join(root, 'opt/vpn-agent/vpn-agent.mjs');
    const iface = uniqueName('dpiw');
    const pkgVersion = JSON.parse(readFileSync(join(REPO, 'agent/package.json'), 'utf8')).version as string;
    const [major, minor, patch] = pkgVersion.split('.').map(Number) as [number, number, number];
    const v1 = pkgVersion;
    const v2 = `${major}.${minor}.${patch + 1}`;
    const v3 = `${major}.${minor}.${patch + 2}`;

    let lab: Lab;
    let t: TestApp;
    let admin: string;
    let relay: Server;
    let server: Host;
    let serverId: number;
    let installLine: string;

    const api = (
      method: 'GET' | 'POST',
      url: string,
      token: string,
      payload?: object,
      headers = bearer(token),
    ) => t.app.inject({ method, url, headers, payload });
    const detail = async () =>
      (await api('GET', `/api/admin/servers/${serverId}`, admin)).json<{
        agent_online: boolean;
        agent_version: string | null;
        agent_node_version: string | null;
        agent_outdated: boolean;
        agent_latest_version: string | null;
        agent_upgrade: { status: string; error: string | null } | null;
      }>();
    const agentPid = () => (existsSync(pidFile) ? Number(readFileSync(pidFile, 'utf8').trim()) : 0);

    /** Runs a line in the server's namespace as its root would, with Debian's node first on PATH. */
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

    /**
     * `ping -i 0.2` through the tunnel until stopped. Counted by sequence number: up to the last
     * reply, every request without one was lost (the request in flight when ping is stopped is not).
     */
    function pingUntilStopped(ns: string, target: string) {
      const child = spawn('ip', ['netns', 'exec', ns, 'ping', '-n', '-i', '0.2', '-W', '1', target], {
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      const seqs = () => new Set([...out.matchAll(/bytes from .* icmp_seq=(\d+)/g)].map((m) => Number(m[1])));
      const done = new Promise<{ sent: number; received: number }>((resolve) =>
        child.on('exit', () => {
          const got = seqs();
          resolve({ sent: Math.max(0, ...got), received: got.size });
        }),
      );
      return {
        replies: () => seqs().size,
        stop: () => {
          child.kill('SIGINT');
          return done;
        },
      };
    }

    beforeAll(async () => {
      buildAgentFile(v1, agentFile);
      lab = new Lab();
      t = await createTestApp({ scheduler: false, agentFile, env: { PUBLIC_URL: PANEL } });
      const base = await listen(t);
      admin = await managerToken(t);
      // The relay: a unix socket here → the panel; in the server's namespace, 127.0.0.1:8080 → it.
      const sock = join(dir, 'panel.sock');
      const port = Number(new URL(base).port);
      relay = createServer((c) => {
        const up = createConnection(port, '127.0.0.1');
        c.pipe(up).pipe(c);
        up.on('error', () => c.destroy());
        c.on('error', () => up.destroy());
      });
      await new Promise<void>((r) => relay.listen(sock, r));
      server = lab.host('dpis', '198.51.100.61');
      lab.net.track(iface);
      await lab.net.startProcess(server.ns, process.execPath, [
        '-e',
        `const net = require('node:net');
       net.createServer((c) => {
         const u = net.connect(${JSON.stringify(sock)});
         c.pipe(u).pipe(c);
         u.on('error', () => c.destroy());
         c.on('error', () => u.destroy());
       }).listen(8080, '127.0.0.1', () => console.log('ok'));`,
      ]);
    });

    afterAll(async () => {
      // Everything the install started lives in the server's namespace (agent, wireguard-go, relay).
      if (server) {
        const pids = spawnSync('ip', ['netns', 'pids', server.ns], { encoding: 'utf8' })
          .stdout.split('\n')
          .filter(Boolean)
          .map(Number);
        for (const pid of pids) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            // gone
          }
        }
      }
      relay?.close();
      await t?.close();
      await lab?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    it('installs and starts the agent on Debian 12’s Node 18 from the line the panel shows', async () => {
      const res = await api(
        'POST',
        '/api/admin/servers',
        admin,
        { name: 'Nodo nuevo', endpoint: `${'198.51.100.61'}:51820`, ubication: 'Lab', interface_name: iface },
        await confirmed(t, admin),
      );
      expect(res.statusCode).toBe(201);
      const created = res.json<{ server: { id: number }; agent_token: string; install_command: string }>();
      serverId = created.server.id;
      installLine = created.install_command;
      expect(installLine).toBe(
        `{ echo AGENT_TOKEN='${created.agent_token}'; curl -fsSL '${PANEL}/api/agent/install.sh'; } | sudo bash`,
      );

      const run = await runOnServer(installLine);
      expect(run.out).toContain(
        `Listo: agente VPN instalado (versión ${v1}, Node v${DEBIAN_NODE_VERSION}) y conectado al panel ${PANEL}.`,
      );
      expect(run.code).toBe(0);

      // The files, as the script promises: the token and settings readable by root only.
      const token = join(root, 'etc/vpn-agent/token');
      const env = join(root, 'etc/vpn-agent/agent.env');
      expect(readFileSync(token, 'utf8')).toBe(`${created.agent_token}\n`);
      expect(statSync(token).mode & 0o777).toBe(0o600);
      expect(statSync(env).mode & 0o777).toBe(0o600);
      expect(readFileSync(env, 'utf8')).toContain(`AGENT_URL=${PANEL}\n`);
      expect(sha256Of(installed)).toBe(sha256Of(agentFile));

      // The running agent: Debian's node, and the token in neither its arguments nor its environment.
      const pid = agentPid();
      expect(pidAlive(pid)).toBe(true);
      expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(created.agent_token);
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain(created.agent_token);
      const d = await detail();
      expect(d).toMatchObject({
        agent_online: true,
        agent_version: v1,
        agent_node_version: DEBIAN_NODE_VERSION,
        agent_outdated: false,
      });
    });

    it('carries a customer’s tunnel, and an upgrade from the console loses at most one ping', async () => {
      const [plan] = await t.ctx.db
        .insert(plans)
        .values({ name: 'Mensual', description: 'x', price: '3.00', validity: '30 days' })
        .returning();
      const c = await createCustomer(t);
      const { access } = await login(t, c.username, c.password);
      const peer = await api('POST', '/api/admin/peers', admin, {
        username: c.username,
        plan: plan!.id,
        name: 'Móvil',
        server: serverId,
      });
      expect(peer.statusCode).toBe(201);
      const conf = (await api('GET', `/api/client/accounts/peers/${peer.json().id}`, access)).body;
      await eventually(() => lab.peersOn(iface).length === 1, 30_000, 'snapshot aplicado');
      const client = lab.host('dpic', '198.51.100.62');
      await lab.loadClientConf(client, conf);
      expect(await lab.reaches(client.ns, '10.64.0.1')).toBe(true);
      expect(await lab.reaches(client.ns, INTERNET_HOST)).toBe(true);

      // A newer agent file on the panel: the agent is "desactualizado" until it upgrades.
      buildAgentFile(v2, agentFile);
      expect(await detail()).toMatchObject({ agent_outdated: true, agent_latest_version: v2 });
      const before = agentPid();
      const ping = pingUntilStopped(client.ns, INTERNET_HOST);
      await eventually(() => ping.replies() >= 3, 20_000, 'pings antes de actualizar');

      const res = await api('POST', `/api/admin/servers/${serverId}/agent-upgrade`, admin);
      expect(res.statusCode).toBe(202);
      await eventually(
        async () => {
          const d = await detail();
          return d.agent_version === v2 && d.agent_upgrade === null && d.agent_online;
        },
        60_000,
        'agente actualizado y conectado',
      );
      // Restarted into the new file (a new process), which is the panel's file byte for byte.
      const after = agentPid();
      expect(after).not.toBe(before);
      expect(pidAlive(after)).toBe(true);
      expect(pidAlive(before)).toBe(false);
      expect(sha256Of(installed)).toBe(sha256Of(agentFile));
      // The new agent has adopted the interface and applied its snapshot: more pings after that.
      const seen = ping.replies();
      await eventually(() => ping.replies() >= seen + 5, 20_000, 'pings después de actualizar');
      const { sent, received } = await ping.stop();
      console.info(`pings durante la actualización: ${sent} enviados, ${received} contestados`);
      expect(sent).toBeGreaterThanOrEqual(8);
      expect(sent - received).toBeLessThanOrEqual(1);
      expect(await detail()).toMatchObject({
        agent_outdated: false,
        agent_node_version: DEBIAN_NODE_VERSION,
      });
    });

    it('refuses a file that does not start, keeps the old agent running, and says why', async () => {
      const pid = agentPid();
      const good = sha256Of(installed);
      // A "release" whose banner names a version but that is not valid JavaScript.
      const broken = `#!/usr/bin/env node\n// vpn-agent ${v3}: broken\nconst = ;\n`;
      const tmp = `${agentFile}.broken`;
      writeFileSync(tmp, broken);
      renameSync(tmp, agentFile);
      const res = await api('POST', `/api/admin/servers/${serverId}/agent-upgrade`, admin);
      expect(res.statusCode).toBe(202);
      await eventually(async () => (await detail()).agent_upgrade?.status === 'failed', 30_000, 'fallo');
      const d = await detail();
      expect(d.agent_upgrade?.error).toContain(`el archivo nuevo no arranca con Node ${DEBIAN_NODE_VERSION}`);
      expect(d.agent_version).toBe(v2);
      expect(agentPid()).toBe(pid);
      expect(pidAlive(pid)).toBe(true);
      expect(sha256Of(installed)).toBe(good);
    });

    it('running the line again upgrades in place and keeps the token', async () => {
      buildAgentFile(v3, agentFile);
      const running = sha256Of(installed);
      // The token is now read from the server's token file: the line without it upgrades too.
      const run = await runOnServer(`curl -fsSL '${PANEL}/api/agent/install.sh' | sudo bash`);
      expect(run.out).toContain(`Listo: agente VPN actualizado de la versión ${v2} a la ${v3} y conectado`);
      expect(run.code).toBe(0);
      await eventually(async () => (await detail()).agent_version === v3, 30_000, 'versión nueva');
      expect(sha256Of(installed)).toBe(sha256Of(agentFile));
      // The file it replaced stays beside it, for a rollback by hand.
      expect(sha256Of(`${installed}.previous`)).toBe(running);
    });
  },
);
