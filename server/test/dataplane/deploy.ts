/**
 * Pieces of the production topology for deploy.test.ts: the repository's deploy/ files as an
 * operator installs them (docs/deploy.md's commands, run with the paths moved into a temporary
 * root), Caddy with its own local CA, the compiled panel started the way its systemd unit says, and
 * an HTTPS client that trusts that CA and can pick its source address.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect, type LookupFunction } from 'node:net';
import { join } from 'node:path';
import WebSocket from 'ws';

export const ROOT = new URL('../../../', import.meta.url).pathname.replace(/\/$/, '');
export const DEPLOY_DOC = readFileSync(join(ROOT, 'docs/deploy.md'), 'utf8');

/** Why the deployment test cannot run here, or null. */
export function deploySkipReason(databaseUrl: string | undefined): string | null {
  if (!databaseUrl)
    return 'sin PostgreSQL (DATAPLANE_DATABASE_URL vacía; npm test la toma de TEST_DATABASE_URL)';
  if (spawnSync('sh', ['-c', 'command -v caddy'], { stdio: 'ignore' }).status !== 0)
    return 'falta caddy (apt-get install caddy)';
  if (spawnSync('sh', ['-c', 'command -v curl'], { stdio: 'ignore' }).status !== 0) return 'falta curl';
  return null;
}

/**
 * Runs commands of docs/deploy.md as written, one after another in one shell session (as the
 * operator types them: a variable set by one is seen by the next), after checking the guide still
 * says each, with the operator's paths and names swapped for the test's (`moves`, in order).
 */
export function runDocCommand(
  commands: string | string[],
  moves: [string, string][],
  env: NodeJS.ProcessEnv = {},
): string {
  const lines = typeof commands === 'string' ? [commands] : commands;
  for (const command of lines)
    if (!DEPLOY_DOC.includes(command)) throw new Error(`docs/deploy.md ya no contiene: ${command}`);
  let script = lines.join('\n');
  for (const [from, to] of moves) script = script.split(from).join(to);
  const r = spawnSync('sh', ['-ec', script], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, ...env },
  });
  if (r.status !== 0) throw new Error(`falló «${script}» (${r.status}): ${r.stderr}`);
  return r.stdout;
}

/**
 * The unprivileged user the panel runs as here, like the unit's `User=vpn-panel` (`nobody`). It must
 * be able to read the compiled repository (`file`): when it cannot (a checkout under a private
 * directory) this throws, naming the file, rather than letting the test run the panel as root and
 * prove nothing about the unit's unprivileged user.
 */
export function unprivilegedUser(file = join(ROOT, 'server/dist/main.js')): { uid: number; gid: number } {
  const id = (flag: string) => spawnSync('id', [flag, 'nobody'], { encoding: 'utf8' }).stdout.trim();
  const readable = spawnSync('runuser', ['-u', 'nobody', '--', 'test', '-r', file]);
  if (readable.status !== 0)
    throw new Error(
      `el usuario nobody no puede leer ${file}: el panel correría como root. Deje legibles (o+rx) los directorios que llevan al repositorio.`,
    );
  return { uid: Number(id('-u')), gid: Number(id('-g')) };
}

/** True when `runuser -u postgres -- psql` reaches the cluster behind `url` (a local Debian one). */
export function localPostgresAdmin(url: string): boolean {
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(u.hostname) || (u.port || '5432') !== '5432') return false;
  return (
    spawnSync('runuser', ['-u', 'postgres', '--', 'psql', '-Atqc', 'select 1'], {
      encoding: 'utf8',
    }).stdout.trim() === '1'
  );
}

/** An environment file read the way systemd's EnvironmentFile= reads it (comments, "quotes"). */
export function readEnvFile(file: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq < 1) throw new Error(`línea no válida en ${file}: ${line}`);
    let value = line.slice(eq + 1).trim();
    if (/^"(.*)"$/.test(value) || /^'(.*)'$/.test(value)) value = value.slice(1, -1);
    env[line.slice(0, eq).trim()] = value;
  }
  return env;
}

