import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils.js';
import { Worker } from '@temporalio/worker';
import { expect, test } from 'vitest';
import { WORKFLOWS_PATH } from '../../app/worker.ts';
import { HISTORIES_DIR } from '../support/time-skipping.ts';

/**
 * Replays every committed history against today's workflow code: a change that would break a
 * running workflow's determinism fails here, not in production. Record new histories with
 * RECORD_HISTORIES=1 npm test.
 */
test('committed workflow histories replay without nondeterminism', async () => {
  const files = (await readdir(HISTORIES_DIR)).filter((f) => f.endsWith('.json')).sort();
  expect(files.length).toBeGreaterThan(0);
  const histories = await Promise.all(
    files.map(async (file) => ({
      workflowId: path.basename(file, '.json'),
      history: historyFromJSON(JSON.parse(await readFile(path.join(HISTORIES_DIR, file), 'utf8'))),
    })),
  );
  const failures: string[] = [];
  let replayed = 0;
  for await (const result of Worker.runReplayHistories({ workflowsPath: WORKFLOWS_PATH }, histories)) {
    replayed += 1;
    if (result.error) failures.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failures).toEqual([]);
  expect(replayed).toBe(files.length);
});
