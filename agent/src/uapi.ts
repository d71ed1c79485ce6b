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
 *
 * The protocol's text lives beside it and is re-exported here: `uapiGet.ts` reads answers as they
 * stream in, `uapiSet.ts` writes transactions in parts, `stats/counters.ts` keeps a stats pass's
 * counters.
 */
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { CounterCapture, type PeerCountersVisitor } from './stats/counters.ts';
import {
  GetStreamParser,
  UapiError,
  type UapiDeviceHeader,
  type UapiDeviceState,
  type UapiPeerState,
} from './uapiGet.ts';
import { setRequestParts, type UapiSetRequest } from './uapiSet.ts';

export * from './uapiGet.ts';
export * from './uapiSet.ts';
export * from './stats/counters.ts';

export const UAPI_SOCKET_DIR = '/var/run/wireguard';

/** The UAPI socket of an interface. Global to the machine, whatever network namespace the TUN is in. */
export function uapiSocketPath(iface: string): string {
  return join(UAPI_SOCKET_DIR, `${iface}.sock`);
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
  /** The stats pass's counters, kept from pass to pass (readStats). */
  private readonly capture = new CounterCapture();

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
  scan(onPeer: (peer: UapiPeerState) => void): Promise<UapiDeviceHeader> {
    return this.streamGet(new GetStreamParser(onPeer));
  }

  /**
   * Reads every peer's counters through `visit`: the stats pass. wireguard-go holds its IPC lock
   * until its whole answer is written (`IpcGetOperation`), and every `set` — a delta on the apply
   * connection — waits for that lock; parsed and reported as it arrived, the pass kept the lock and
   * deltas queued behind it. So the answer is only captured as it arrives (CounterCapture: each
   * peer's key, counters and endpoint, ~80 bytes, into blocks kept for the next pass), and `visit`
   * runs once the daemon is done, yielding to the event loop every 1,000 peers so a delta that
   * arrives meanwhile goes out between two slices.
   */
  async readStats(visit: PeerCountersVisitor): Promise<void> {
    // Two passes at once (never the agent's own) must not share blocks: the second gets its own.
    const capture = this.capture.busy ? new CounterCapture() : this.capture;
    capture.busy = true;
    try {
      capture.begin();
      await this.request('get=1\n\n', (chunk) => capture.push(chunk));
      capture.end();
      await capture.visit(visit, () => new Promise<void>((resolve) => setImmediate(resolve)));
    } finally {
      capture.trim();
      capture.busy = false;
    }
  }

  /** Bytes the stats pass's capture keeps between passes (see readStats). */
  get statsCapacity(): number {
    return this.capture.capacity;
  }

  /** A `get=1` whose answer goes to `parser` as it arrives; its result once the answer ended. */
  private async streamGet<T>(parser: { push(chunk: Buffer): void; end(): T }): Promise<T> {
    await this.request('get=1\n\n', (chunk) => parser.push(chunk));
    return parser.end();
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
      // Read into one buffer kept for the connection (`onread`), not a new 64 KiB Buffer per read:
      // a stats pass reads ~15 MB every 10 s at 50,000 peers, all of it garbage once copied.
      const buffer = Buffer.allocUnsafeSlow(READ_BUFFER);
      const s: ReadingSocket = connect({
        path: this.socketPath,
        onread: {
          buffer,
          callback: (n) => {
            s.sink?.(buffer.subarray(0, n));
            return true;
          },
        },
      });
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
    s: ReadingSocket,
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
        s.sink = undefined;
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
        } else chunks.push(Buffer.from(chunk));
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
      s.sink = onData;
      s.on('error', onError);
      s.on('close', onClose);
      if (typeof text === 'string') s.write(text);
      else writeParts(s, text, () => done).catch((err: unknown) => finish(err as Error));
    });
  }
}

/** A connection's read buffer (see openSocket); what it hands over is valid until the next read. */
const READ_BUFFER = 64 * 1024;

/** A UAPI connection: what it reads goes to `sink`, synchronously, from the connection's one buffer. */
type ReadingSocket = Socket & { sink?: (chunk: Buffer) => void };

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
