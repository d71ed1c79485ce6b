import { defineConfig } from 'vitest/config';

/** Real WireGuard data plane in network namespaces (root, wireguard-go, wireguard-tools, nftables). */
export default defineConfig({
  test: {
    include: ['test/dataplane/**/*.test.ts'],
    globalSetup: ['./test/globalSetup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    fileParallelism: false,
    env: { TEST_DATABASE_URL: '' },
  },
});
