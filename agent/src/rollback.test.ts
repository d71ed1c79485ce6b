/**
 * The automatic rollback with real processes: the agent runs from a bundled file (scripts/build.mjs
 * agent-file, as the panel serves it), a control plane of this test asks it to upgrade to a file
 * that passes the upgrade's checks (hash, `--version`) and then crashes once it runs. The previous
 * file must end up running by itself, saying in its hello what happened, and the file on disk must
 * be the previous one again. Two crashes: an uncaught error (the process rolls back itself) and a
 * kill (the next start, by systemd's Restart= here played by the test, rolls back).
 *
 * No snapshot is sent and the backend is fixed (`--backend wireguard-go`): the agent touches no
 * network interface, so no root or WireGuard is needed.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket } from 'ws';

const REPO = new URL('../..', import.meta.url).pathname;
const TOKEN = 'tok-rollback-0123456789abcdef';
/**
 * Files are compared by their hash: `expect(buffer).toEqual(buffer)` walks a 1 MB agent file byte by
 * byte through vitest's deep equality, 5–12 s a comparison on a loaded machine (measured at load
 * ~20: 11 s in upgrade(), 27 s for the two after the rollback), which is what ran the uncaught-error
 * case past its 90 s — the processes themselves answered within a second each time.
 */
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A bundled agent file of `version` (the panel's build), read back. */
function bundle(version: string, out: string): Buffer {
  const r = spawnSync(
    process.execPath,
    [join(REPO, 'scripts/build.mjs'), 'agent-file', '--version', version, '--out', out],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`build failed: ${r.stderr}`);
  return readFileSync(out);
}

interface Hello {
  conn: number;
  agent_version: string;
  rolled_back?: { from: string; reason: string };
}

/** The control plane as the agent sees it: the agent file over HTTP and the agent socket. */
class ControlPlane {
  readonly hellos: Hello[] = [];
  readonly messages: { conn: number; message: { type: string; [k: string]: unknown } }[] = [];
  file: Buffer = Buffer.alloc(0);
  private server!: Server;
  private wss!: WebSocketServer;
  private latest: WebSocket | null = null;
  private conns = 0;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end();
      if (req.url !== '/api/agent/vpn-agent.mjs') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/javascript' }).end(this.file);
    });
    this.wss = new WebSocketServer({
      server: this.server,
      path: '/api/agent/ws',
      verifyClient: (info, cb) => cb(info.req.headers.authorization === `Bearer ${TOKEN}`, 401),
    });
    this.wss.on('connection', (ws) => {
      const conn = ++this.conns;
      this.latest = ws;
      ws.on('message', (data) => {
        const message = JSON.parse(data.toString()) as { type: string; [k: string]: unknown };
        this.messages.push({ conn, message });
        if (message.type !== 'hello') return;
        this.hellos.push({ conn, ...(message as unknown as Omit<Hello, 'conn'>) });
        ws.send(JSON.stringify({ type: 'welcome', protocol: 1, server_id: 1, stats_interval_ms: 60_000 }));
      });
    });
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  send(message: object): void {
    this.latest?.send(JSON.stringify(message));
  }

  /** The first hello (counting from `from`) that matches; waits up to 30 s. */
  async hello(pred: (h: Hello) => boolean, from = 0): Promise<Hello> {
    return until(() => this.hellos.slice(from).find(pred), 'hello');
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    this.wss.close();
    this.server.closeAllConnections();
    await new Promise((r) => this.server.close(r));
  }
}

