/**
 * Owns the WireGuard interface: creates it (kernel module when `ip link add … type wireguard`
 * works, else a `wireguard-go -f` child), sets its address, MTU and state, routes the pool into it,
 * and keeps a wireguard-go daemon alive.
 *
 * Stopping the agent leaves the interface (and a wireguard-go daemon) running on purpose: peers keep
 * their tunnels while the agent restarts or upgrades, and the next agent adopts the interface it
 * finds. `stop({ teardown: true })` removes everything (tests, `--down`).
 *
 * Over 400 lines: creating, adopting, checking and tearing down the interface and its daemon share
 * state (the current spec, the daemon's process) that one class keeps consistent.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { connect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { parseCidr } from './cidr.ts';
import type { WgDriver } from './driver.ts';
import { CommandError, type CommandRunner } from './exec.ts';
import type { Logger } from './log.ts';
import { UapiClient, uapiSocketPath } from './uapi.ts';
import { WgToolDriver } from './wgtool.ts';

export type BackendKind = 'kernel' | 'wireguard-go';
export type BackendPreference = BackendKind | 'auto';

/** What the interface must look like (the part of the snapshot that is not keys or peers). */
export interface InterfaceSpec {
  name: string;
  /** The server's tunnel address with the pool's prefix, e.g. `10.64.0.1/10`. */
  address: string;
  mtu: number;
}

export interface BackendOptions {
  runner: CommandRunner;
  log: Logger;
  prefer?: BackendPreference;
  /** Path or name of the wireguard-go binary (default `wireguard-go`). */
  wireguardGo?: string;
  /** File that receives wireguard-go's output (default: discarded). */
  wireguardGoLog?: string;
  /** Called when a wireguard-go daemon we started exits unexpectedly. */
  onDaemonExit?: () => void;
  /** Delete a link of the interface's name that is not WireGuard (default: refuse, ForeignLinkError). */
  replaceForeignLink?: boolean;
}

/**
 * A link with the interface's name exists and is not WireGuard (an uplink, a bridge, another VPN's
 * TUN…): the agent never deletes it unless told to (`--replace-foreign-link`). Fatal: retrying
 * cannot help, the operator must pick another name or allow the replacement.
 */
export class ForeignLinkError extends Error {
  override name = 'ForeignLinkError';
  constructor(
    readonly iface: string,
    readonly kind: string,
  ) {
    super(
      `la interfaz ${iface} ya existe y no es de WireGuard (tipo ${kind}): el agente no la borra. ` +
        'Elija otro nombre (--interface) o, si sabe que puede eliminarse, use --replace-foreign-link',
    );
  }
}

/**
 * Whose link is this? `wireguard`: a kernel WireGuard link, or a TUN with a wireguard-go UAPI socket
 * file of that name (a daemon, alive or just dead, made it). Anything else is someone else's.
 */
export function linkOwner(kind: string | undefined, name: string): 'wireguard' | 'foreign' {
  if (kind === 'wireguard') return 'wireguard';
  if (kind === 'tun' && existsSync(uapiSocketPath(name))) return 'wireguard';
  return 'foreign';
}

interface IpAddrInfo {
  family?: string;
  local?: string;
  prefixlen?: number;
  scope?: string;
}
interface IpLink {
  ifname?: string;
  mtu?: number;
  flags?: string[];
  addr_info?: IpAddrInfo[];
  linkinfo?: { info_kind?: string };
}

