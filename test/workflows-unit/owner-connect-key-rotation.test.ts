import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { ownerConnectKeysChangedSignal } from '../../workflows/definitions.ts';
import type {
  OwnerConnectKeyRotationInput,
  ownerConnectKeyRotation,
} from '../../workflows/owner-connect-key-rotation.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import {
  idle,
  made,
  SLACK_MS,
  startStandInWorker,
  type Call,
  type StandInWorker,
} from '../support/workflow-stand-ins.ts';

const HOUR = 3_600_000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

/** Starts the rotation; the stand-in answers that the next step falls due `stepMs` after the instant it was given. */
async function start(input: OwnerConnectKeyRotationInput, stepMs = 24 * HOUR) {
  const { workflowId, calls } = worker.workflow({
    advanceOwnerConnectKeys: (atMs) => ({ applied: [], nextAtMs: atMs + stepMs }),
  });
  const handle = await worker.env.client.workflow.start<typeof ownerConnectKeyRotation>('ownerConnectKeyRotation', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [input],
  });
  return { handle, calls };
}

describe('ownerConnectKeyRotation with stand-in activities', () => {
  test('each wake applies the schedule for the workflow time it woke at, with the period, then sleeps until the step the activity names; SvcState rotating', async () => {
    const { handle, calls } = await start({ rotationDays: 30 });
    await made(calls, 1);
    expect(calls[0]!.args).toEqual([expect.any(Number), 30]);
    expect(Math.abs((calls[0]!.args[0] as number) - calls[0]!.atMs)).toBeLessThan(SLACK_MS);
    await worker.env.sleep(24 * HOUR - 60_000);
    expect(calls).toHaveLength(1);
    await worker.env.sleep(2 * 60_000);
    await made(calls, 2);
    const [first, second] = calls as [Call, Call];
    expect(second.args[1]).toBe(30);
    expect(second.args[0] as number).toBeGreaterThanOrEqual((first.args[0] as number) + 24 * HOUR);
    expect((second.args[0] as number) - (first.args[0] as number)).toBeLessThan(24 * HOUR + SLACK_MS);
    expect((await handle.describe()).typedSearchAttributes.get(SA_STATE)).toBe('rotating');
    await idle(handle);
    await handle.terminate();
  });

  test('a signal with a new period makes it plan again at once with that period; one without a period (an early rotation) keeps it', async () => {
    const { handle, calls } = await start({ rotationDays: 30 });
    await made(calls, 1);
    await handle.signal(ownerConnectKeysChangedSignal, { rotationDays: 7 });
    await made(calls, 2);
    await handle.signal(ownerConnectKeysChangedSignal, undefined);
    await made(calls, 3);
    expect(calls.map((c) => c.args[1])).toEqual([30, 7, 7]);
    // None of them waited for the 24-hour step.
    expect(calls[2]!.atMs - calls[0]!.atMs).toBeLessThan(HOUR);
    await idle(handle);
    await handle.terminate();
  });

  test('after wakesPerRun wakes it continues as new, carrying the signalled period, and the new run plans at once', async () => {
    const { handle, calls } = await start({ rotationDays: 30, wakesPerRun: 2 }, HOUR);
    await made(calls, 1);
    await handle.signal(ownerConnectKeysChangedSignal, { rotationDays: 7 });
    await made(calls, 2);
    // The second wake's one-hour sleep ends the run.
    await worker.env.sleep(HOUR + 60_000);
    await made(calls, 3);
    expect(calls.map((c) => c.args[1])).toEqual([30, 7, 7]);
    expect((await handle.describe()).runId).not.toBe(handle.firstExecutionRunId);
    // The new run planned when the old one's last sleep ended (the step the second wake was
    // answered), not a step later.
    const due = (calls[1]!.args[0] as number) + HOUR;
    expect(calls[2]!.atMs).toBeGreaterThanOrEqual(due);
    expect(calls[2]!.atMs - due).toBeLessThan(SLACK_MS);
    await idle(handle);
    await handle.terminate();
  });
});
