/**
 * Reading UAPI `get=1` answers (https://www.wireguard.com/xplatform/) as they stream in: the whole
 * device for the reconciler (GetStreamParser) and just the counters for the stats pass
 * (StatsStreamParser). At 50,000 peers an answer is ~12 MB and ~500,000 lines; neither parser holds
 * it (docs/reliability.md, section 7). Keys are hex on the wire and base64 for callers.
 */
import { ZERO_KEY_HEX, keyFromHex } from './keys.ts';

/** One peer as `get` reports it (keys in base64). */
export interface UapiPeerState {
  publicKey: string;
  /** null when the peer has no preshared key (UAPI reports all zeros). */
  presharedKey: string | null;
  allowedIps: string[];
  endpoint: string | null;
  /** Unix seconds; 0 = never. */
  lastHandshakeSec: number;
  rxBytes: number;
  txBytes: number;
  persistentKeepalive: number;
}

/** The device as `get` reports it. */
export interface UapiDeviceState {
  privateKey: string | null;
  listenPort: number;
  fwmark: number;
  peers: UapiPeerState[];
}

/** UAPI answered with a non-zero errno (e.g. 22 = EINVAL for a malformed line). */
export class UapiError extends Error {
  constructor(readonly errno: number) {
    super(`UAPI respondió errno=${errno}`);
    this.name = 'UapiError';
  }
}

/**
 * Splits an answer arriving in chunks into `key=value` lines, handed over as byte offsets (`eq` is
 * the position of `=`). Holds one partial line between chunks, never the answer: at 50,000 peers a
 * `get` answer is ~12 MB and ~500,000 lines.
 */
class LineSplitter {
  private carry: Buffer | null = null;

  constructor(private readonly onLine: (b: Buffer, start: number, eq: number, end: number) => void) {}

  push(chunk: Buffer): void {
    let pos = 0;
    if (this.carry) {
      const nl = chunk.indexOf(0x0a);
      if (nl < 0) {
        this.carry = Buffer.concat([this.carry, chunk]);
        return;
      }
      const line = Buffer.concat([this.carry, chunk.subarray(0, nl)]);
      this.carry = null;
      this.line(line, 0, line.length);
      pos = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(0x0a, pos);
      if (nl < 0) break;
      this.line(chunk, pos, nl);
      pos = nl + 1;
    }
    // A partial line waits for the next chunk (copied: the chunk itself is not kept).
    if (pos < chunk.length) this.carry = Buffer.from(chunk.subarray(pos));
  }

  end(): void {
    if (!this.carry) return;
    const line = this.carry;
    this.carry = null;
    this.line(line, 0, line.length);
  }

  private line(b: Buffer, start: number, end: number): void {
    for (let i = start; i < end && i < start + 40; i++)
      if (b[i] === 0x3d) {
        this.onLine(b, start, i, end);
        return;
      }
  }
}

/**
 * A `get=1` answer read as it arrives: lines go to `line`, the peer being read is handed over by
 * `flush` when the next begins and at the end, and the closing `errno=N` is checked.
 */
abstract class StreamedAnswer {
  protected errno: number | null = null;
  private readonly lines = new LineSplitter((b, start, eq, end) => this.line(b, start, eq, end));

  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** After the last chunk: the last peer is handed over, then a missing or non-zero errno throws. */
  protected finish(): void {
    this.lines.end();
    this.flush();
    if (this.errno === null) throw new Error('respuesta UAPI sin errno');
    if (this.errno !== 0) throw new UapiError(this.errno);
  }

  protected abstract line(b: Buffer, start: number, eq: number, end: number): void;
  protected abstract flush(): void;
}

/** The device's own settings, as `get` reports them. */
export type UapiDeviceHeader = Omit<UapiDeviceState, 'peers'>;

/**
 * Parses the answer to `get=1` as it arrives, handing each peer to `onPeer` once its lines are
 * read. The reconciler compares each live peer with the desired one and lets it go; nothing holds
 * the answer or the whole peer list.
 */
export class GetStreamParser extends StreamedAnswer {
  private readonly header: UapiDeviceHeader = { privateKey: null, listenPort: 0, fwmark: 0 };
  private peer: UapiPeerState | null = null;

  constructor(private readonly onPeer: (peer: UapiPeerState) => void) {
    super();
  }

  /** Call after the last chunk: hands over the last peer, checks the errno, returns the device's settings. */
  end(): UapiDeviceHeader {
    this.finish();
    return this.header;
  }

  protected flush(): void {
    if (this.peer) this.onPeer(this.peer);
    this.peer = null;
  }

  protected line(b: Buffer, start: number, eq: number, end: number): void {
    const key = b.toString('latin1', start, eq);
    const value = b.toString('utf8', eq + 1, end);
    const peer = this.peer;
    switch (key) {
      case 'public_key':
        this.flush();
        this.peer = {
          publicKey: keyFromHex(value),
          presharedKey: null,
          allowedIps: [],
          endpoint: null,
          lastHandshakeSec: 0,
          rxBytes: 0,
          txBytes: 0,
          persistentKeepalive: 0,
        };
        break;
      case 'allowed_ip':
        peer?.allowedIps.push(value);
        break;
      case 'preshared_key':
        if (peer) peer.presharedKey = value === ZERO_KEY_HEX ? null : keyFromHex(value);
        break;
      case 'rx_bytes':
        if (peer) peer.rxBytes = Number(value);
        break;
      case 'tx_bytes':
        if (peer) peer.txBytes = Number(value);
        break;
      case 'last_handshake_time_sec':
        if (peer) peer.lastHandshakeSec = Number(value);
        break;
      case 'endpoint':
        if (peer) peer.endpoint = value;
        break;
      case 'persistent_keepalive_interval':
        if (peer) peer.persistentKeepalive = Number(value);
        break;
      case 'private_key':
        this.header.privateKey = value === ZERO_KEY_HEX ? null : keyFromHex(value);
        break;
      case 'listen_port':
        this.header.listenPort = Number(value);
        break;
      case 'fwmark':
        this.header.fwmark = Number(value);
        break;
      case 'errno':
        this.flush();
        this.errno = Number(value);
        break;
      default:
        // protocol_version, last_handshake_time_nsec, and keys of future versions: not needed.
        break;
    }
  }
}