/** Connects to a unix socket and closes it: true when a daemon listens there. */
export function socketAlive(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(path);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/**
 * Whether a daemon listens on `path`, asked up to five times over about a second: deleting a live
 * interface on one refused connect (a daemon busy with a huge set, a starved machine) would cut every
 * customer's tunnel, while a real leftover costs this second once.
 */
export async function daemonAnswers(path: string): Promise<boolean> {
  for (let i = 0; i < 5; i++) {
    if (!existsSync(path)) return false;
    if (await socketAlive(path)) return true;
    await sleep(250);
  }
  return false;
}

/**
 * `--down`: deletes the interface when it is WireGuard (a wireguard-go daemon exits with its TUN).
 * A foreign link of that name is refused (ForeignLinkError) unless `replaceForeign`.
 */
export async function removeInterface(
  runner: CommandRunner,
  name: string,
  replaceForeign = false,
): Promise<'removed' | 'absent'> {
  let kind: string | undefined;
  try {
    const { stdout } = await runner.run('ip', ['-j', '-d', 'link', 'show', 'dev', name]);
    kind = (JSON.parse(stdout) as IpLink[])[0]?.linkinfo?.info_kind;
  } catch (err) {
    if (err instanceof CommandError) return 'absent';
    throw err;
  }
  if (linkOwner(kind, name) === 'foreign' && !replaceForeign)
    throw new ForeignLinkError(name, kind ?? 'desconocido');
  await runner.run('ip', ['link', 'del', name]);
  return 'removed';
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

export class Backend {
  private kindValue: BackendKind | null = null;
  private kindProbe: Promise<BackendKind> | null = null;
  private child: ChildProcess | null = null;
  private childName: string | null = null;
  private adoptedName: string | null = null;
  private current: InterfaceSpec | null = null;
  private applyDriver: WgDriver | null = null;
  private statsDriver: WgDriver | null = null;
  private lastSpawnAt = 0;
  private restartDelayMs = 0;
  private stopping = false;

  constructor(private readonly opts: BackendOptions) {}

  get runner(): CommandRunner {
    return this.opts.runner;
  }

  /** The interface name currently managed, if any. */
  get interfaceName(): string | null {
    return this.current?.name ?? null;
  }

  /** The pid of the wireguard-go daemon this agent started (null for kernel or adopted daemons). */
  get daemonPid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Which implementation this machine uses. Probed once, by creating and deleting a throw-away
   * kernel interface, because a loadable module only shows itself when asked for a link.
   */
  kind(): Promise<BackendKind> {
    this.kindProbe ??= this.probeKind();
    return this.kindProbe;
  }

  private async probeKind(): Promise<BackendKind> {
    const prefer = this.opts.prefer ?? 'auto';
    if (prefer !== 'auto') {
      this.kindValue = prefer;
      return prefer;
    }
    const probe = `wgprobe${randomBytes(3).toString('hex')}`;
    try {
      await this.ip(['link', 'add', probe, 'type', 'wireguard']);
      await this.ip(['link', 'del', probe]).catch(() => undefined);
      this.kindValue = 'kernel';
    } catch {
      this.kindValue = 'wireguard-go';
    }
    this.opts.log.info('backend de WireGuard', { backend: this.kindValue });
    return this.kindValue;
  }

  /** The driver that applies changes (its own UAPI connection, kept open). */
  driver(): WgDriver {
    if (!this.applyDriver) throw new Error('la interfaz aún no existe');
    return this.applyDriver;
  }

  /** A second driver for stats, so a long `get` never delays a delta. */
  statsReader(): WgDriver {
    if (!this.statsDriver) throw new Error('la interfaz aún no existe');
    return this.statsDriver;
  }

  /**
   * Makes the interface exist and match `spec`: created or adopted, address (others removed), MTU,
   * up, the pool routed into it, forwarding on. Idempotent; cheap when nothing changed.
   */
  async ensureInterface(spec: InterfaceSpec): Promise<void> {
    const kind = await this.kind();
    if (this.current && this.current.name !== spec.name) {
      this.opts.log.warn('la interfaz cambió de nombre: se retira la anterior', {
        old: this.current.name,
        new: spec.name,
      });
      await this.teardown();
    }
    this.current = spec;
    if (kind === 'kernel') await this.ensureKernelLink(spec.name);
    else await this.ensureDaemon(spec.name);
    if (!this.applyDriver) {
      if (kind === 'kernel') {
        this.applyDriver = new WgToolDriver(this.opts.runner, spec.name);
        this.statsDriver = this.applyDriver;
      } else {
        this.applyDriver = new UapiClient(uapiSocketPath(spec.name));
        this.statsDriver = new UapiClient(uapiSocketPath(spec.name));
      }
    }
    await this.configureLink(spec);
  }

  /** False when the wireguard-go daemon behind the interface is gone (always true for kernel). */
  async isAlive(): Promise<boolean> {
    if (!this.current || this.kindValue !== 'wireguard-go') return true;
    if (this.child) return this.child.exitCode === null && this.child.signalCode === null;
    return socketAlive(uapiSocketPath(this.current.name));
  }

  /**
   * Stops managing the interface. By default the interface and its daemon keep running (traffic
   * keeps flowing); with `teardown` the daemon is killed or the kernel link deleted.
   */
  async stop(options: { teardown?: boolean } = {}): Promise<void> {
    this.stopping = true;
    this.applyDriver?.close();
    this.statsDriver?.close();
    if (options.teardown) await this.teardown();
    else if (this.child) {
      // Let the daemon outlive us: it is detached, in its own process group.
      this.child.removeAllListeners('exit');
      this.child.unref();
      this.child = null;
    }
  }

  /** Deletes the named interface (kill our daemon, or `ip link del`). Used by `--down` too. */
  async teardown(): Promise<void> {
    const name = this.current?.name;
    this.applyDriver?.close();
    this.statsDriver?.close();
    this.applyDriver = null;
    this.statsDriver = null;
    if (this.child) {
      const child = this.child;
      this.child = null;
      child.removeAllListeners('exit');
      await killAndWait(child);
    }
    if (name) await this.ip(['link', 'del', name]).catch(() => undefined);
    this.current = null;
    this.adoptedName = null;
  }

  private ip(args: string[]) {
    return this.opts.runner.run('ip', args);
  }

  private async linkInfo(name: string): Promise<IpLink | null> {
    try {
      const { stdout } = await this.ip(['-j', '-d', 'addr', 'show', 'dev', name]);
      const parsed = JSON.parse(stdout) as IpLink[];
      return parsed[0] ?? null;
    } catch (err) {
      if (err instanceof CommandError) return null;
      throw err;
    }
  }

  private async ensureKernelLink(name: string): Promise<void> {
    const link = await this.linkInfo(name);
    if (link) {
      if (link.linkinfo?.info_kind === 'wireguard') return;
      await this.removeForeign(name, link);
    }
    await this.ip(['link', 'add', name, 'type', 'wireguard']);
    this.opts.log.info('interfaz creada (módulo del kernel)', { interface: name });
  }

  /** A non-WireGuard link in the way: deleted only when the operator allowed it. */
  private async removeForeign(name: string, link: IpLink): Promise<void> {
    const kind = link.linkinfo?.info_kind ?? 'desconocido';
    if (!this.opts.replaceForeignLink) throw new ForeignLinkError(name, kind);
    this.opts.log.warn('se elimina una interfaz que no es de WireGuard (--replace-foreign-link)', {
      interface: name,
      kind,
    });
    await this.ip(['link', 'del', name]);
  }

  private async ensureDaemon(name: string): Promise<void> {
    if (
      this.child &&
      this.childName === name &&
      this.child.exitCode === null &&
      this.child.signalCode === null
    )
      return;
    this.child = null;
    const sock = uapiSocketPath(name);
    const link = await this.linkInfo(name);
    if (link && (await daemonAnswers(sock))) {
      if (this.adoptedName !== name)
        this.opts.log.info('se adopta la interfaz de wireguard-go existente', { interface: name });
      this.adoptedName = name;
      return;
    }
    this.adoptedName = null;
    if (link) {
      if (linkOwner(link.linkinfo?.info_kind, name) === 'foreign') await this.removeForeign(name, link);
      else {
        // A WireGuard link with nobody behind its socket is a leftover; a new daemon needs the name.
        this.opts.log.warn('interfaz huérfana sin daemon: se elimina', { interface: name });
        await this.ip(['link', 'del', name]).catch(() => undefined);
      }
    }
    await this.spawnDaemon(name);
  }

  private async spawnDaemon(name: string): Promise<void> {
    // Throttle restarts of a daemon that keeps dying: 1 s, 2 s, … 30 s; reset after a calm minute.
    const since = Date.now() - this.lastSpawnAt;
    if (this.lastSpawnAt && since < 60_000) {
      this.restartDelayMs = Math.min(30_000, Math.max(1000, this.restartDelayMs * 2));
      const wait = this.restartDelayMs - since;
      if (wait > 0) await sleep(wait);
    } else this.restartDelayMs = 0;
    this.lastSpawnAt = Date.now();

    const out = this.opts.wireguardGoLog ? openSync(this.opts.wireguardGoLog, 'a', 0o600) : null;
    const env: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'error' };
    // -f keeps it in the foreground; this variable set to 0 would make it re-spawn itself forever.
    delete env.WG_PROCESS_FOREGROUND;
    const child = this.opts.runner.spawn(
      this.opts.wireguardGo ?? 'wireguard-go',
      ['-f', name],
      ['ignore', out ?? 'ignore', out ?? 'ignore'],
      env,
    );
    if (out !== null) closeSync(out);
    let exited = false;
    const spawnError = new Promise<never>((_, reject) => {
      child.once('error', (err) => reject(new Error(`no se pudo iniciar wireguard-go: ${err.message}`)));
    });
    spawnError.catch(() => undefined);
    child.once('exit', () => {
      exited = true;
    });
    this.child = child;
    this.childName = name;
    this.opts.log.info('wireguard-go iniciado', { interface: name, pid: child.pid });

    const sock = uapiSocketPath(name);
    const deadline = Date.now() + 10_000;
    for (;;) {
      if (exited)
        throw new Error(`wireguard-go terminó al arrancar (código ${child.exitCode ?? child.signalCode})`);
      if ((await socketAlive(sock)) && (await this.linkInfo(name))) break;
      if (Date.now() > deadline) {
        await killAndWait(child);
        throw new Error('wireguard-go no abrió su socket UAPI en 10 s');
      }
      await Promise.race([sleep(20), spawnError]);
    }
    child.once('exit', (code, signal) => {
      if (this.child !== child) return;
      this.child = null;
      this.applyDriver?.close();
      this.statsDriver?.close();
      if (this.stopping) return;
      this.opts.log.error('wireguard-go terminó inesperadamente', { interface: name, code, signal });
      this.opts.onDaemonExit?.();
    });
  }

  private async configureLink(spec: InterfaceSpec): Promise<void> {
    const want = parseCidr(spec.address);
    if (!want) throw new Error(`dirección no válida: ${spec.address}`);
    const link = await this.linkInfo(spec.name);
    if (!link) throw new Error(`la interfaz ${spec.name} no existe`);
    let present = false;
    for (const a of link.addr_info ?? []) {
      if (!a.local || a.prefixlen === undefined || a.scope === 'link') continue;
      const have = parseCidr(`${a.local}/${a.prefixlen}`);
      if (have && have.address === want.address && have.prefixLength === want.prefixLength) present = true;
      else {
        this.opts.log.info('se quita una dirección que no corresponde', {
          interface: spec.name,
          address: `${a.local}/${a.prefixlen}`,
        });
        await this.ip(['address', 'del', `${a.local}/${a.prefixlen}`, 'dev', spec.name]);
      }
    }
    if (!present) await this.ip(['address', 'add', `${want.address}/${want.prefixLength}`, 'dev', spec.name]);
    if (link.mtu !== spec.mtu || !(link.flags ?? []).includes('UP'))
      await this.ip(['link', 'set', 'dev', spec.name, 'mtu', String(spec.mtu), 'up']);
    // The whole pool goes into the tunnel; WireGuard's allowed IPs pick the peer.
    await this.ip(['route', 'replace', want.network, 'dev', spec.name]);
    await this.ensureForwarding(want.family);
  }

  private async ensureForwarding(family: 4 | 6): Promise<void> {
    const key = family === 4 ? 'net.ipv4.ip_forward' : 'net.ipv6.conf.all.forwarding';
    const { stdout } = await this.opts.runner.run('sysctl', ['-n', key]);
    if (stdout.trim() === '1') return;
    await this.opts.runner.run('sysctl', ['-q', '-w', `${key}=1`]);
    this.opts.log.info('reenvío IP activado', { sysctl: key });
  }
}

/** SIGTERM, then SIGKILL after 5 s; resolves when the process is gone. */
export async function killAndWait(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
