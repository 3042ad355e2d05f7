import { defineConfig } from 'vitest/config';

// `SVC_SELF_CHECK=1` runs only the files under test/self-check/, which must fail:
// scripts/check-test-failures.sh proves with them that a failure makes vitest exit non-zero.
const selfCheck = process.env.SVC_SELF_CHECK === '1';
// `VITEST_JSON_REPORT=<file>` also writes vitest's JSON report there: .ci/run reads its counts for
// the closing `N passed, N failed` line.
const jsonReport = process.env.VITEST_JSON_REPORT;

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Two workers match the two cores of the machines this runs on.
    maxWorkers: 2,
    ...(jsonReport ? { reporters: ['default', ['json', { outputFile: jsonReport }]] } : {}),
    projects: [
      {
        test: {
          name: 'unit',
          include: selfCheck
            ? ['test/self-check/*.unit.ts']
            : [
                'test/domain/**/*.test.ts',
                'test/architecture/**/*.test.ts',
                'test/workflows-unit/**/*.test.ts',
                'test/services-unit/**/*.test.ts',
                // Reads files only: the kit's generated types and version against the description.
                'test/channel-kit/generated.test.ts',
              ],
          // The workflow tests' code, bundled once for the run (no database, no Temporal server).
          ...(selfCheck ? {} : { globalSetup: ['test/support/workflow-bundle.ts'] }),
        },
      },
      {
        test: {
          name: 'integration',
          include: selfCheck ? ['test/self-check/*.integration.ts'] : ['test/**/*.test.ts'],
          exclude: [
            'test/domain/**',
            'test/architecture/**',
            'test/workflows-unit/**',
            'test/services-unit/**',
            'test/channel-kit/generated.test.ts',
          ],
          globalSetup: ['test/support/global-setup.ts'],
          setupFiles: ['test/support/cleanup.ts'],
          testTimeout: 120_000,
          hookTimeout: 180_000,
        },
      },
    ],
  },
});
