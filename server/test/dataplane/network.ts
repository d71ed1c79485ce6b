/**
 * The test's own little internet, in network namespaces: a "wan" namespace whose bridge carries
 * 198.51.100.0/24 and which is also the internet host (198.51.100.254, with no route to the VPN pool,
 * so its replies reach a client only through the server's NAT); VPN server namespaces; client
 * namespaces that load the `.conf` downloaded from the API, as wg-quick would.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TestNet, nsExec, sh, uniqueName } from '../../../agent/src/testing/netns.ts';

export { nsExec, sh, uniqueName };

export const INTERNET_HOST = '198.51.100.254';
const ROOT = new URL('../../../', import.meta.url).pathname;
/**
 * The agent as it runs in production: compiled JavaScript under plain node (one process, so a
 * SIGKILL reaches the agent itself; through tsx it reached only tsx and orphaned the agent).
 */
const AGENT_MAIN = join(ROOT, 'agent/dist/main.js');
let agentBuilt = false;
function buildAgent(): void {
  if (agentBuilt) return;
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs'), '--if-stale', 'agent'], {
    stdio: 'inherit',
  });
  if (r.status !== 0) throw new Error('no se pudo compilar el agente');
  agentBuilt = true;
}

export function dataplaneSkipReason(): string | null {
  if (process.getuid?.() !== 0) return 'hace falta root para crear espacios de red';
  for (const bin of ['wireguard-go', 'wg', 'nft', 'ip', 'ping']) {
    if (spawnSync('sh', ['-c', `command -v ${bin}`], { stdio: 'ignore' }).status !== 0) return `falta ${bin}`;
  }
  return null;
}

export interface Host {
  ns: string;
  address: string;
  /** The host's interface on the wan bridge (the VPN server's uplink). */
  iface: string;
}

export class Lab {
  readonly net = new TestNet();
  readonly wan: string;
  /** The wan namespace's bridge, where hosts (and the deployment test's panel VPS) plug in. */
  readonly bridge = 'br0';
  private readonly agents = new Map<string, ChildProcess>();
  private readonly wgInterfaces: string[] = [];
  private readonly stateDir = mkdtempSync(join(tmpdir(), 'vpn-dp-'));

  constructor() {
    this.wan = this.net.addNamespace('dpw');
    // A fixed MAC: a bridge left to itself takes the lowest MAC of its ports, so a host plugged in
    // later (a new client) could change the internet host's MAC under the servers' ARP caches, and
    // their NATed traffic went nowhere until those entries aged out. That was the intermittent
    // "internet after a re-key" failure (issue 17): the servers' neighbour entry for the internet
    // host still held the bridge's previous MAC.
    sh('ip', ['-n', this.wan, 'link', 'add', this.bridge, 'address', '02:00:00:00:00:fe', 'type', 'bridge']);
    sh('ip', ['-n', this.wan, 'address', 'add', `${INTERNET_HOST}/24`, 'dev', this.bridge]);
    sh('ip', ['-n', this.wan, 'link', 'set', this.bridge, 'up']);
  }

  /** A namespace plugged into the wan bridge with one address. */
  host(prefix: string, address: string): Host {
    const ns = this.net.addNamespace(prefix);
    const inside = uniqueName('dpi');
    const outside = uniqueName('dpo');
    sh('ip', [
      'link',
      'add',
      inside,
      'netns',
      ns,
      'type',
      'veth',
      'peer',
      'name',
      outside,
      'netns',
      this.wan,
    ]);
    sh('ip', ['-n', this.wan, 'link', 'set', outside, 'master', this.bridge]);
    sh('ip', ['-n', this.wan, 'link', 'set', outside, 'up']);
    sh('ip', ['-n', ns, 'address', 'add', `${address}/24`, 'dev', inside]);
    sh('ip', ['-n', ns, 'link', 'set', inside, 'up']);
    sh('ip', ['-n', ns, 'route', 'add', 'default', 'via', INTERNET_HOST]);
    return { ns, address, iface: inside };
  }

