/**
 * A value kept in memory for a short time. Used for read-mostly public data (site settings, plans)
 * that every request reads: other instances see a change within `ttlMs`, this one at once (the
 * writer calls `invalidate`). Concurrent misses share one load.
 */
export class ShortCache<T> {
  private value: T | undefined;
  private expires = 0;
  private loading: Promise<T> | undefined;
  /** Bumped by invalidate(): a load that started before it must not store its (older) answer. */
  private generation = 0;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs = 1000,
  ) {}

  get(): Promise<T> {
    if (this.value !== undefined && Date.now() < this.expires) return Promise.resolve(this.value);
    if (this.loading) return this.loading;
    const generation = this.generation;
    // The answer is as old as the query's start: count the TTL from there, so no copy outlives it.
    const started = Date.now();
    const loading = this.load()
      .then((v) => {
        if (generation === this.generation) {
          this.value = v;
          this.expires = started + this.ttlMs;
        }
        return v;
      })
      .finally(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    this.loading = loading;
    return loading;
  }

  invalidate(): void {
    this.generation++;
    this.value = undefined;
    this.expires = 0;
    // A read already in flight may predate the change: the next caller starts a fresh one.
    this.loading = undefined;
  }
}