async function until<T>(get: () => T | undefined | null | false, what: string, ms = 30_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`no llegó: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const dir = mkdtempSync(join(tmpdir(), 'vpn-rollback-'));
const v1 = join(dir, 'v1.mjs');
const v2 = join(dir, 'v2.mjs');
let previous: Buffer;
let crashing: Buffer;
let cp: ControlPlane;
const started: ChildProcess[] = [];

beforeAll(async () => {
  previous = bundle('1.0.0', v1);
  // The upgraded file: it starts, says 2.0.0 to `--version`, connects… and dies of an uncaught
  // error when told (SIGUSR2), as a bug on a path the checks never run would.
  crashing = Buffer.concat([
    bundle('2.0.0', v2),
    Buffer.from(
      "\nprocess.on('SIGUSR2', () => setImmediate(() => { throw new Error('fallo de prueba tras las comprobaciones'); }));\n",
    ),
  ]);
  cp = new ControlPlane();
  await cp.start();
  cp.file = crashing;
}, 120_000);

afterAll(async () => {
  await cp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Every agent the case left running (they restart themselves detached: found by the pid file). */
const pidFiles: string[] = [];
afterEach(() => {
  for (const c of started) if (c.exitCode === null) c.kill('SIGKILL');
  for (const f of pidFiles.splice(0)) {
    try {
      process.kill(Number(readFileSync(f, 'utf8').trim()), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
});

/** Installs the previous file in a directory of its own and starts it, as install.sh does. */
function install(name: string) {
  const home = join(dir, name);
  const file = join(home, 'vpn-agent.mjs');
  const pidFile = join(home, 'agent.pid');
  spawnSync('mkdir', ['-p', join(home, 'state')]);
  writeFileSync(file, previous);
  pidFiles.push(pidFile);
  const run = () => {
    const child = spawn(
      process.execPath,
      [file, '--state-dir', join(home, 'state'), '--pid-file', pidFile, '--backend', 'wireguard-go'],
      {
        // No INVOCATION_ID: not under systemd, the agent starts its next file itself.
        env: { PATH: process.env.PATH, AGENT_URL: cp.url, AGENT_TOKEN: TOKEN, AGENT_ALLOW_HTTP: 'true' },
        stdio: 'ignore',
      },
    );
    started.push(child);
    return child;
  };
  return { file, pidFile, run, pid: () => Number(readFileSync(pidFile, 'utf8').trim()) };
}

/** Asks the running agent to upgrade; resolves once the upgraded file said hello. */
async function upgrade(agent: ReturnType<typeof install>) {
  const from = cp.hellos.length;
  cp.send({ type: 'upgrade', version: '2.0.0', sha256: sha(crashing) });
  const hello = await cp.hello((h) => h.agent_version === '2.0.0', from);
  expect(
    cp.messages.some((m) => m.message.type === 'upgrade_result' && m.message.status === 'restarting'),
  ).toBe(true);
  expect(sha(readFileSync(agent.file))).toBe(sha(crashing));
  // It is the upgraded file's own process now (its pid file names it).
  await until(() => existsSync(agent.pidFile) && agent.pid(), 'pid');
  return hello;
}

describe('an upgraded agent file that crashes in its first minute', () => {
  it(
    'dies of an uncaught error: the previous file is put back, runs by itself and reports it',
    { timeout: 90_000 },
    async () => {
      const agent = install('uncaught');
      const first = cp.hellos.length;
      agent.run();
      await cp.hello((h) => h.agent_version === '1.0.0' && !h.rolled_back, first);
      const upgraded = await upgrade(agent);
      const pidBefore = agent.pid();

      const from = cp.hellos.length;
      process.kill(pidBefore, 'SIGUSR2');
      const back = await cp.hello((h) => h.agent_version === '1.0.0', from);
      expect(back.conn).toBeGreaterThan(upgraded.conn);
      expect(back.rolled_back).toEqual({
        from: '2.0.0',
        reason: 'fallo de prueba tras las comprobaciones',
      });
      // The previous file is the agent file again, in a process of its own; the failed one is kept.
      expect(sha(readFileSync(agent.file))).toBe(sha(previous));
      expect(sha(readFileSync(`${agent.file}.failed`))).toBe(sha(crashing));
      expect(existsSync(`${agent.file}.previous`)).toBe(false);
      await until(() => agent.pid() !== pidBefore && agent.pid(), 'pid of the previous file');
      expect(() => process.kill(agent.pid(), 0)).not.toThrow();
      // Welcomed: the report is not repeated on the next connection.
      await until(() => !existsSync(`${agent.file}.rolledback`), 'report cleared');
      expect(existsSync(`${agent.file}.trial`)).toBe(false);
    },
  );

  it(
    'is killed: its next start (systemd’s Restart=) puts the previous file back and reports it',
    { timeout: 90_000 },
    async () => {
      const agent = install('killed');
      const first = cp.hellos.length;
      agent.run();
      await cp.hello((h) => h.agent_version === '1.0.0' && !h.rolled_back, first);
      await upgrade(agent);
      const crashed = agent.pid();
      process.kill(crashed, 'SIGKILL');
      await until(() => {
        try {
          process.kill(crashed, 0);
          return false;
        } catch {
          return true;
        }
      }, 'killed');

      const from = cp.hellos.length;
      // The supervisor starts the same command again: the upgraded file, which steps aside.
      agent.run();
      const back = await cp.hello((h) => h.agent_version === '1.0.0', from);
      expect(back.rolled_back).toEqual({
        from: '2.0.0',
        reason: 'el proceso terminó sin cerrarse dentro de su primer minuto',
      });
      expect(cp.hellos.slice(from).map((h) => h.agent_version)).toEqual(['1.0.0']);
      expect(sha(readFileSync(agent.file))).toBe(sha(previous));
    },
  );
});
