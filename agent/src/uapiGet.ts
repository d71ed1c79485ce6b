/**
 * Reading UAPI `get=1` answers (https://www.wireguard.com/xplatform/) as they stream in: the whole
 * device for the reconciler (GetStreamParser; the stats pass reads just the counters with
 * stats/counters.ts). At 50,000 peers an answer is ~12 MB and ~500,000 lines; the parser does not
 * hold it (docs/reliability.md, section 7). Keys are hex on the wire and base64 for callers.
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
 * the position of `=`; lines without one in their first 40 bytes are skipped). Holds one partial
 * line between chunks, never the answer (at 50,000 peers a `get` answer is ~12 MB and ~500,000
 * lines), in a buffer kept from answer to answer: the chunk itself is the socket's reused buffer.
 * Used by both readers of `get=1` (GetStreamParser here, stats/counters.ts's CounterCapture).
 */
export class LineSplitter {
  private carry = Buffer.allocUnsafeSlow(256);
  private carryLen = 0;

  constructor(private readonly onLine: (b: Buffer, start: number, eq: number, end: number) => void) {}

  /** Forgets a partial line (a new answer begins). */
  reset(): void {
    this.carryLen = 0;
  }

  push(chunk: Buffer): void {
    let pos = 0;
    if (this.carryLen > 0) {
      const nl = chunk.indexOf(0x0a);
      this.keep(chunk, 0, nl < 0 ? chunk.length : nl);
      if (nl < 0) return;
      this.flushCarry();
      pos = nl + 1;
    }
    for (;;) {
      const nl = chunk.indexOf(0x0a, pos);
      if (nl < 0) break;
      this.line(chunk, pos, nl);
      pos = nl + 1;
    }
    if (pos < chunk.length) this.keep(chunk, pos, chunk.length);
  }

  /** After the last chunk: a last line without its newline is handed over. */
  end(): void {
    if (this.carryLen > 0) this.flushCarry();
  }

  private flushCarry(): void {
    const len = this.carryLen;
    this.carryLen = 0;
    this.line(this.carry, 0, len);
  }

  private keep(b: Buffer, start: number, end: number): void {
    const need = this.carryLen + end - start;
    if (need > this.carry.length) {
      const bigger = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.carry.length));
      this.carry.copy(bigger, 0, 0, this.carryLen);
      this.carry = bigger;
    }
    this.carryLen += b.copy(this.carry, this.carryLen, start, end);
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
