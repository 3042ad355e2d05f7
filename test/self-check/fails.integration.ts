import { expect, test } from 'vitest';

// Run only by scripts/check-test-failures.sh, which stops CI unless this file makes vitest fail.
// The integration project loads the global setup (Postgres, Temporal) and the cleanup setup file.
test('self-check: a failing integration test fails the run', () => {
  expect(1).toBe(2);
});
