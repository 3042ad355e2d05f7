import { ApplicationFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChurnBatch, ChurnOutcome } from '../../activities/sandbox-churn.ts';
import { churnChanges } from '../../domain/sandbox/churn.ts';
import { sandboxChurnRateSignal, sandboxChurnStopSignal } from '../../workflows/definitions.ts';
import { CHURN_BATCH_MAX, type sandboxChurn, type SandboxChurnInput } from '../../workflows/sandbox-churn.ts';
import {
  made,
  startStandInWorker,
  timerDurations,
  type Call,
  type StandIns,
  type StandInWorker,
} from '../support/workflow-stand-ins.ts';

// The churn's pace, its rate signal, its stop and its change list, with a stand-in for the
// activity that applies a batch: it counts each change applied.

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const applying = {
  applySandboxChurn: (batch: ChurnBatch): ChurnOutcome => {
    const applied: ChurnOutcome['applied'] = {};
    for (const change of batch.changes) applied[change.kind] = (applied[change.kind] ?? 0) + 1;
    return { applied, skipped: {} };
  },
};

async function start(input: Partial<SandboxChurnInput>, standIns: StandIns = applying) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof sandboxChurn>('sandboxChurn', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [{ seed: 5, rate: 10, channels: ['sandbox-travel'], ...input }],
  });
  return { handle, calls };
}

const batches = (calls: Call[]) =>
  calls.filter((call) => call.name === 'applySandboxChurn').map((call) => call.args[0] as ChurnBatch);

describe('sandboxChurn with a stand-in activity', () => {
  test('batches of one second of the rate, each followed by a timer of the time its changes take at the rate', async () => {
    const { handle, calls } = await start({ rate: 10, until: 45 });
    const progress = await handle.result();
    expect(progress.next).toBe(45);
    expect(batches(calls).map((b) => b.changes.length)).toEqual([10, 10, 10, 10, 5]);
    const timers = await timerDurations(handle);
    expect(timers).toHaveLength(4);
    for (const ms of timers) expect(ms).toBeGreaterThan(500);
    for (const ms of timers) expect(ms).toBeLessThanOrEqual(1_000);
    // Over the run: no faster than the rate (a call is recorded when its activity starts, which a
    // busy machine may delay by a few hundred milliseconds after the workflow scheduled it).
    const span = calls.at(-1)!.atMs - calls[0]!.atMs;
    expect(span).toBeGreaterThanOrEqual(4 * 1_000 - 500);
    // Every change counted once, by kind.
    expect(Object.values(progress.applied).reduce((a, b) => a + b, 0)).toBe(45);
  });

  test("the changes are the seed's, numbered on from batch to batch and across continue-as-new", async () => {
    const { handle, calls } = await start({ seed: 9, rate: 20, until: 70, batchesPerRun: 2, next: 10 });
    expect((await handle.result()).next).toBe(70);
    const changes = batches(calls).flatMap((b) => b.changes);
    expect(changes).toEqual(churnChanges(9, 10, 60));
    expect(batches(calls).every((b) => b.channels.join() === 'sandbox-travel')).toBe(true);
    // Two runs continued as new: the progress went with the input.
    const { runId } = await handle.describe();
    expect(runId).not.toBe(handle.firstExecutionRunId);
  });

  test('a new rate signalled while it runs sets the size of the next batches', async () => {
    const { handle, calls } = await start({ rate: 5 });
    await made(calls, 2);
    await handle.signal(sandboxChurnRateSignal, 40);
    await made(calls, 5);
    const sizes = batches(calls).map((b) => b.changes.length);
    expect(sizes[0]).toBe(5);
    // A second of the new rate; more when the last batch's second ran long in real time.
    expect(sizes.at(-1)).toBeGreaterThanOrEqual(40);
    expect(sizes.at(-1)).toBeLessThanOrEqual(CHURN_BATCH_MAX);
    await handle.signal(sandboxChurnStopSignal);
    await handle.result();
  });

  test('a batch that took longer than its second is followed by a larger one, so the average keeps the rate', async () => {
    let first = true;
    const slowOnce = {
      applySandboxChurn: async (batch: ChurnBatch): Promise<ChurnOutcome> => {
        if (first) await new Promise((resolve) => setTimeout(resolve, 2_500));
        first = false;
        return applying.applySandboxChurn(batch);
      },
    };
    const { handle, calls } = await start({ rate: 4, until: 40 }, slowOnce);
    await handle.result();
    const sizes = batches(calls).map((b) => b.changes.length);
    expect(sizes[0]).toBe(4);
    // The first batch took 2.5 s of real (and so workflow) time: the next is about 2.5 s of the rate.
    expect(sizes[1]).toBeGreaterThanOrEqual(10);
    expect(sizes[2]).toBe(4);
  });

  test('stopped, it ends after its batch with its progress, in its memo too', async () => {
    const { handle, calls } = await start({ rate: 4 });
    await made(calls, 3);
    await handle.signal(sandboxChurnStopSignal);
    const progress = await handle.result();
    expect(progress.next).toBe(batches(calls).length * 4);
    expect(progress.rate).toBe(4);
    const { memo } = await handle.describe();
    expect((memo?.progress as { next: number }).next).toBe(progress.next);
  });

  test("a production worker's refusal ends it at once, failed, with no retry", async () => {
    const refusing = {
      applySandboxChurn: (): ChurnOutcome => {
        throw ApplicationFailure.nonRetryable('the sandbox churn runs only in a sandbox deployment', 'SandboxOnly');
      },
    };
    const { handle, calls } = await start({ rate: 10 }, refusing);
    const failure = await handle.result().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause?.cause).toMatchObject({ type: 'SandboxOnly' });
    expect(calls).toHaveLength(1);
  });
});
