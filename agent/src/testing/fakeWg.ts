/**
 * An in-memory WireGuard device that speaks UAPI text, with wireguard-go's semantics for the keys the
 * agent uses (an allowed IP belongs to one peer at a time; `remove` of an unknown peer is a no-op).
 * It backs unit tests of the UAPI client and of the reconciler, so those run without root.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { WgDriver } from '../driver.ts';
import { ZERO_KEY_HEX, keyFromHex, keyToHex } from '../keys.ts';
import { normalizeCidr } from '../cidr.ts';
import {
  GetStreamParser,
  StatsStreamParser,
  parseGet,
  serializeSet,
  type PeerCountersVisitor,
  type UapiDeviceHeader,
  type UapiDeviceState,
  type UapiPeerState,
  type UapiSetRequest,
} from '../uapi.ts';

interface FakePeer {
  psk: string;
  allowedIps: string[];
  rx: number;
  tx: number;
  handshake: number;
  endpoint: string | null;
  keepalive: number;
}

export class FakeDevice {
  privateKeyHex: string | null = null;
  listenPort = 0;
  /** Keyed by hex public key, in insertion order like wireguard-go's listing. */
  readonly peers = new Map<string, FakePeer>();
  /** Which peer (hex key) holds each allowed IP: an IP given to another peer moves, as in WireGuard. */
  private readonly ipOwner = new Map<string, string>();

  /** Applies the body of a `set=1` request (lines after the header) and returns the errno. */
  applySet(body: string): number {
    let current: FakePeer | null = null;
    let currentKey = '';
    for (const line of body.split('\n')) {
      if (line === '') continue;
      const eq = line.indexOf('=');
      if (eq < 0) return 22;
      const key = line.slice(0, eq);
      const value = line.slice(eq + 1);
      if (key === 'private_key') this.privateKeyHex = value;
      else if (key === 'listen_port') this.listenPort = Number(value);
      else if (key === 'public_key') {
        if (!/^[0-9a-f]{64}$/.test(value)) return 22;
        current = this.peers.get(value) ?? {
          psk: ZERO_KEY_HEX,
          allowedIps: [],
          rx: 0,
          tx: 0,
          handshake: 0,
          endpoint: null,
          keepalive: 0,
        };
        this.peers.set(value, current);
        currentKey = value;
      } else if (!current) return 22;
      else if (key === 'remove') {
        this.releaseIps(currentKey, current);
        this.peers.delete(currentKey);
        current = null;
      } else if (key === 'preshared_key') current.psk = value;
      else if (key === 'replace_allowed_ips') {
        this.releaseIps(currentKey, current);
        current.allowedIps = [];
      } else if (key === 'allowed_ip') {
        const ip = normalizeCidr(value);
        const owner = this.ipOwner.get(ip);
        const held = owner === undefined ? undefined : this.peers.get(owner);
        if (held) held.allowedIps = held.allowedIps.filter((x) => x !== ip);
        this.ipOwner.set(ip, currentKey);
        current.allowedIps.push(ip);
      } else if (key === 'endpoint') {
        // wireguard-go takes an address, not a host name (netip.ParseAddrPort).
        if (!/^(\d{1,3}(\.\d{1,3}){3}|\[[0-9a-fA-F:.]+\]):\d{1,5}$/.test(value)) return 22;
        current.endpoint = value;
      } else if (key === 'persistent_keepalive_interval') {
        if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) return 22;
        current.keepalive = Number(value);
      } else return 22;
    }
    return 0;
  }

  private releaseIps(key: string, peer: FakePeer): void {
    for (const ip of peer.allowedIps) if (this.ipOwner.get(ip) === key) this.ipOwner.delete(ip);
  }

  /** The answer to `get=1`, including `errno=0` and the closing empty line. */
  getText(): string {
    const lines: string[] = [];
    if (this.privateKeyHex) lines.push(`private_key=${this.privateKeyHex}`);
    lines.push(`listen_port=${this.listenPort}`);
    for (const [pub, p] of this.peers) {
      lines.push(`public_key=${pub}`, `preshared_key=${p.psk}`, 'protocol_version=1');
      if (p.endpoint) lines.push(`endpoint=${p.endpoint}`);
      lines.push(
        `last_handshake_time_sec=${p.handshake}`,
        'last_handshake_time_nsec=0',
        `tx_bytes=${p.tx}`,
        `rx_bytes=${p.rx}`,
        `persistent_keepalive_interval=${p.keepalive}`,
      );
      for (const ip of p.allowedIps) lines.push(`allowed_ip=${ip}`);
    }
    lines.push('errno=0');
    return lines.join('\n') + '\n\n';
  }

  /** Test helper: a peer by base64 key. */
  peer(publicKey: string): FakePeer | undefined {
    return this.peers.get(keyToHex(publicKey));
  }

  /** Test helper: base64 public keys present. */
  publicKeys(): string[] {
    return [...this.peers.keys()].map(keyFromHex);
  }
}

