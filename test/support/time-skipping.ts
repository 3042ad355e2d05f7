import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { onCleanup } from './cleanup.ts';
import { startTimeSkippingServer } from './test-server.ts';

/** One time-skipping test server per test file, torn down after it. */
export async function timeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const env = await startTimeSkippingServer();
  onCleanup(() => env.teardown());
  return env;
}

export const HISTORIES_DIR = path.resolve(import.meta.dirname, '../histories');

/**
 * With RECORD_HISTORIES=1, stores the workflow's history under test/histories for the replay
 * test; committed histories are what a determinism-breaking change fails against.
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const history = await handle.fetchHistory();
  await mkdir(HISTORIES_DIR, { recursive: true });
  await writeFile(
    path.join(HISTORIES_DIR, `${name}.json`),
    `${JSON.stringify(JSON.parse(historyToJSON(history)), null, 2)}\n`,
  );
}
