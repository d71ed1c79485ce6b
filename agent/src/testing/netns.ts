/**
 * Network-namespace fixtures for the integration tests and the benchmark. Everything made here is
 * recorded and removed by `cleanup()` (namespaces, the wireguard-go daemons started by tests, UAPI
 * sockets), also after a failure.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { uapiSocketPath } from '../uapi.ts';

/** Why WireGuard integration tests cannot run here, or null when they can. */
export function wireguardSkipReason(): string | null {
  if (process.getuid?.() !== 0) return 'hace falta root para crear espacios de red';
  for (const [bin, arg] of [
    ['wireguard-go', '--version'],
    ['wg', '--version'],
    ['nft', '--version'],
    ['ip', '-V'],
  ] as const) {
    const r = spawnSync(bin, [arg], { stdio: 'ignore' });
    if (r.error || r.status !== 0)
      return `falta ${bin} (apt-get install wireguard-go wireguard-tools nftables iproute2)`;
  }
  return null;
}

/** A machine-unique name (UAPI sockets are global): prefix + 6 hex, at most 15 characters. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomBytes(3).toString('hex')}`.slice(0, 15);
}

export function sh(file: string, args: string[], input?: string): string {
  return execFileSync(file, args, { encoding: 'utf8', input, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** Runs in a namespace. */
export function nsExec(ns: string, file: string, args: string[], input?: string): string {
  return sh('ip', ['netns', 'exec', ns, file, ...args], input);
}

/** True while `pid` runs (a zombie counts as gone). */
export function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

export class TestNet {
  readonly namespaces: string[] = [];
  readonly interfaces: string[] = [];
  private readonly children: ChildProcess[] = [];

  /** Creates a namespace with loopback up. */
  addNamespace(prefix = 'vpnt'): string {
    const ns = uniqueName(prefix);
    sh('ip', ['netns', 'add', ns]);
    this.namespaces.push(ns);
    sh('ip', ['-n', ns, 'link', 'set', 'lo', 'up']);
    return ns;
  }

  /** A veth pair between two namespaces with one address at each end. */
  link(a: string, addrA: string, b: string, addrB: string): { ifA: string; ifB: string } {
    const ifA = uniqueName('va');
    const ifB = uniqueName('vb');
    sh('ip', ['link', 'add', ifA, 'netns', a, 'type', 'veth', 'peer', 'name', ifB, 'netns', b]);
    sh('ip', ['-n', a, 'address', 'add', addrA, 'dev', ifA]);
    sh('ip', ['-n', b, 'address', 'add', addrB, 'dev', ifB]);
    sh('ip', ['-n', a, 'link', 'set', ifA, 'up']);
    sh('ip', ['-n', b, 'link', 'set', ifB, 'up']);
    return { ifA, ifB };
  }

  /** Remembers an interface name so its UAPI socket is removed at cleanup. */
  track(iface: string): string {
    this.interfaces.push(iface);
    return iface;
  }

  /** Starts `wireguard-go -f IFACE` in a namespace (foreground, killed by pid at cleanup). */
  async startWireguardGo(ns: string, iface = uniqueName('wgt')): Promise<{ iface: string; pid: number }> {
    this.track(iface);
    const child = spawn('ip', ['netns', 'exec', ns, 'wireguard-go', '-f', iface], {
      stdio: 'ignore',
      env: { ...process.env, LOG_LEVEL: 'error' },
    });
    this.children.push(child);
    // Up when its UAPI socket answers. There used to be a 10 s budget, and a data-plane run on a
    // loaded machine failed on it ("wireguard-go no arrancó"); now a daemon that dies fails at once
    // (with its exit code) and two minutes is only a backstop.
    const socket = uapiSocketPath(iface);
    const backstop = Date.now() + 120_000;
    while (!existsSync(socket) || spawnSync('wg', ['show', iface], { stdio: 'ignore' }).status !== 0) {
      if (child.exitCode !== null)
        throw new Error(`wireguard-go terminó (${child.exitCode}) sin crear ${iface}`);
      if (Date.now() > backstop) throw new Error('wireguard-go no arrancó en dos minutos');
      await new Promise((r) => setTimeout(r, 20));
    }
    return { iface, pid: child.pid ?? 0 };
  }

  /** Starts a long-lived helper process in a namespace (killed at cleanup); resolves once it printed a line. */
  async startProcess(ns: string, file: string, args: string[]): Promise<ChildProcess> {
    const child = spawn('ip', ['netns', 'exec', ns, file, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    this.children.push(child);
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`${file} terminó (${code})`)));
    });
    return child;
  }

  /** Kills what the tests started, deletes namespaces (their interfaces go with them) and sockets. */
  async cleanup(extraPids: number[] = []): Promise<void> {
    for (const c of this.children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
    for (const pid of extraPids) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    // A daemon with many peers takes a moment to shut down; don't leave it behind.
    for (const pid of extraPids) {
      for (let i = 0; i < 100 && pidAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    await Promise.all(
      this.children.map((c) =>
        c.exitCode !== null || c.signalCode !== null
          ? null
          : new Promise<void>((r) => {
              const t = setTimeout(() => {
                c.kill('SIGKILL');
                r();
              }, 3000);
              c.once('exit', () => {
                clearTimeout(t);
                r();
              });
            }),
      ),
    );
    for (const ns of this.namespaces) spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    for (const iface of this.interfaces) rmSync(uapiSocketPath(iface), { force: true });
    this.namespaces.length = 0;
  }
}
