/**
 * The stats pass's read of a UAPI `get=1` answer (issue 33): every peer's counters, every 10 s.
 *
 * wireguard-go keeps its IPC lock until its whole answer is written, and every `set` (a delta) waits
 * for that lock, so the answer must be taken off the socket as fast as it comes; the pass's real work
 * (its map of last readings, the reports) runs afterwards, yielding to deltas. Until issue 33 the
 * agent copied the raw answer (~300 bytes a peer: ~15 MB at 50,000 peers) into fresh 256 KiB
 * blocks every pass. Those blocks outlived several scavenges, so V8 promoted them and returned them
 * only at its next full collection: 11–28 MB of dead answers sat in the agent's RSS between passes,
 * more the busier the machine (docs/performance.md, "Agent RSS at 50,000 peers").
 *
 * CounterCapture keeps, as the answer arrives, only what the pass reads — per peer its key as 32
 * bytes, rx, tx and last handshake as doubles, and its endpoint (57 bytes + the endpoint's) — in
 * blocks it keeps for the next pass: ~80 bytes a peer held for good, nothing allocated per pass.
 * Extracting costs about what copying did (a native newline search per line and a few byte
 * comparisons), so the lock is held no longer.
 */
import { LineSplitter, UapiError, type UapiDeviceState } from '../uapiGet.ts';

/** What a stats pass needs of one peer, called once per peer of a `get=1` answer (key in base64). */
export type PeerCountersVisitor = (
  publicKey: string,
  rxBytes: number,
  txBytes: number,
  lastHandshakeSec: number,
  endpoint: string | null,
) => void;

/** A record: key (32 bytes), rx, tx, handshake (doubles), endpoint length (1 byte), endpoint. */
const RX = 32;
const TX = 40;
const HANDSHAKE = 48;
const ENDPOINT_LEN = 56;
const ENDPOINT = 57;
/** Longer endpoints are reported as none (an IPv6 address with port is at most 47 characters). */
export const ENDPOINT_MAX = 64;
const RECORD_MAX = ENDPOINT + ENDPOINT_MAX;
/**
 * 64 KiB: ~800 peers a block. Blocks are kept from pass to pass, so their size only sets how much a
 * shrinking device leaves unused (one block at most) and how far a pass's capacity overshoots.
 */
export const CAPTURE_BLOCK = 64 * 1024;
/** Peers visited between two turns of the event loop (a delta waits at most this many). */
const VISIT_SLICE = 1_000;

const KEY_PUBLIC = Buffer.from('public_key');
const KEY_RX = Buffer.from('rx_bytes');
const KEY_TX = Buffer.from('tx_bytes');
const KEY_HANDSHAKE = Buffer.from('last_handshake_time_sec');
const KEY_ENDPOINT = Buffer.from('endpoint');
const KEY_ERRNO = Buffer.from('errno');

/**
 * One `get=1` answer's counters, captured as it streams in (`push`), checked (`end`), then handed
 * over peer by peer (`visit`). `begin` starts the next answer in the same blocks.
 */
export class CounterCapture {
  private readonly blocks: Buffer[] = [];
  /** Bytes used in each block, up to the current one. */
  private readonly used: number[] = [];
  private block = -1;
  private pos = 0;
  /** Offset of the record being read in the current block, -1 between peers. */
  private record = -1;
  private errno: number | null = null;
  private readonly lines = new LineSplitter((b, start, eq, end) => this.line(b, start, eq, end));
  /** A pass is using this capture (see UapiClient.readStats). */
  busy = false;
  /** Peers in the answer. */
  peers = 0;

  /** Starts a new answer, reusing the blocks of the previous one. */
  begin(): void {
    this.block = -1;
    this.used.length = 0;
    this.pos = 0;
    this.record = -1;
    this.errno = null;
    this.lines.reset();
    this.peers = 0;
  }

  /** Bytes this capture holds (its blocks), whatever the answer's size. */
  get capacity(): number {
    return this.blocks.length * CAPTURE_BLOCK;
  }

  /** Lets go of the blocks the last answer did not need (a device that shrank). */
  trim(): void {
    this.blocks.length = Math.max(0, this.block + 1);
  }

  push(chunk: Buffer): void {
    this.lines.push(chunk);
  }

  /** After the last chunk: closes the last peer; a missing or non-zero errno throws. */
  end(): void {
    this.lines.end();
    this.close();
    if (this.errno === null) throw new Error('respuesta UAPI sin errno');
    if (this.errno !== 0) throw new UapiError(this.errno);
  }

  /**
   * Hands every captured peer to `visit`, in the answer's order, with a turn of the event loop
   * (`pause`) every VISIT_SLICE peers.
   */
  async visit(visit: PeerCountersVisitor, pause: () => Promise<void>): Promise<void> {
    const at = { block: 0, pos: 0 };
    while (this.step(visit, at, VISIT_SLICE)) await pause();
  }

