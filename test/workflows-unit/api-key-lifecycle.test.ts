import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ApiKeyLifecycleInput, apiKeyLifecycle } from '../../workflows/api-key-lifecycle.ts';
import { apiKeyRevokedSignal } from '../../workflows/definitions.ts';
import {
  described,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const DAY = 86_400_000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const marks: StandIns = { markApiKeyExpired: () => true };

/** Starts the lifecycle of `key_1`, expiring `expiresInMs` after the test server's now (null: never). */
async function start(expiresInMs: number | null) {
  const { workflowId, calls } = worker.workflow(marks);
  const now = await worker.env.currentTimeMs();
  const expiresAt = expiresInMs === null ? null : now + expiresInMs;
  const input: ApiKeyLifecycleInput = {
    keyId: 'key_1',
    expiresAt: expiresAt === null ? null : new Date(expiresAt).toISOString(),
  };
  const handle = await worker.env.client.workflow.start<typeof apiKeyLifecycle>('apiKeyLifecycle', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [input],
  });
  return { handle, calls, expiresAt };
}

describe('apiKeyLifecycle with stand-in activities', () => {
  test('a key with an expiry is marked expired at that instant, not before', async () => {
    const { handle, calls, expiresAt } = await start(30 * DAY);
    await worker.env.sleep(30 * DAY - 60_000);
    expect(calls).toEqual([]);
    expect(await handle.result()).toBe('expired');
    expect(described(calls)).toEqual(['markApiKeyExpired("key_1")']);
    expect(calls[0]!.atMs).toBeGreaterThanOrEqual(expiresAt!);
    expect(calls[0]!.atMs - expiresAt!).toBeLessThan(SLACK_MS);
  });

  test('a revocation before the expiry ends the lifecycle revoked without marking the key', async () => {
    const { handle, calls } = await start(30 * DAY);
    await worker.env.sleep(10 * DAY);
    await handle.signal(apiKeyRevokedSignal);
    expect(await handle.result()).toBe('revoked');
    expect(calls).toEqual([]);
  });

  test('a key without expiry sets no timer and waits, a year and more, for its revocation', async () => {
    const { handle, calls } = await start(null);
    await worker.env.sleep(400 * DAY);
    expect((await handle.describe()).status.name).toBe('RUNNING');
    expect(await timerDurations(handle)).toEqual([]);
    await handle.signal(apiKeyRevokedSignal);
    expect(await handle.result()).toBe('revoked');
    expect(calls).toEqual([]);
  });

  test('a key whose expiry has passed by the start is marked expired at once, with no timer', async () => {
    const { handle, calls } = await start(-DAY);
    expect(await handle.result()).toBe('expired');
    expect(described(calls)).toEqual(['markApiKeyExpired("key_1")']);
    expect(await timerDurations(handle)).toEqual([]);
  });
});
