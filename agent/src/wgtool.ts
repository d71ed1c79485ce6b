/**
 * The kernel-module driver: WireGuard's netlink API through the `wg` tool. `wg` reads keys only from
 * files, and `/dev/stdin` does not work with Node's child stdin (a socket: `fopen` fails with ENXIO),
 * so keys go through a short-lived mode-600 file in a private mode-700 directory on tmpfs (`/run`
 * when present), removed right after; never as arguments. It also works on a wireguard-go interface
 * (`wg` falls back to UAPI), which is how its tests run without the kernel module.
 *
 * Unlike UAPI, one transaction becomes up to three `wg` invocations (device settings, removals, then
 * upserts through `addconf`, whose `AllowedIPs` line replaces the peer's allowed IPs).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WgDriver } from './driver.ts';
import type { CommandRunner } from './exec.ts';
import { isBase64Key } from './keys.ts';
import {
  checkEndpoint,
  checkKeepalive,
  visitPeerCounters,
  type PeerCountersVisitor,
  type UapiDeviceHeader,
  type UapiDeviceState,
  type UapiPeerOp,
  type UapiPeerState,
  type UapiSetRequest,
} from './uapi.ts';

/** `wg set … peer K remove` per invocation: keeps the argument list far below ARG_MAX. */
const REMOVE_CHUNK = 1000;

/** Parses `wg show IFACE dump` (tab-separated; first line is the interface). */
export function parseWgDump(text: string): UapiDeviceState {
  const lines = text.split('\n').filter((l) => l.length > 0);
  const head = (lines.shift() ?? '').split('\t');
  const dev: UapiDeviceState = {
    privateKey: head[0] && head[0] !== '(none)' ? head[0] : null,
    listenPort: Number(head[2] ?? 0) || 0,
    fwmark: head[3] && head[3] !== 'off' ? Number(head[3]) : 0,
    peers: [],
  };
  for (const line of lines) {
    const [pub, psk, endpoint, ips, hs, rx, tx, ka] = line.split('\t');
    if (!pub) continue;
    const peer: UapiPeerState = {
      publicKey: pub,
      presharedKey: psk && psk !== '(none)' ? psk : null,
      endpoint: endpoint && endpoint !== '(none)' ? endpoint : null,
      allowedIps: ips && ips !== '(none)' ? ips.split(',') : [],
      lastHandshakeSec: Number(hs ?? 0) || 0,
      rxBytes: Number(rx ?? 0) || 0,
      txBytes: Number(tx ?? 0) || 0,
      persistentKeepalive: ka && ka !== 'off' ? Number(ka) : 0,
    };
    dev.peers.push(peer);
  }
  return dev;
}

function checkKey(key: string): string {
  if (!isBase64Key(key)) throw new Error('clave WireGuard no válida');
  return key;
}

/** Renders upserts as a `wg addconf` file (only `[Peer]` sections). */
export function renderPeersConf(ops: readonly UapiPeerOp[]): string {
  let out = '';
  for (const op of ops) {
    if (op.remove === true) continue;
    out += `[Peer]\nPublicKey = ${checkKey(op.publicKey)}\n`;
    if (op.presharedKey === null) throw new Error('el driver wg no puede quitar una clave precompartida');
    if (op.presharedKey !== undefined) out += `PresharedKey = ${checkKey(op.presharedKey)}\n`;
    if (op.endpoint !== undefined) out += `Endpoint = ${checkEndpoint(op.endpoint)}\n`;
    if (op.persistentKeepalive !== undefined)
      out += `PersistentKeepalive = ${checkKeepalive(op.persistentKeepalive)}\n`;
    if (op.allowedIps !== undefined || op.replaceAllowedIps) {
      if (!op.replaceAllowedIps) throw new Error('el driver wg solo reemplaza las IPs permitidas');
      // `wg addconf` refuses an empty AllowedIPs line: WgToolDriver.set empties them with `wg set`.
      if (op.allowedIps?.length) out += `AllowedIPs = ${op.allowedIps.join(', ')}\n`;
    }
    out += '\n';
  }
  return out;
}

/** Runs `fn` with the path of a private file holding `content`; the file is gone afterwards. */
export async function withSecretFile<T>(content: string, fn: (path: string) => Promise<T>): Promise<T> {
  const base = existsSync('/run') && process.getuid?.() === 0 ? '/run' : tmpdir();
  const dir = mkdtempSync(join(base, 'vpn-agent-'));
  try {
    const path = join(dir, 'secret');
    writeFileSync(path, content, { mode: 0o600 });
    return await fn(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class WgToolDriver implements WgDriver {
  constructor(
    private readonly runner: CommandRunner,
    private readonly iface: string,
  ) {}

  async get(): Promise<UapiDeviceState> {
    const { stdout } = await this.runner.run('wg', ['show', this.iface, 'dump']);
    return parseWgDump(stdout);
  }

  /** `wg show dump` is small next to UAPI's `get` (one line per peer), so it is parsed whole. */
  async scan(onPeer: (peer: UapiPeerState) => void): Promise<UapiDeviceHeader> {
    const { peers, ...header } = await this.get();
    for (const p of peers) onPeer(p);
    return header;
  }

  async readStats(visit: PeerCountersVisitor): Promise<void> {
    visitPeerCounters(await this.get(), visit);
  }

  async set(req: UapiSetRequest): Promise<void> {
    if (req.listenPort !== undefined)
      await this.runner.run('wg', ['set', this.iface, 'listen-port', String(req.listenPort)]);
    if (req.privateKey !== undefined) {
      const key = checkKey(req.privateKey);
      await withSecretFile(key + '\n', (path) =>
        this.runner.run('wg', ['set', this.iface, 'private-key', path]),
      );
    }
    // Keep the transaction's order: consecutive removals, then consecutive upserts, and so on.
    const ops = req.peers ?? [];
    let i = 0;
    while (i < ops.length) {
      const removing = ops[i]?.remove === true;
      let j = i;
      while (j < ops.length && (ops[j]?.remove === true) === removing) j++;
      const group = ops.slice(i, j);
      if (removing) {
        for (let k = 0; k < group.length; k += REMOVE_CHUNK) {
          const args = ['set', this.iface];
          for (const op of group.slice(k, k + REMOVE_CHUNK))
            args.push('peer', checkKey(op.publicKey), 'remove');
          await this.runner.run('wg', args);
        }
      } else {
        await withSecretFile(renderPeersConf(group), (path) =>
          this.runner.run('wg', ['addconf', this.iface, path], { timeoutMs: 300_000 }),
        );
        // Peers left without any allowed IP (a retired key): `allowed-ips ""` empties the list.
        const emptied = group.filter(
          (op) => op.remove !== true && op.replaceAllowedIps && !op.allowedIps?.length,
        );
        for (let k = 0; k < emptied.length; k += REMOVE_CHUNK) {
          const args = ['set', this.iface];
          for (const op of emptied.slice(k, k + REMOVE_CHUNK))
            args.push('peer', checkKey(op.publicKey), 'allowed-ips', '');
          await this.runner.run('wg', args);
        }
      }
      i = j;
    }
  }

  close(): void {}
}