/** `[Service]` settings of a unit file (last one wins, as in systemd). */
export function readUnit(file: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** A panel log record: Fastify's request log carries `req` (incoming) and `reqId` (both). */
interface LogRecord {
  msg?: string;
  reqId?: string;
  req?: { method: string; url: string; ip: string };
}

/** A child process whose output lines are kept (the journal of a unit). */
export class Service {
  readonly lines: string[] = [];
  readonly child: ChildProcess;
  private partial = '';

  constructor(
    file: string,
    args: string[],
    opts: { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number },
  ) {
    this.child = spawn(file, args, {
      cwd: opts.cwd,
      env: opts.env,
      uid: opts.uid,
      gid: opts.gid,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const take = (d: Buffer) => {
      const text = this.partial + d.toString();
      const parts = text.split('\n');
      this.partial = parts.pop()!;
      this.lines.push(...parts);
    };
    this.child.stdout!.on('data', take);
    this.child.stderr!.on('data', take);
  }

  get running(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** The structured log lines (pino JSON) the panel wrote, from line `from` on. */
  records(from = 0): LogRecord[] {
    return this.lines.slice(from).flatMap((l) => {
      if (!l.startsWith('{')) return [];
      try {
        return [JSON.parse(l) as LogRecord];
      } catch {
        return [];
      }
    });
  }

  async waitForLine(re: RegExp, timeoutMs = 60_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.find((l) => re.test(l));
      if (found) return found;
      if (!this.running) throw new Error(`el proceso terminó sin escribir ${re}:\n${this.lines.join('\n')}`);
      if (Date.now() > deadline) throw new Error(`no apareció ${re}:\n${this.lines.join('\n')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM (systemctl stop), then waits for the exit. */
  async stop(): Promise<void> {
    if (!this.running) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
      this.child.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      this.child.kill('SIGTERM');
    });
  }
}

/** True when something accepts a TCP connection on 127.0.0.1:`port` (the connection is dropped at once). */
export function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The root certificate of Caddy's local CA under its data directory (XDG_DATA_HOME). */
export const caddyRoot = (dataHome: string) => join(dataHome, 'caddy/pki/authorities/local/root.crt');

/** True when a certificate with this body sits in the system's trust store (it must never). */
export function inSystemTrust(certPem: string): boolean {
  const body = certPem.replace(/-----[A-Z ]+-----/g, '').replace(/\s+/g, '');
  const bundle = '/etc/ssl/certs/ca-certificates.crt';
  if (!existsSync(bundle)) return false;
  return readFileSync(bundle, 'utf8').replace(/\s+/g, '').includes(body);
}

export interface HttpsAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * A customer's HTTPS client: the panel's name resolves to 127.0.0.1 (where Caddy listens), the
 * connection leaves from `localAddress` (any 127.x address is this machine's), and only Caddy's
 * local CA is trusted.
 */
export class HttpsClient {
  private readonly lookup: LookupFunction = (_host, options, cb) => {
    if ((options as { all?: boolean }).all) cb(null, [{ address: this.target, family: 4 }]);
    else (cb as (e: null, a: string, f: number) => void)(null, this.target, 4);
  };

  constructor(
    readonly base: string,
    private readonly ca: string,
    private readonly localAddress: string,
    private readonly target = '127.0.0.1',
  ) {}

  request(
    method: string,
    path: string,
    opts: { token?: string; json?: unknown; body?: string | Buffer; headers?: Record<string, string> } = {},
  ): Promise<HttpsAnswer> {
    const body = opts.json !== undefined ? JSON.stringify(opts.json) : opts.body;
    const headers: Record<string, string> = {
      ...(opts.json !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    };
    return new Promise((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.base),
        { method, headers, ca: this.ca, lookup: this.lookup, localAddress: this.localAddress, agent: false },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  }

  /**
   * A JSON request in flight: its headers and the first half of its body go now, the rest when
   * `finish()` is called, so the request is open at the panel meanwhile (Caddy streams bodies).
   */
  slowRequest(
    method: string,
    path: string,
    json: unknown,
  ): { finish: () => void; answer: Promise<HttpsAnswer> } {
    const body = Buffer.from(JSON.stringify(json));
    let finish = () => {};
    const answer = new Promise<HttpsAnswer>((resolve, reject) => {
      const req = httpsRequest(
        new URL(path, this.base),
        {
          method,
          headers: { 'content-type': 'application/json', 'content-length': String(body.length) },
          ca: this.ca,
          lookup: this.lookup,
          localAddress: this.localAddress,
          agent: false,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () =>
            resolve({
              status: res.statusCode!,
              headers: res.headers,
              body: Buffer.concat(chunks).toString(),
            }),
          );
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, body.length >> 1));
      finish = () => void req.end(body.subarray(body.length >> 1));
    });
    return { finish, answer };
  }

  async json<T>(method: string, path: string, opts: Parameters<HttpsClient['request']>[2] = {}) {
    const res = await this.request(method, path, opts);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
    return JSON.parse(res.body) as T;
  }

  /** The customer's push socket (`/ws?token=…`) over wss through Caddy. */
  async push(token: string): Promise<PushSocket> {
    const url = `${this.base.replace(/^https/, 'wss')}/ws?token=${encodeURIComponent(token)}`;
    const socket = new PushSocket(
      new WebSocket(url, { ca: this.ca, lookup: this.lookup, localAddress: this.localAddress }),
    );
    await socket.waitFor('auth');
    return socket;
  }
}

export class PushSocket {
  readonly messages: { type: string; [k: string]: unknown }[] = [];
  private failure: Error | null = null;

  constructor(private readonly ws: WebSocket) {
    ws.on('message', (d) => this.messages.push(JSON.parse(d.toString()) as { type: string }));
    ws.on('error', (e) => (this.failure = e));
  }

  async waitFor(type: string, timeoutMs = 60_000): Promise<{ type: string; [k: string]: unknown }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.type === type);
      if (found) return found;
      if (this.failure) throw this.failure;
      if (Date.now() > deadline)
        throw new Error(`sin mensaje ${type}; llegaron ${JSON.stringify(this.messages.map((m) => m.type))}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  close(): void {
    this.ws.close();
  }
}

/** curl through Caddy as an operator would, trusting the local CA and resolving the test's name. */
export function curl(args: string[], ca: string, resolve: string): { status: number; out: string } {
  const r = spawnSync('curl', ['-sS', '--cacert', ca, '--resolve', resolve, ...args], { encoding: 'utf8' });
  return { status: r.status ?? -1, out: r.stdout + r.stderr };
}