/** A driver over a FakeDevice that goes through the real serialiser and parser. */
export class FakeDriver implements WgDriver {
  gets = 0;
  sets: string[] = [];
  /** Make the next N calls fail (daemon gone). */
  failNext = 0;

  constructor(readonly device: FakeDevice) {}

  async get(): Promise<UapiDeviceState> {
    this.gets++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('daemon caído (simulado)');
    }
    return parseGet(this.device.getText());
  }

  /** Streams the device's text through the real parser, in small chunks. */
  async scan(onPeer: (peer: UapiPeerState) => void): Promise<UapiDeviceHeader> {
    const parser = new GetStreamParser(onPeer);
    this.stream((chunk) => parser.push(chunk));
    return parser.end();
  }

  /** Streams the device's text through the real stats parser, in small chunks. */
  async readStats(visit: PeerCountersVisitor): Promise<void> {
    const parser = new StatsStreamParser(visit);
    this.stream((chunk) => parser.push(chunk));
    parser.end();
  }

  /** Counts as a read and fails like `get`; hands the text over 7 bytes at a time. */
  private stream(push: (chunk: Buffer) => void): void {
    this.gets++;
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('daemon caído (simulado)');
    }
    const text = Buffer.from(this.device.getText());
    for (let i = 0; i < text.length; i += 7) push(text.subarray(i, i + 7));
  }

  async set(req: UapiSetRequest): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('daemon caído (simulado)');
    }
    const body = serializeSet(req);
    this.sets.push(body);
    const errno = this.device.applySet(body);
    if (errno !== 0) throw new Error(`errno=${errno}`);
  }

  close(): void {}
}

/**
 * Serves a FakeDevice on a unix socket like wireguard-go does (many requests per connection).
 * `chunkSize` splits answers into small writes to exercise the client's framing.
 *
 * wireguard-go's IPC lock is kept too: a `get` holds it until its whole answer is written into the
 * socket (`IpcGetOperation` writes under the lock, so a reader that is slow to read keeps it), and a
 * `set` on any connection waits for it. `setsBehindGet()` counts the sets that had to wait.
 */
export async function startFakeUapiServer(
  path: string,
  device: FakeDevice,
  options: { chunkSize?: number } = {},
): Promise<{
  server: Server;
  connections: () => number;
  sockets: Set<Socket>;
  setsBehindGet: () => number;
  close: () => Promise<void>;
}> {
  let count = 0;
  const sockets = new Set<Socket>();
  /** The IPC lock: released when the get answer that holds it is all written (write callback). */
  let lock: Promise<void> | null = null;
  let behind = 0;
  const server = createServer((s) => {
    count++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    let buf = '';
    // A request ends with an empty line: chunks wait until one arrives, so a 12 MB set streamed in
    // parts is joined once instead of rescanned at every chunk.
    let pending: Buffer[] = [];
    let lastByte = -1;
    // This connection's requests, one at a time (a set may wait for another connection's get).
    let turn: Promise<void> = Promise.resolve();
    const write = (answer: string, done?: () => void) => {
      const size = options.chunkSize ?? answer.length;
      for (let i = 0; i < answer.length; i += size)
        s.write(answer.slice(i, i + size), i + size >= answer.length ? done : undefined);
    };
    /** `set` is the body of a set request; null is a get. */
    const serve = async (set: string | null) => {
      if (set === null) {
        // Readers share the lock in wireguard-go (RLock); one get at a time is all tests need.
        await lock;
        let release = () => {};
        lock = new Promise<void>((resolve) => (release = resolve));
        const held = lock;
        write(device.getText(), () => {
          if (lock === held) lock = null;
          release();
        });
        return;
      }
      if (lock) {
        behind++;
        while (lock) await lock;
      }
      write(`errno=${device.applySet(set)}\n\n`);
    };
    s.on('data', (chunk: Buffer) => {
      pending.push(chunk);
      const ended = chunk.includes('\n\n') || (lastByte === 0x0a && chunk[0] === 0x0a);
      lastByte = chunk[chunk.length - 1] ?? lastByte;
      if (!ended) return;
      buf += Buffer.concat(pending).toString('utf8');
      pending = [];
      for (;;) {
        let request: string | null;
        if (buf.startsWith('get=1\n\n')) {
          buf = buf.slice(7);
          request = null;
        } else if (buf.startsWith('set=1\n')) {
          const end = buf.indexOf('\n\n');
          if (end < 0) return;
          request = buf.slice(6, end + 1);
          buf = buf.slice(end + 2);
        } else {
          if (buf.length > 6) s.destroy();
          return;
        }
        turn = turn.then(() => serve(request));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return {
    server,
    sockets,
    connections: () => count,
    setsBehindGet: () => behind,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
