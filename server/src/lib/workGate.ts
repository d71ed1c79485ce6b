import { msg } from '@vpn/contracts';
import { HttpError } from './errors.ts';

export type Lane = 'normal' | 'suspect';

/**
 * A cap on concurrent expensive work (password hashing: scrypt takes 32 MiB and a thread each).
 * Guesses cannot starve logins: at most `concurrency` run at once, work from addresses that have
 * been failing waits in a lane of its own that only runs when no other work waits, and each lane
 * holds at most `maxWaiting` (past it: 503 with Retry-After, never an unbounded queue).
 */
export class WorkGate {
  private active = 0;
  private readonly queues: Record<Lane, (() => void)[]> = { normal: [], suspect: [] };

  constructor(
    private readonly concurrency: number,
    private readonly maxWaiting: number,
  ) {}

  async run<T>(work: () => Promise<T>, lane: Lane = 'normal'): Promise<T> {
    if (this.active < this.concurrency) this.active++;
    else {
      if (this.queues[lane].length >= this.maxWaiting)
        throw new HttpError(503, msg.passwordCheckBusy, 'busy', undefined, { 'retry-after': '2' });
      // The slot is handed over by release(): `active` stays counted.
      await new Promise<void>((resolve) => this.queues[lane].push(resolve));
    }
    try {
      return await work();
    } finally {
      const next = this.queues.normal.shift() ?? this.queues.suspect.shift();
      if (next) next();
      else this.active--;
    }
  }
}
