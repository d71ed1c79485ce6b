import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    exclude: ['test/dataplane/**', '**/node_modules/**'],
    globalSetup: ['./test/globalSetup.ts'],
    // Password hashes at a test cost (crypto.test.ts checks the production one).
    setupFiles: ['./test/setup.ts'],
    // Generous: servers started as child processes hash at the production cost (a 32 MiB scrypt
    // with p=3 per login), and two files share 2 cores.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // PGlite instances are memory-hungry WASM: keep the worker count modest on small machines.
    maxWorkers: 2,
  },
});
