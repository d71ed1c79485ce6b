/**
 * The reconciler's hook into per-peer speed (issue 35): after a full pass's peers, converge the
 * shaping with the whole desired set; after a delta's peers, apply only the changed peers' speeds.
 * Shaping never fails a pass or a delta: a peer is better online unshaped than off, so an error is
 * logged (and the next full pass, periodic or not, tries again from a fresh read back).
 */
import type { CommandRunner } from '../exec.ts';
import { errorMessage, type Logger } from '../log.ts';
import { deltaShaping, desiredShaping, type ShapedPeer } from './model.ts';
import { Shaper } from './shaper.ts';

export class PeerShaping {
  private readonly shaper: Shaper;

  constructor(
    runner: CommandRunner,
    private readonly log: Logger,
  ) {
    this.shaper = new Shaper(runner, log);
  }

  /** Shaped peer-directions as last applied. */
  get shaped(): number {
    return this.shaper.shapedCount;
  }

  /** After a full pass: traffic control made to match every desired peer's speed. */
  async converge(iface: string, peers: Iterable<ShapedPeer>): Promise<void> {
    try {
      await this.shaper.converge(iface, desiredShaping(peers));
    } catch (err) {
      this.log.error('no se pudieron aplicar las velocidades de los peers', {
        interface: iface,
        error: errorMessage(err),
      });
    }
  }

  /**
   * After a delta: the removed peers lose their speed, the upserted ones get theirs, touching only
   * their classes and filters; a full converge when the state is unknown or first needs building.
   */
  async delta(
    iface: string,
    removed: readonly ShapedPeer[],
    upserted: readonly ShapedPeer[],
    all: () => Iterable<ShapedPeer>,
  ): Promise<void> {
    const changes = deltaShaping(removed, upserted);
    if (changes.size === 0) return;
    try {
      if ((await this.shaper.update(iface, changes)) !== 'converge') return;
    } catch (err) {
      this.log.warn('no se pudo aplicar la velocidad del delta: se relee el control de tráfico', {
        interface: iface,
        error: errorMessage(err),
      });
    }
    await this.converge(iface, all());
  }
}
