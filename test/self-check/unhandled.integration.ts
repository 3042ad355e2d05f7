import { expect, test } from 'vitest';

// Run only by scripts/check-test-failures.sh: the test passes, but the rejection it leaves
// unhandled must still fail the run.
test('self-check: an unhandled rejection fails the run', async () => {
  void Promise.reject(new Error('self-check: unhandled rejection'));
  await new Promise((resolve) => setImmediate(resolve));
  expect(true).toBe(true);
});
