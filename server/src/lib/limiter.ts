/**
 * At most `max` tasks at a time, the others waiting in arrival order. For work that holds a database
 * connection for long (an agent's stats report: hundreds of milliseconds to seconds), so that it
 * never takes the whole pool from the requests customers wait on.
 */
export class Limiter {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly max: number) {
    if (!(max >= 1)) throw new Error('Limiter: max must be at least 1');
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) await new Promise<void>((r) => this.waiting.push(r));
    else this.running++;
    try {
      return await task();
    } finally {
      // The slot passes straight to the next waiter (running stays counted), else it is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Tasks waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}
