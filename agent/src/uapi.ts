/**
 * A client for WireGuard's cross-platform userspace API (UAPI): the line protocol `wireguard-go`
 * serves on `/var/run/wireguard/<iface>.sock` (https://www.wireguard.com/xplatform/).
 *
 * A request is `get=1\n\n` or `set=1\n` + `key=value` lines + an empty line; the answer ends with
 * `errno=N\n\n`. Keys are hex on the wire; this module speaks base64 to its callers.
 *
 * Measured (see bench/apply.bench.ts): connecting costs about as much as the `set` itself, so the
 * client keeps one connection open by default and queues requests on it (wireguard-go serves any
 * number of requests per connection). A fresh connection per request is available for comparison.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { canonicalEndpoint } from './endpoint.ts';
import { ZERO_KEY_HEX, isBase64Key, keyFromHex, keyToHex } from './keys.ts';

export const UAPI_SOCKET_DIR = '/var/run/wireguard';

/** The UAPI socket of an interface. Global to the machine, whatever network namespace the TUN is in. */
export function uapiSocketPath(iface: string): string {
  return join(UAPI_SOCKET_DIR, `${iface}.sock`);
}

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

/** One peer inside a `set` transaction. */
export type UapiPeerOp =
  | { publicKey: string; remove: true }
  | {
      publicKey: string;
      remove?: false;
      presharedKey?: string | null;
      /** When true, the peer's allowed IPs become exactly `allowedIps`. */
      replaceAllowedIps?: boolean;
      allowedIps?: readonly string[];
      /** `address:port` or `[v6]:port` (a host name must be resolved first). */
      endpoint?: string;
      /** Seconds; 0 = off. */
      persistentKeepalive?: number;
    };

/** A `set` transaction. There is deliberately no `replace_peers`: it would drop every session. */
export interface UapiSetRequest {
  privateKey?: string;
  listenPort?: number;
  peers?: readonly UapiPeerOp[];
}

/** UAPI answered with a non-zero errno (e.g. 22 = EINVAL for a malformed line). */
export class UapiError extends Error {
  constructor(readonly errno: number) {
    super(`UAPI respondió errno=${errno}`);
    this.name = 'UapiError';
  }
}

/** The socket is missing or nobody listens: the WireGuard daemon is not running. */
export class UapiUnavailableError extends Error {
  constructor(
    readonly socketPath: string,
    readonly code: string | undefined,
  ) {
    super(`no se puede abrir el socket UAPI ${socketPath} (${code ?? 'error'})`);
    this.name = 'UapiUnavailableError';
  }
}

export class UapiTimeoutError extends Error {
  constructor(ms: number) {
    super(`UAPI no respondió en ${ms} ms`);
    this.name = 'UapiTimeoutError';
  }
}

/** An endpoint as UAPI takes it (`address:port`, canonical), or an error: never raw text. */
export function checkEndpoint(endpoint: string): string {
  const canonical = canonicalEndpoint(endpoint);
  if (canonical === null) throw new Error(`endpoint no válido: ${JSON.stringify(endpoint.slice(0, 80))}`);
  return canonical;
}

export function checkKeepalive(seconds: number): number {
  if (!Number.isInteger(seconds) || seconds < 0 || seconds > 65535)
    throw new Error(`keepalive no válido: ${seconds}`);
  return seconds;
}

/** The lines of one peer inside a `set` transaction (each ending in a newline). */
function peerLines(p: UapiPeerOp): string {
  let text = `public_key=${keyToHex(p.publicKey)}\n`;
  if (p.remove === true) return text + 'remove=true\n';
  if (p.presharedKey !== undefined)
    text += `preshared_key=${p.presharedKey === null ? ZERO_KEY_HEX : keyToHex(p.presharedKey)}\n`;
  if (p.endpoint !== undefined) text += `endpoint=${checkEndpoint(p.endpoint)}\n`;
  if (p.persistentKeepalive !== undefined)
    text += `persistent_keepalive_interval=${checkKeepalive(p.persistentKeepalive)}\n`;
  if (p.replaceAllowedIps) text += 'replace_allowed_ips=true\n';
  for (const ip of p.allowedIps ?? []) text += `allowed_ip=${ip}\n`;
  return text;
}

/**
 * Throws on anything `peerLines` would refuse, without writing text: a transaction is streamed to
 * the daemon part by part, and a refusal half-way would leave half of it applied.
 */
