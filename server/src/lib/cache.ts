/**
 * A value kept in memory for a short time. Used for read-mostly public data (site settings, plans)
 * that every request reads: other instances see a change within `ttlMs`, this one at once (the
 * writer calls `invalidate`). Concurrent misses share one load.
 */
export class ShortCache<T> {
  private value: T | undefined;
  private expires = 0;
  private loading: Promise<T> | undefined;

  constructor(
    private readonly load: () => Promise<T>,
    private readonly ttlMs = 1000,
  ) {}

  get(): Promise<T> {
    if (this.value !== undefined && Date.now() < this.expires) return Promise.resolve(this.value);
    this.loading ??= this.load()
      .then((v) => {
        this.value = v;
        this.expires = Date.now() + this.ttlMs;
        return v;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }

  invalidate(): void {
    this.value = undefined;
    this.expires = 0;
  }
}