  /** Hands every captured peer to `visit` at once. */
  visitAll(visit: PeerCountersVisitor): void {
    this.step(visit, { block: 0, pos: 0 }, Infinity);
  }

  /** Visits up to `count` peers from `at` (moved on); false once every peer was visited. */
  private step(visit: PeerCountersVisitor, at: { block: number; pos: number }, count: number): boolean {
    for (let n = 0; at.block <= this.block; at.block++, at.pos = 0) {
      const b = this.blocks[at.block] as Buffer;
      const used = this.used[at.block] ?? 0;
      while (at.pos < used) {
        if (n++ === count) return true;
        const p = at.pos;
        const len = b[p + ENDPOINT_LEN] as number;
        at.pos = p + ENDPOINT + len;
        visit(
          b.toString('base64', p, p + RX),
          b.readDoubleLE(p + RX),
          b.readDoubleLE(p + TX),
          b.readDoubleLE(p + HANDSHAKE),
          len > 0 ? b.toString('latin1', p + ENDPOINT, p + ENDPOINT + len) : null,
        );
      }
    }
    return false;
  }

  private line(b: Buffer, start: number, eq: number, end: number): void {
    const n = eq - start;
    const c = b[start];
    if (n === 10 && c === 0x70 && isKey(b, start, eq, KEY_PUBLIC)) {
      this.close();
      this.open(b, eq + 1, end);
    } else if (n === 5 && c === 0x65 && isKey(b, start, eq, KEY_ERRNO)) {
      this.close();
      this.errno = digits(b, eq + 1, end);
    } else if (this.record >= 0) {
      const r = this.blocks[this.block] as Buffer;
      const at = this.record;
      if (n === 8) {
        if (c === 0x72 && isKey(b, start, eq, KEY_RX)) r.writeDoubleLE(digits(b, eq + 1, end), at + RX);
        else if (c === 0x74 && isKey(b, start, eq, KEY_TX)) r.writeDoubleLE(digits(b, eq + 1, end), at + TX);
        else if (c === 0x65 && isKey(b, start, eq, KEY_ENDPOINT)) {
          const len = end - eq - 1;
          r[at + ENDPOINT_LEN] = len <= ENDPOINT_MAX ? b.copy(r, at + ENDPOINT, eq + 1, end) : 0;
        }
      } else if (n === 23 && c === 0x6c && isKey(b, start, eq, KEY_HANDSHAKE))
        r.writeDoubleLE(digits(b, eq + 1, end), at + HANDSHAKE);
    }
  }

  /** A new peer's record, in the current block if a whole record still fits there. */
  private open(b: Buffer, start: number, end: number): void {
    if (this.block < 0 || this.pos + RECORD_MAX > CAPTURE_BLOCK) {
      this.block++;
      this.pos = 0;
      if (this.block === this.blocks.length) this.blocks.push(Buffer.allocUnsafeSlow(CAPTURE_BLOCK));
    }
    const r = this.blocks[this.block] as Buffer;
    const at = this.pos;
    if (end - start !== 64) throw new Error('clave WireGuard no válida (se esperaban 64 dígitos hex)');
    for (let i = 0; i < 32; i++) {
      const hi = hexDigit(b[start + 2 * i]);
      const lo = hexDigit(b[start + 2 * i + 1]);
      if (hi < 0 || lo < 0) throw new Error('clave WireGuard no válida (se esperaban 64 dígitos hex)');
      r[at + i] = (hi << 4) | lo;
    }
    r.fill(0, at + RX, at + ENDPOINT);
    this.record = at;
  }

  /** Closes the record being read: the next one starts after its endpoint. */
  private close(): void {
    if (this.record < 0) return;
    const r = this.blocks[this.block] as Buffer;
    this.pos = this.record + ENDPOINT + (r[this.record + ENDPOINT_LEN] as number);
    this.used[this.block] = this.pos;
    this.record = -1;
    this.peers++;
  }
}

/**
 * A whole answer parsed for its counters, synchronously (tests and the in-memory driver): push the
 * chunks, then `end` checks the errno and visits every peer.
 */
export class StatsStreamParser {
  private readonly capture = new CounterCapture();

  constructor(private readonly visitor: PeerCountersVisitor) {
    this.capture.begin();
  }

  push(chunk: Buffer): void {
    this.capture.push(chunk);
  }

  end(): void {
    this.capture.end();
    this.capture.visitAll(this.visitor);
  }
}

/** Visits the peers of a parsed device like StatsStreamParser does (drivers without streaming). */
export function visitPeerCounters(dev: UapiDeviceState, visit: PeerCountersVisitor): void {
  for (const p of dev.peers) visit(p.publicKey, p.rxBytes, p.txBytes, p.lastHandshakeSec, p.endpoint);
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
