import { describe, expect, it } from 'vitest';
import { Limiter } from './limiter.ts';

/** A task that stays open until released, recording how many ran at once. */
function tasks(limiter: Limiter) {
  let now = 0;
  let most = 0;
  const order: number[] = [];
  const releases: (() => void)[] = [];
  const start = (id: number, fail = false) =>
    limiter.run(async () => {
      now++;
      most = Math.max(most, now);
      order.push(id);
      await new Promise<void>((r) => releases.push(r));
      now--;
      if (fail) throw new Error(`falla ${id}`);
      return id;
    });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return { start, releases, order, most: () => most, settle };
}

describe('Limiter', () => {
  it('runs at most max tasks at once, the others in arrival order, and passes on a failed slot', async () => {
    const limiter = new Limiter(2);
    const t = tasks(limiter);
    const runs = [t.start(1), t.start(2, true), t.start(3), t.start(4)];
    await t.settle();
    expect(t.order).toEqual([1, 2]);
    expect(limiter.queued).toBe(2);
    t.releases[1]!(); // task 2 fails: its slot still goes to 3
    await expect(runs[1]).rejects.toThrow('falla 2');
    await t.settle();
    expect(t.order).toEqual([1, 2, 3]);
    t.releases[0]!();
    await t.settle();
    expect(t.order).toEqual([1, 2, 3, 4]);
    t.releases[2]!();
    t.releases[3]!();
    expect(await Promise.all([runs[0], runs[2], runs[3]])).toEqual([1, 3, 4]);
    expect(t.most()).toBe(2);
    expect(limiter.queued).toBe(0);
    // Free again: a new task starts at once.
    const again = t.start(5);
    await t.settle();
    expect(t.order.at(-1)).toBe(5);
    t.releases[4]!();
    expect(await again).toBe(5);
  });

  it('refuses a limit below one', () => {
    expect(() => new Limiter(0)).toThrow();
  });
});
