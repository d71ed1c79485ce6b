import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

const here = fileURLToPath(new URL('.', import.meta.url));
const EXCLUDE = ['test/dataplane/**', '**/node_modules/**'];

/**
 * The files that replace a module (`vi.mock`): they run each in a fresh process, as every file did
 * before `isolate: false` below. In a shared worker the app's modules are already loaded with the
 * real one, so the mock would not reach them, and the mock would stay for the files after.
 */
const MOCKING = ['src', 'test']
  .flatMap((dir) =>
    readdirSync(`${here}${dir}`, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.test.ts') && !`${dir}/${f}`.startsWith('test/dataplane/'))
      .map((f) => `${dir}/${f}`),
  )
  .filter((f) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(`${here}${f}`, 'utf8')));

/**
 * The files that take longest (seconds on a loaded 2-core CI lane, PGlite / PostgreSQL), started
 * first so that none of them is left to end a suite alone on one worker while the other idles.
 * A clean clone has no timing cache, and vitest then starts the largest files first, which put
 * crashTwoInstances (a small file, 35 s) last. The rest follow vitest's own order. Keep it to the
 * slow ones; `.reports/timings.json` (README, "Set-up") shows when this list goes stale.
 */
const SLOW_FIRST = [
  'src/routes/fuzz.test.ts', // 45 / 43
  'test/crashTwoInstances.test.ts', // PostgreSQL only: 34
  'test/diskFull.test.ts', // 21 / 20
  'test/telegramFailover.test.ts', // PostgreSQL only (the two-poller part runs on both): 20
  'test/crash.test.ts', // 16 / 11
  'test/production.test.ts', // 16 / 10
  'src/routes/client/peers.test.ts', // 15 / 9
];

class SlowFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (f: TestSpecification) => SLOW_FIRST.findIndex((s) => f.moduleId.endsWith(`/server/${s}`));
    const slow = files.filter((f) => rank(f) >= 0).sort((a, b) => rank(a) - rank(b));
    return [...slow, ...(await super.sort(files.filter((f) => rank(f) < 0)))];
  }
}

export default defineConfig({
  test: {
    exclude: EXCLUDE,
    globalSetup: ['./test/globalSetup.ts'],
    // Password hashes at a test cost (crypto.test.ts checks the production one).
    setupFiles: ['./test/setup.ts'],
    // Generous: servers started as child processes hash at the production cost (a 32 MiB scrypt
    // with p=3 per login), and two files share 2 cores.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // PGlite instances are memory-hungry WASM: keep the worker count modest on small machines.
    maxWorkers: 2,
    // A worker runs its files one after another in one module graph: the app's modules are loaded
    // (and PGlite's WASM compiled) once per worker instead of once per file, which was more than
    // half of each suite's CPU (15 small files: 58 s of user CPU isolated, 26 s not; the PGlite
    // suite alone, loaded machine: 540-1,180 s before, 225 s after). Each file still gets a
    // database and app of its own (test/helpers.ts); test/setup.ts runs before every file and
    // resets the process-wide state a file may leave (the password cost, fake timers).
    sequence: { sequencer: SlowFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...EXCLUDE, ...MOCKING],
          isolate: false,
        },
      },
      ...(MOCKING.length > 0
        ? [{ extends: true as const, test: { name: 'isolated', include: MOCKING, isolate: true } }]
        : []),
    ],
  },
});
