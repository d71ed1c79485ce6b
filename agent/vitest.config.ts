import { defineConfig } from 'vitest/config';

// Integration tests start wireguard-go, namespaces and agent processes: give them time on 2 cores.
export default defineConfig({
  test: { include: ['src/**/*.test.ts'], testTimeout: 30_000, hookTimeout: 60_000 },
});
