import { afterAll } from 'vitest';

/**
 * Teardown for resources a test file opens in its `beforeAll` (databases, servers, processes).
 * Vitest does not run an `afterAll` registered inside a `beforeAll`, so helpers register here,
 * and this module (a setup file of the integration project) runs them, newest first, after the
 * file's tests. A failing task is reported and the others still run.
 */
const tasks: (() => unknown)[] = [];

export function onCleanup(task: () => unknown): void {
  tasks.push(task);
}

afterAll(async () => {
  const failures: unknown[] = [];
  while (tasks.length > 0) {
    try {
      await tasks.pop()!();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw new AggregateError(failures, 'cleanup failed');
});
