import { expect, test } from 'vitest';

// Run only by scripts/check-test-failures.sh, which stops CI unless this file makes vitest fail.
test('self-check: a failing unit test fails the run', () => {
  expect(1).toBe(2);
});