function checkSet(req: UapiSetRequest): void {
  if (req.privateKey !== undefined) keyToHex(req.privateKey);
  for (const p of req.peers ?? []) {
    if (!isBase64Key(p.publicKey)) keyToHex(p.publicKey);
    if (p.remove === true) continue;
    if (p.presharedKey && !isBase64Key(p.presharedKey)) keyToHex(p.presharedKey);
    if (p.endpoint !== undefined) checkEndpoint(p.endpoint);
    if (p.persistentKeepalive !== undefined) checkKeepalive(p.persistentKeepalive);
    for (const ip of p.allowedIps ?? [])
      // A newline inside a value would inject UAPI commands; CIDRs never contain one.
      if (/[\s=]/.test(ip)) throw new Error(`allowed IP no válida: ${JSON.stringify(ip)}`);
  }
}

/** Text handed to the socket at a time while streaming a `set` (a 50,000-peer one is ~12 MB). */
const SET_PART_CHARS = 64 * 1024;

/**
 * A whole `set` request (`set=1`, its lines, the closing empty line) in parts of about 64 KiB, after
 * checking all of it (throws before yielding anything). Keys are converted to hex. Iterable more
 * than once (a request cut by a daemon restart is sent again).
 */
export function setRequestParts(req: UapiSetRequest): Iterable<string> {
  checkSet(req);
  return { [Symbol.iterator]: () => uncheckedParts(req) };
}

function* uncheckedParts(req: UapiSetRequest): Generator<string> {
  let part = 'set=1\n';
  if (req.privateKey !== undefined) part += `private_key=${keyToHex(req.privateKey)}\n`;
  if (req.listenPort !== undefined) part += `listen_port=${req.listenPort}\n`;
  for (const p of req.peers ?? []) {
    part += peerLines(p);
    if (part.length >= SET_PART_CHARS) {
      yield part;
      part = '';
    }
  }
  yield part + '\n';
}

/** Builds the full request text of a `set` transaction. */
export function setRequestText(req: UapiSetRequest): string {
  let text = '';
  for (const part of setRequestParts(req)) text += part;
  return text;
}

/** Serialises a `set` transaction (without the `set=1` header line and the closing empty line). */
export function serializeSet(req: UapiSetRequest): string {
  return setRequestText(req).slice('set=1\n'.length, -1);
}

/**
 * Reads the trailing `errno=N` of an answer and returns the lines before it. Throws UapiError on a
 * non-zero errno.
 */
