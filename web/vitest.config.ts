import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { contractShapesPlugin } from './scripts/contractShapes.ts';

const here = fileURLToPath(new URL('.', import.meta.url));

/**
 * The files that replace a module (`vi.mock`): they run each in a fresh environment, as every file
 * did before `isolate: false` below. In a shared worker the app's modules are already loaded with
 * the real one, so the mock would not reach them, and the mock would stay for the files after.
 */
const MOCKING = readdirSync(`${here}src`, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.test\.tsx?$/.test(f))
  .map((f) => `src/${f}`)
  .filter((f) => /\bvi\.(?:do)?[mM]ock\(/.test(readFileSync(`${here}${f}`, 'utf8')));

export default defineConfig({
  plugins: [react(), contractShapesPlugin()],
  test: {
    environment: 'jsdom',
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // userEvent types character by character; on a busy 2-core machine 5 s is too tight.
    testTimeout: 20_000,
    unstubGlobals: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.{ts,tsx}'],
          exclude: MOCKING,
          // A worker runs its files one after another in one jsdom and one module graph: the app's
          // modules (setup.ts loads every page) are loaded once per worker, not once per file, which
          // was most of the suite's CPU (111 s of user CPU isolated, 49 s not). setup.ts cleans the
          // DOM, storage and sockets after every test, which is what the next file needs too.
          isolate: false,
        },
      },
      { extends: true, test: { name: 'isolated', include: MOCKING, isolate: true } },
    ],
  },
});
