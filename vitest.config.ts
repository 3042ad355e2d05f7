import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two workers match the two cores of the machines this runs on.
    maxWorkers: 2,
    projects: [
      { test: { name: 'unit', include: ['test/domain/**/*.test.ts'] } },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: ['test/domain/**'],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
