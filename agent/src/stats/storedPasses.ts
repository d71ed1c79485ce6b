/**
 * Which stats passes the control plane stored (issue 33, `stats_stored`). Counters are cumulative,
 * so a peer whose last reported change was stored needs no report until it moves again; one whose
 * last report went to a panel instance that died before storing it (it holds a few reports per
 * agent in memory) must be reported again, or its traffic since the previous stored reading is
 * never counted. Before this, the first report of every connection listed every peer for that
 * reason: 33 agents of 10,000 peers reconnecting at once after a kill -9 (bench:fleet).
 *
 * Kept per pass (its `at`, shared by all of its frames): the frames sent and the frames the control
 * plane named in `stats_stored`. LastReadings keeps, per peer, the `at` of the pass that last
 * reported it; a resumed connection's first pass reports again every peer last reported at or after
 * `resendFrom()` (plus what moved). Bounded: passes before the oldest one not wholly stored are
 * dropped, and past MAX_PASSES the agent no longer knows, and reports every peer next time.
 */

/** Passes remembered at most; more (a control plane that stores nothing for ~10 minutes) → full. */
export const MAX_PASSES = 64;

interface Pass {
  /** The connection it was sent on: only that connection's `stats_stored` can name it. */
  conn: number;
  sent: number;
  stored: number;
  /** It listed every peer: once stored, nothing before it needs reporting again. */
  full: boolean;
}

export class StoredPasses {
  /** By `at`, in the order sent (pass timestamps grow). */
  private readonly passes = new Map<number, Pass>();
  /**
   * Every peer last reported before the oldest pass kept had that report stored. False until a
   * full report is stored, and again when the agent cannot know (no acknowledgements on a
   * connection, too many passes waiting, a pass timestamp seen twice).
   */
  private trusted = false;
  /** Passes up to this `at` are not tracked: forgotten, some of their frames may be uncounted. */
  private ignoreUpTo = -Infinity;
  private latest = -Infinity;

  /** Passes kept (tests). */
  get size(): number {
    return this.passes.size;
  }

  /** A `stats` frame of pass `at` went out on connection `conn` (`full`: the pass lists every peer). */
  sent(at: number, conn: number, full = false): void {
    if (at <= this.ignoreUpTo) return;
    if (at > this.latest) this.latest = at;
    const p = this.passes.get(at);
    if (p && p.conn !== conn) {
      // The clock went back to a pass of another connection: the two cannot be told apart.
      this.forget();
      return;
    }
    if (p) {
      p.sent++;
      p.full ||= full;
      return;
    }
    this.passes.set(at, { conn, sent: 1, stored: 0, full });
    if (this.passes.size > MAX_PASSES) this.forget();
  }

  /** `stats_stored` on connection `conn`: one entry per stored frame. */
  stored(ats: readonly number[], conn: number): void {
    for (const at of ats) {
      const p = this.passes.get(at);
      if (!p || p.conn !== conn) continue;
      p.stored++;
      if (p.full && p.stored >= p.sent) {
        // Every peer was reported in it: what came before is covered.
        for (const [older] of this.passes) {
          if (older >= at) break;
          this.passes.delete(older);
        }
        this.trusted = true;
      }
    }
    // The oldest passes wholly stored leave: their peers' reports are in the database.
    for (const [at, p] of this.passes) {
      if (p.stored < p.sent) break;
      this.passes.delete(at);
    }
  }

  /**
   * For a resumed connection's first pass: peers last reported at or after this `at` are
   * reported again (Infinity: every pass was stored, only what moved); null: report every peer.
   */
  resendFrom(): number | null {
    if (!this.trusted) return null;
    for (const [at, p] of this.passes) if (p.stored < p.sent) return at;
    return Infinity;
  }

  /**
   * The first pass of connection `conn` went out (pass `at`): the passes of earlier connections
   * will never be acknowledged, and every peer they reported was reported again by it (or it was
   * full). Only its own fate matters from now on.
   */
  firstPassSent(at: number, conn: number): void {
    for (const [older, p] of this.passes) if (older < at && p.conn !== conn) this.passes.delete(older);
  }

  /** Unknown from here on (a control plane that does not acknowledge): the next report is full. */
  forget(): void {
    this.passes.clear();
    this.trusted = false;
    this.ignoreUpTo = this.latest;
  }
}

/** What a stats pass is told (AgentHandler.collectStats). */
export interface StatsPass {
  /** The pass's timestamp (its frames' `at`), stamped on every peer it reports. */
  at?: number;
  /** Report again, though unchanged, the peers last reported at or after this `at`. */
  resendFrom?: number;
}
