/**
 * Each peer's counters at the last stats pass, by public key: what the next pass compares with (to
 * report only the peers that changed), what a removed key's last report counts from, and the node
 * health's totals. Kept for every peer for the agent's whole life, so kept small (issue 33): a slot
 * number per key in the map and the readings in typed arrays (~53 bytes a peer with its share of
 * the arrays, the pass that last reported it included) instead of an object a peer (~64 bytes, plus a 16-byte box for each counter past
 * 2^31 bytes, which V8 then gives every peer's).
 */
export class LastReadings {
  private readonly slots = new Map<string, number>();
  private rx = new Float64Array(0);
  private tx = new Float64Array(0);
  private handshake = new Float64Array(0);
  /** The pass that last saw each slot: peers gone from the interface are forgotten. */
  private seenIn = new Uint32Array(0);
  /**
   * The `at` of the pass that last reported each slot (issue 33): a resumed connection reports
   * again the peers last reported in a pass the control plane did not store (stats/storedPasses.ts).
   */
  private reportedIn = new Float64Array(0);
  private endpoint: (string | null)[] = [];
  /** Each slot's key: the string the map holds, handed out again so a pass's own copy dies young. */
  private keys: string[] = [];
  private readonly free: number[] = [];

  get size(): number {
    return this.slots.size;
  }

  /** The slot of `key`'s readings, -1 when it has none. */
  slot(key: string): number {
    return this.slots.get(key) ?? -1;
  }

  /** Whether slot `s` holds exactly these readings. */
  same(s: number, rx: number, tx: number, handshake: number, endpoint: string | null): boolean {
    return (
      this.rx[s] === rx &&
      this.tx[s] === tx &&
      this.handshake[s] === handshake &&
      this.endpoint[s] === endpoint
    );
  }

  /** The key of slot `s`, as first added (the desired peer's own string). */
  keyOf(s: number): string {
    return this.keys[s] ?? '';
  }

  endpointOf(s: number): string | null {
    return this.endpoint[s] ?? null;
  }

  /** Slot `s` was reported by the pass of `at`. */
  reported(s: number, at: number): void {
    this.reportedIn[s] = at;
  }

  /** The `at` of the pass that last reported slot `s`. */
  reportedAt(s: number): number {
    return this.reportedIn[s] ?? 0;
  }

  /** Marks slot `s` as seen by pass `pass`. */
  seen(s: number, pass: number): void {
    this.seenIn[s] = pass;
  }

  set(s: number, rx: number, tx: number, handshake: number, endpoint: string | null): void {
    this.rx[s] = rx;
    this.tx[s] = tx;
    this.handshake[s] = handshake;
    // An equal endpoint keeps the string already held: the pass's copy dies young.
    if (this.endpoint[s] !== endpoint) this.endpoint[s] = endpoint;
  }

  /** `key`'s first readings, seen by pass `pass`: its slot. */
  add(key: string, rx: number, tx: number, handshake: number, endpoint: string | null, pass: number): number {
    let s = this.free.pop();
    if (s === undefined) {
      s = this.slots.size;
      if (s === this.seenIn.length) this.grow(s + 1);
    }
    this.slots.set(key, s);
    this.keys[s] = key;
    this.endpoint[s] = null;
    this.set(s, rx, tx, handshake, endpoint);
    this.seenIn[s] = pass;
    this.reportedIn[s] = 0;
    return s;
  }

  /** `key`'s counters at the last pass (AgentPeerStats.since), if it has readings. */
  since(key: string): { rx_bytes: number; tx_bytes: number } | undefined {
    const s = this.slots.get(key);
    return s === undefined ? undefined : { rx_bytes: this.rx[s] ?? 0, tx_bytes: this.tx[s] ?? 0 };
  }

  /** Forgets every key pass `pass` did not see, telling `forget` of each. */
  sweep(pass: number, forget: (key: string) => void): void {
    for (const [key, s] of this.slots)
      if (this.seenIn[s] !== pass) {
        this.slots.delete(key);
        this.endpoint[s] = null;
        this.keys[s] = '';
        this.free.push(s);
        forget(key);
      }
  }

  clear(): void {
    this.slots.clear();
    this.free.length = 0;
    this.endpoint = [];
    this.keys = [];
    this.grow(0, true);
  }

  /** The counters summed, and how many handshakes happened at or after `sinceSec` (node health). */
  totals(sinceSec: number): { peers: number; handshakes: number; rx: number; tx: number } {
    let rx = 0;
    let tx = 0;
    let handshakes = 0;
    for (const s of this.slots.values()) {
      rx += this.rx[s] ?? 0;
      tx += this.tx[s] ?? 0;
      const h = this.handshake[s] ?? 0;
      if (h > 0 && h >= sinceSec) handshakes++;
    }
    return { peers: this.slots.size, handshakes, rx, tx };
  }

  /** Room for `min` slots: a quarter more than asked, so a growing device copies rarely. */
  private grow(min: number, exact = false): void {
    const size = exact ? min : Math.max(min, Math.ceil(this.seenIn.length * 1.25), 64);
    const widen = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T): T => {
      const b = make(size);
      b.set(a.subarray(0, Math.min(a.length, size)));
      return b;
    };
    this.rx = widen(this.rx, (n) => new Float64Array(n));
    this.tx = widen(this.tx, (n) => new Float64Array(n));
    this.handshake = widen(this.handshake, (n) => new Float64Array(n));
    this.seenIn = widen(this.seenIn, (n) => new Uint32Array(n));
    this.reportedIn = widen(this.reportedIn, (n) => new Float64Array(n));
  }
}