/** Parses a whole answer to `get=1` (including its `errno=` line). */
export function parseGet(text: string): UapiDeviceState {
  const peers: UapiPeerState[] = [];
  const parser = new GetStreamParser((p) => peers.push(p));
  parser.push(Buffer.from(text));
  return { ...parser.end(), peers };
}

/** What a stats pass needs of one peer, called once per peer of a `get=1` answer (key in base64). */
export type PeerCountersVisitor = (
  publicKey: string,
  rxBytes: number,
  txBytes: number,
  lastHandshakeSec: number,
  endpoint: string | null,
) => void;

const KEY_PUBLIC = Buffer.from('public_key');
const KEY_RX = Buffer.from('rx_bytes');
const KEY_TX = Buffer.from('tx_bytes');
const KEY_HANDSHAKE = Buffer.from('last_handshake_time_sec');
const KEY_ENDPOINT = Buffer.from('endpoint');
const KEY_ERRNO = Buffer.from('errno');

/**
 * The stats pass's own `get=1` parser, leaner than GetStreamParser: the agent reads every peer's
 * counters every 10 s, and building an object with its keys and allowed IPs for each peer every
 * time (after holding the whole ~12 MB answer as a buffer and a string, as it first did) kept the
 * agent's heap from ever shrinking (docs/reliability.md). This compares key names as bytes, parses
 * numbers from the bytes and makes one string per peer (its base64 key) plus its endpoint.
 */
export class StatsStreamParser extends StreamedAnswer {
  private key: string | null = null;
  private readonly keyBytes = Buffer.alloc(32);
  private rx = 0;
  private tx = 0;
  private handshake = 0;
  private endpoint: string | null = null;

  constructor(private readonly visit: PeerCountersVisitor) {
    super();
  }

  /** Call after the last chunk: reports the last peer and checks the answer's errno. */
  end(): void {
    this.finish();
  }

  protected line(b: Buffer, start: number, eq: number, end: number): void {
    if (isKey(b, start, eq, KEY_PUBLIC)) {
      this.flush();
      this.key = this.base64Key(b, eq + 1, end);
    } else if (this.key !== null && isKey(b, start, eq, KEY_RX)) this.rx = digits(b, eq + 1, end);
    else if (this.key !== null && isKey(b, start, eq, KEY_TX)) this.tx = digits(b, eq + 1, end);
    else if (this.key !== null && isKey(b, start, eq, KEY_HANDSHAKE)) this.handshake = digits(b, eq + 1, end);
    else if (this.key !== null && isKey(b, start, eq, KEY_ENDPOINT))
      this.endpoint = b.toString('latin1', eq + 1, end);
    else if (isKey(b, start, eq, KEY_ERRNO)) {
      this.flush();
      this.errno = digits(b, eq + 1, end);
    }
  }

  /** The hex key in `b[start, end)` as base64, without an intermediate hex string. */
  private base64Key(b: Buffer, start: number, end: number): string {
    if (end - start !== 64) throw new Error('clave WireGuard no válida (se esperaban 64 dígitos hex)');
    for (let i = 0; i < 32; i++) {
      const hi = hexDigit(b[start + 2 * i]);
      const lo = hexDigit(b[start + 2 * i + 1]);
      if (hi < 0 || lo < 0) throw new Error('clave WireGuard no válida (se esperaban 64 dígitos hex)');
      this.keyBytes[i] = (hi << 4) | lo;
    }
    return this.keyBytes.toString('base64');
  }

  protected flush(): void {
    if (this.key === null) return;
    this.visit(this.key, this.rx, this.tx, this.handshake, this.endpoint);
    this.key = null;
    this.rx = 0;
    this.tx = 0;
    this.handshake = 0;
    this.endpoint = null;
  }
}

function isKey(b: Buffer, start: number, eq: number, key: Buffer): boolean {
  return eq - start === key.length && b.compare(key, 0, key.length, start, eq) === 0;
}

function hexDigit(c: number | undefined): number {
  if (c === undefined) return -1;
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  if (c >= 0x41 && c <= 0x46) return c - 0x37;
  return -1;
}

/** A decimal number written in `b[start, end)`; NaN when anything else is there. */
function digits(b: Buffer, start: number, end: number): number {
  if (start >= end) return NaN;
  let n = 0;
  for (let i = start; i < end; i++) {
    const d = (b[i] ?? 0) - 0x30;
    if (d < 0 || d > 9) return NaN;
    n = n * 10 + d;
  }
  return n;
}

/** Visits the peers of a parsed device like StatsStreamParser does (drivers without streaming). */
export function visitPeerCounters(dev: UapiDeviceState, visit: PeerCountersVisitor): void {
  for (const p of dev.peers) visit(p.publicKey, p.rxBytes, p.txBytes, p.lastHandshakeSec, p.endpoint);
}