function splitAnswer(text: string): string[] {
  const lines = text.split('\n');
  // The answer ends with "\n\n": drop the two empty strings split leaves.
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  const last = lines.pop();
  if (last === undefined || !last.startsWith('errno=')) throw new Error('respuesta UAPI sin errno');
  const errno = Number(last.slice(6));
  if (errno !== 0) throw new UapiError(errno);
  return lines;
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

export interface UapiClientOptions {
  /** Keep one connection open and reuse it (default true). */
  keepAlive?: boolean;
  /** Give up on one request after this long (default 120 s: a 200,000-peer set takes a while). */
  timeoutMs?: number;
}

/**
 * A UAPI client for one interface. Requests are queued and run one at a time, in order: the order
 * of `set`s is the order of the desired-state changes.
 */
export class UapiClient {
  private socket: Socket | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly keepAlive: boolean;
  private readonly timeoutMs: number;

  constructor(
    readonly socketPath: string,
    options: UapiClientOptions = {},
  ) {
    this.keepAlive = options.keepAlive ?? true;
    this.timeoutMs = options.timeoutMs ?? 120_000;
  }

  /** Reads the whole device (costly with many peers: ~150 ms at 50,000 in wireguard-go). */
  async get(): Promise<UapiDeviceState> {
    const peers: UapiPeerState[] = [];
    const header = await this.scan((p) => peers.push(p));
    return { ...header, peers };
  }

  /**
   * Reads the device handing each peer to `onPeer` as the answer arrives (GetStreamParser), so a
   * caller that needs one peer at a time never holds them all.
   */
  async scan(onPeer: (peer: UapiPeerState) => void): Promise<UapiDeviceHeader> {
    const parser = new GetStreamParser(onPeer);
    await this.request('get=1\n\n', (chunk) => parser.push(chunk));
    return parser.end();
  }

  /**
   * Reads every peer's counters through `visit` as the answer arrives (StatsStreamParser): the
   * stats pass, which must not hold a whole `get` answer in memory every 10 s.
   */
  async readStats(visit: PeerCountersVisitor): Promise<void> {
    const parser = new StatsStreamParser(visit);
    await this.request('get=1\n\n', (chunk) => parser.push(chunk));
    parser.end();
  }

  /**
   * Applies one transaction; resolves when the daemon answered errno=0. The request is checked
   * whole, then written in parts (setRequestParts): still one transaction to the daemon.
   */
  async set(req: UapiSetRequest): Promise<void> {
    splitAnswer(await this.request(setRequestParts(req)));
  }

  /**
   * Sends a raw request and returns the raw answer (ending in `errno=N\n\n`). With `onChunk`, the
   * answer goes to it as it arrives instead, and '' is returned.
   */
  request(text: string | Iterable<string>, onChunk?: (chunk: Buffer) => void): Promise<string> {
    const run = this.tail.then(
      () => this.exchange(text, onChunk),
      () => this.exchange(text, onChunk),
    );
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Closes the kept connection, if any. Queued requests still run (on a new connection). */
  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private openSocket(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const s = connect(this.socketPath);
      const onError = (err: NodeJS.ErrnoException) => {
        s.destroy();
        reject(new UapiUnavailableError(this.socketPath, err.code));
      };
      s.once('error', onError);
      s.once('connect', () => {
        s.off('error', onError);
        s.setNoDelay(true);
        resolve(s);
      });
    });
  }

  private async exchange(
    text: string | Iterable<string>,
    onChunk?: (chunk: Buffer) => void,
  ): Promise<string> {
    let socket = this.keepAlive ? this.socket : null;
    const fresh = !socket || socket.destroyed;
    if (fresh) socket = await this.openSocket();
    const s = socket as Socket;
    let streamed = false;
    const sink = onChunk
      ? (chunk: Buffer) => {
          streamed = true;
          onChunk(chunk);
        }
      : undefined;
    try {
      return await this.roundTrip(s, text, sink);
    } catch (err) {
      s.destroy();
      if (this.socket === s) this.socket = null;
      // A kept connection may have been closed by a daemon restart since its last use: retry once
      // on a new one. A set that was cut half-way is safe to resend (each line is idempotent); a
      // streamed answer already half-delivered is not (its reader would see peers twice).
      if (!fresh && !streamed && !(err instanceof UapiError) && !(err instanceof UapiTimeoutError)) {
        const again = await this.openSocket();
        try {
          const answer = await this.roundTrip(again, text, sink);
          this.keep(again);
          return answer;
        } catch (err2) {
          again.destroy();
          throw err2;
        }
      }
      throw err;
    } finally {
      if (!s.destroyed) this.keep(s);
    }
  }

  private keep(s: Socket): void {
    if (!this.keepAlive) {
      s.destroy();
      return;
    }
    if (this.socket !== s) {
      this.socket?.destroy();
      this.socket = s;
      // An idle kept socket must not keep the process alive, and must forget itself if closed.
      s.unref();
      s.once('close', () => {
        if (this.socket === s) this.socket = null;
      });
    }
  }

  private roundTrip(
    s: Socket,
    text: string | Iterable<string>,
    onChunk?: (chunk: Buffer) => void,
  ): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let prevLast = -1;
      s.ref();
      const timer = setTimeout(() => finish(new UapiTimeoutError(this.timeoutMs)), this.timeoutMs);
      let done = false;
      const finish = (err: Error | null, answer?: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        s.off('data', onData);
        s.off('error', onError);
        s.off('close', onClose);
        s.unref();
        if (err) reject(err);
        else resolve(answer ?? '');
      };
      const onData = (chunk: Buffer) => {
        if (onChunk) {
          try {
            onChunk(chunk);
          } catch (err) {
            finish(err instanceof Error ? err : new Error(String(err)));
            return;
          }
        } else chunks.push(chunk);
        // The answer ends with an empty line; it can be split across chunks, so look at the last
        // byte of the previous chunk too. No other empty line occurs in an answer.
        const n = chunk.length;
        const last = chunk[n - 1];
        const before = n >= 2 ? chunk[n - 2] : prevLast;
        prevLast = last ?? prevLast;
        if (last === 0x0a && before === 0x0a)
          finish(null, onChunk ? '' : Buffer.concat(chunks).toString('utf8'));
      };
      const onError = (err: Error) => finish(err);
      const onClose = () => finish(new Error('el socket UAPI se cerró antes de responder'));
      s.on('data', onData);
      s.on('error', onError);
      s.on('close', onClose);
      if (typeof text === 'string') s.write(text);
      else writeParts(s, text, () => done).catch((err: unknown) => finish(err as Error));
    });
  }
}

/**
 * Writes a request's parts in order, waiting for the socket to drain between them, until they end,
 * the answer came early (an error half-way: `stopped`) or the socket closed.
 */
async function writeParts(s: Socket, parts: Iterable<string>, stopped: () => boolean): Promise<void> {
  for (const part of parts) {
    if (stopped() || s.destroyed) return;
    if (s.write(part)) continue;
    await new Promise<void>((resolve) => {
      const go = () => {
        s.off('drain', go);
        s.off('close', go);
        resolve();
      };
      s.on('drain', go);
      s.on('close', go);
    });
  }
}
