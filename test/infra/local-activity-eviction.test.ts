import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { expect, inject, test } from 'vitest';

const run = promisify(execFile);
const child = path.join(import.meta.dirname, '../support/eviction/child.ts');

/** Core log lines that report a lost local activity, from ten workflows on a worker tuned as named. */
async function reportedLines(tuning: string): Promise<string[]> {
  const { stdout } = await run(process.execPath, [child, inject('temporalAddress'), tuning], { timeout: 110_000 });
  const last = stdout.trim().split('\n').at(-1) ?? '';
  return (JSON.parse(last) as { reported: string[] }).reported;
}

test('the production worker tuning runs concurrent local activities without an SDK error', async () => {
  expect(await reportedLines('production')).toEqual([]);
});

test('a test worker without a cache runs local activities without an SDK error', async () => {
  expect(await reportedLines('test-without-cache')).toEqual([]);
});

// The reproduction: no cache and more than one task at a time. When this stops reporting, the SDK
// has mended it and test workers may run tasks concurrently again.
test('without a cache and with concurrent tasks, the SDK core drops local activity results', async () => {
  const lines = await reportedLines('no-cache-concurrent');
  expect(lines.some((line) => line.includes('Tried to complete untracked local activity'))).toBe(true);
});