  /** Runs the real agent (its CLI) for a VPN server namespace. */
  startAgent(server: Host, baseUrl: string, token: string, iface: string): ChildProcess {
    this.stopAgentSync(server.ns);
    if (!this.wgInterfaces.includes(iface)) this.wgInterfaces.push(iface);
    this.net.track(iface);
    buildAgent();
    const child = spawn(
      process.execPath,
      [
        AGENT_MAIN,
        '--url',
        baseUrl,
        '--netns',
        server.ns,
        '--uplink',
        server.iface,
        '--state-dir',
        join(this.stateDir, server.ns),
        '--log-level',
        process.env.DP_AGENT_LOG ?? 'warn',
        '--repair-interval',
        '10',
        // Back within 2 s of the control plane answering again (production waits up to 30 s,
        // agent/src/config.test.ts checks that default): the tests that cut it off or restart it
        // wait for the reconnection, not for the back-off's ceiling.
        '--reconnect-max',
        '2',
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, AGENT_TOKEN: token } },
    );
    this.agents.set(server.ns, child);
    return child;
  }

  /** Stops an agent like systemd would (SIGTERM); the interface stays up. */
  async stopAgent(ns: string): Promise<void> {
    const child = this.agents.get(ns);
    this.agents.delete(ns);
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  private stopAgentSync(ns: string): void {
    const child = this.agents.get(ns);
    if (child && child.exitCode === null) child.kill('SIGKILL');
  }

  /** The public keys on a server's interface right now (`wg show IFACE peers`, UAPI is global). */
  peersOn(iface: string): string[] {
    const r = spawnSync('wg', ['show', iface, 'peers'], { encoding: 'utf8' });
    return r.status === 0 ? r.stdout.split('\n').filter(Boolean) : [];
  }

  /**
   * Loads a downloaded `.conf` in a client namespace the way wg-quick does: the [Interface]
   * fields wg does not know (Address, DNS, MTU) become `ip` settings; the rest goes to `wg setconf`.
   */
  async loadClientConf(client: Host, conf: string, existing?: string): Promise<string> {
    let iface = existing;
    if (!iface) {
      iface = (await this.net.startWireguardGo(client.ns, uniqueName('dpc'))).iface;
      this.wgInterfaces.push(iface);
    }
    const address = /^Address = (.+)$/m.exec(conf)![1]!;
    const mtu = /^MTU = (\d+)$/m.exec(conf)?.[1] ?? '1420';
    const stripped = conf
      .split('\n')
      .filter((l) => !/^(Address|DNS|MTU) = /.test(l))
      .join('\n');
    // A file, not /dev/stdin: node's child stdin is a socket, which wg cannot fopen.
    const file = join(this.stateDir, `${iface}.conf`);
    writeFileSync(file, stripped, { mode: 0o600 });
    sh('wg', ['setconf', iface, file]);
    rmSync(file);
    sh('ip', ['-n', client.ns, 'address', 'flush', 'dev', iface]);
    sh('ip', ['-n', client.ns, 'address', 'add', address, 'dev', iface]);
    sh('ip', ['-n', client.ns, 'link', 'set', iface, 'mtu', mtu, 'up']);
    // The pool and the internet host go through the tunnel; the endpoint stays on the LAN.
    sh('ip', ['-n', client.ns, 'route', 'replace', '10.64.0.0/10', 'dev', iface]);
    sh('ip', ['-n', client.ns, 'route', 'replace', `${INTERNET_HOST}/32`, 'dev', iface]);
    return iface;
  }

  /**
   * One ping from a namespace; true when a reply came back. Asynchronous on purpose: the control
   * plane under test runs in this very process, and a synchronous ping (up to 1 s when it fails,
   * in loops of many) starved its event loop, so agents' handshakes timed out.
   */
  async ping(ns: string, target: string, tries = 3): Promise<boolean> {
    for (let i = 0; i < tries; i++) {
      const status = await new Promise<number | null>((resolve) => {
        const child = spawn('ip', ['netns', 'exec', ns, 'ping', '-c', '1', '-W', '1', target], {
          stdio: 'ignore',
        });
        child.on('error', () => resolve(null));
        child.on('exit', (code) => resolve(code));
      });
      if (status === 0) return true;
    }
    return false;
  }

  /** Whether a ping gets through within a few seconds (handshakes and a busy CI machine take time). */
  async reaches(ns: string, target: string, timeoutMs = 15_000): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await this.ping(ns, target, 1)) return true;
      await new Promise((r) => setTimeout(r, 100));
    }
    return false;
  }

  /**
   * What a failed ping leaves to look at: both ends' WireGuard state (handshakes, endpoints,
   * transfer), the client's routes, the server's routes, conntrack entries for the client's
   * address and the agent's nftables counters. Read only when a check fails, so the run records
   * a cause instead of a bare `false`.
   */
  explain(client: Host, clientIface: string, server: Host, serverIface: string): string {
    const run = (title: string, file: string, args: string[]) => {
      const r = spawnSync(file, args, { encoding: 'utf8' });
      return `--- ${title}\n${(r.stdout || '') + (r.stderr || '')}`.trimEnd();
    };
    const address = /inet (\S+)\//.exec(
      spawnSync('ip', ['-n', client.ns, '-4', 'addr', 'show', 'dev', clientIface], { encoding: 'utf8' })
        .stdout,
    )?.[1];
    return [
      run(`wg ${clientIface} (cliente)`, 'wg', ['show', clientIface]),
      run('rutas del cliente', 'ip', ['-n', client.ns, 'route']),
      run(`wg ${serverIface} (servidor)`, 'wg', ['show', serverIface]),
      run('rutas del servidor', 'ip', ['-n', server.ns, 'route']),
      run('vecinos del servidor', 'ip', ['-n', server.ns, 'neigh']),
      run(`ping del servidor a ${INTERNET_HOST}`, 'ip', [
        'netns',
        'exec',
        server.ns,
        'ping',
        '-c',
        '1',
        '-W',
        '1',
        INTERNET_HOST,
      ]),
      run('vecinos de internet', 'ip', ['-n', this.wan, 'neigh']),
      run('enlaces de internet', 'ip', ['-n', this.wan, '-br', 'link']),
      `--- conntrack de ${address ?? '?'}\n${(
        spawnSync('ip', ['netns', 'exec', server.ns, 'cat', '/proc/net/nf_conntrack'], { encoding: 'utf8' })
          .stdout ?? ''
      )
        .split('\n')
        .filter((l) => address && l.includes(`src=${address} `))
        .join('\n')}`,
      run('nftables del agente', 'ip', [
        'netns',
        'exec',
        server.ns,
        'nft',
        'list',
        'table',
        'inet',
        `vpn_agent_${serverIface.replace(/[^A-Za-z0-9_]/g, '_')}`,
      ]),
    ].join('\n');
  }

  async cleanup(): Promise<void> {
    for (const ns of [...this.agents.keys()]) await this.stopAgent(ns);
    // The agent leaves wireguard-go running on purpose (traffic survives agent restarts): stop it here.
    const pids = this.wgInterfaces.flatMap((iface) => {
      const r = spawnSync('pgrep', ['-f', `wireguard-go -f ${iface}$`], { encoding: 'utf8' });
      return r.stdout.split('\n').filter(Boolean).map(Number);
    });
    await this.net.cleanup(pids);
    rmSync(this.stateDir, { recursive: true, force: true });
  }
}

export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 20_000,
  what = 'condición',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`no se cumplió a tiempo: ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
