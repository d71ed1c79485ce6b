import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { contractShapesPlugin } from './scripts/contractShapes.ts';

export default defineConfig({
  plugins: [react(), contractShapesPlugin()],
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}'],
    setupFiles: ['src/test/setup.ts'],
    restoreMocks: true,
    // userEvent types character by character; on a busy 2-core machine 5 s is too tight.
    testTimeout: 20_000,
    unstubGlobals: true,
  },
});
