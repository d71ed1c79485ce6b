import { describe, expect, it } from 'vitest';
import { HttpError } from './errors.ts';
import { WorkGate } from './workGate.ts';

/** A task the test finishes by hand, recording when it started. */
function task(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((r) => (finish = r));
  return {
    run: async () => {
      log.push(name);
      await done;
      return name;
    },
    finish: () => finish(),
  };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('WorkGate (the cap on concurrent password hashing)', () => {
  it('runs at most `concurrency` tasks at once, and lets the suspect lane wait behind the others', async () => {
    const gate = new WorkGate(2, 10);
    const started: string[] = [];
    const tasks = ['a', 'b', 'guess1', 'guess2', 'owner'].map((n) => task(started, n));
    const runs = [
      gate.run(tasks[0]!.run),
      gate.run(tasks[1]!.run),
      gate.run(tasks[2]!.run, 'suspect'),
      gate.run(tasks[3]!.run, 'suspect'),
      gate.run(tasks[4]!.run),
    ];
    await settle();
    expect(started).toEqual(['a', 'b']);
    tasks[0]!.finish();
    await settle();
    // The owner queued after two guesses, and still goes first.
    expect(started).toEqual(['a', 'b', 'owner']);
    tasks[1]!.finish();
    tasks[4]!.finish();
    await settle();
    expect(started).toEqual(['a', 'b', 'owner', 'guess1', 'guess2']);
    tasks[2]!.finish();
    tasks[3]!.finish();
    expect(await Promise.all(runs)).toEqual(['a', 'b', 'guess1', 'guess2', 'owner']);
  });

  it('refuses with 503 past the queue bound instead of piling up memory', async () => {
    const gate = new WorkGate(1, 1);
    const started: string[] = [];
    const first = task(started, 'first');
    const queued = task(started, 'queued');
    const running = gate.run(first.run);
    const waiting = gate.run(queued.run, 'suspect');
    const refused = await gate.run(async () => 'x', 'suspect').catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(HttpError);
    expect((refused as HttpError).status).toBe(503);
    first.finish();
    await settle();
    queued.finish();
    expect(await Promise.all([running, waiting])).toEqual(['first', 'queued']);
  });
});
