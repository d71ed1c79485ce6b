/**
 * Issue 31 §3: a relay that cannot be applied never stops peer changes. On a kernel or container
 * without netdev ingress or `dup`, nft refuses the relay table; before, that error failed the whole
 * pass ahead of the peer diff, so a peer the panel disabled or let expire stayed connected. The
 * reconciler now writes the peers first and then hands the relay here: a failure is kept (reported
 * in `relay_stats`, shown in Servidores and `/metrics`), logged with nft's reason, and tried again
 * later with a growing delay (5 s → 5 min), while peers keep converging.
 */
import type { CommandRunner } from '../exec.ts';
import { errorMessage, type Logger } from '../log.ts';
import { RelayTable, type RelaySpec } from './relay.ts';

/** The relay as the agent reports it (`relay_stats`). */
export interface RelayStatus {
  active: boolean;
  relayed: number;
  dropped: number;
  /** Why the relay's rules are not in place (nft's reason); absent when nothing failed. */
  error?: string;
}

export interface RelayKeeperOptions {
  runner: CommandRunner;
  log: Logger;
  /** Called when a failed apply should be tried again (the reconciler queues it with the latest rooms). */
  retry: () => void;
  /** First delay before a retry, ms (default 5 s; doubles up to `maxRetryMs`). */
  firstRetryMs?: number;
  maxRetryMs?: number;
}

/** Longest kept reason: nft prints the offending line, which names only the table and interface. */
const MAX_REASON = 500;

export class RelayKeeper {
  private readonly table: RelayTable;
  private error: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private delay: number;
  private closed = false;

  constructor(private readonly o: RelayKeeperOptions) {
    this.table = new RelayTable(o.runner);
    this.delay = o.firstRetryMs ?? 5000;
  }

  /** Makes the relay match `spec` (null: off). Never throws: a failure is kept, logged and retried. */
  async apply(spec: RelaySpec | null): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    try {
      await this.table.apply(spec, { verify: true });
      if (this.error !== null) this.o.log.info('relé de descubrimiento aplicado tras un fallo');
      this.error = null;
      this.delay = this.o.firstRetryMs ?? 5000;
    } catch (err) {
      this.error = errorMessage(err).slice(0, MAX_REASON);
      const wait = this.delay;
      this.delay = Math.min(this.o.maxRetryMs ?? 300_000, this.delay * 2);
      this.o.log.error(
        'no se pudo aplicar el relé de descubrimiento: los pares sí se aplicaron; se reintentará',
        { error: this.error, retry_ms: wait },
      );
      if (this.closed) return;
      this.timer = setTimeout(() => {
        this.timer = null;
        if (!this.closed) this.o.retry();
      }, wait);
      this.timer.unref();
    }
  }

  /** State, counters since the agent started, and the last failure's reason while it lasts. */
  async status(): Promise<RelayStatus> {
    const counters = await this.table.counters();
    return {
      active: counters != null,
      relayed: counters?.relayed ?? 0,
      dropped: counters?.dropped ?? 0,
      ...(this.error !== null ? { error: this.error } : {}),
    };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
