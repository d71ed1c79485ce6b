import { defineConfig } from 'vitest/config';

/**
 * Browser journeys: the built SPA served by the real control plane (PGlite in a temporary directory),
 * driven by playwright-core in Debian's Chromium. `npm run test:e2e` at the root runs them.
 */
export default defineConfig({
  test: {
    environment: 'node',
    include: ['e2e/**/*.e2e.test.ts'],
    globalSetup: ['e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    fileParallelism: false,
  },
});
