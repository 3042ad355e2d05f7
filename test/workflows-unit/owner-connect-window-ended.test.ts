import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CONFIRMATION_WINDOW_SECONDS } from '../../domain/owner-connect.ts';
import { endOwnerConnectWindowUpdate } from '../../workflows/definitions.ts';
import type { ownerConnect } from '../../workflows/owner-connect.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import { described, idle, SLACK_MS, startStandInWorker, type StandInWorker } from '../support/workflow-stand-ins.ts';

// The sandbox's expire-now: `endOwnerConnectWindow` (an Update) ends a token's confirmation window early.

const WINDOW_MS = CONFIRMATION_WINDOW_SECONDS * 1000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

describe('ownerConnect with its window ended early', () => {
  test('the Update ends an unconfirmed token at once, marked expired, long before its 3600 seconds; SvcState expired', async () => {
    const { workflowId, calls } = worker.workflow({
      bindOwnerConnection: () => ({ connected_at: '2026-01-01T00:00:00.000Z' }),
      expireOwnerConnectToken: async () => {},
    });
    const startedAt = await worker.env.currentTimeMs();
    const handle = await worker.env.client.workflow.start<typeof ownerConnect>('ownerConnect', {
      workflowId,
      taskQueue: worker.taskQueue,
      args: [
        {
          jti: 'jti_early',
          channel: 'partner',
          ownerId: 'own_1',
          confirmUntil: new Date(startedAt + WINDOW_MS).toISOString(),
        },
      ],
    });
    await idle(handle);
    await handle.executeUpdate(endOwnerConnectWindowUpdate);
    expect(await handle.result()).toBe('expired');
    expect(described(calls)).toEqual(['expireOwnerConnectToken("jti_early")']);
    expect(calls[0]!.atMs - startedAt).toBeLessThan(SLACK_MS);
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('expired');
  });
});
