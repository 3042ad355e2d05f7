import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChurnBatch, ChurnOutcome } from '../../activities/sandbox-churn.ts';
import type { certificationRun } from '../../workflows/certification.ts';
import { sandboxChurnStopSignal } from '../../workflows/definitions.ts';
import type { sandboxChurn } from '../../workflows/sandbox-churn.ts';
import { CERTIFICATION_INPUT, certificationStandIns } from '../support/certification-stand-ins.ts';
import { recordHistory } from '../support/time-skipping.ts';
import { activityKinds, made, startStandInWorker, type StandInWorker } from '../support/workflow-stand-ins.ts';

// Runs of the sandbox churn and the certification run with stand-in activities, whose histories
// RECORD_HISTORIES=1 stores under test/histories for the replay test (test/workflows/replay.test.ts).
// The stand-ins answer what the real activities answer in shape; the replay compares commands.

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

describe('histories recorded with stand-in activities', () => {
  test('sandbox churn: batches until a stop signal, then it ends with its progress', async () => {
    const { workflowId, calls } = worker.workflow({
      applySandboxChurn: (batch: ChurnBatch): ChurnOutcome => {
        const applied: ChurnOutcome['applied'] = {};
        for (const change of batch.changes) applied[change.kind] = (applied[change.kind] ?? 0) + 1;
        return { applied, skipped: {} };
      },
    });
    const handle = await worker.env.client.workflow.start<typeof sandboxChurn>('sandboxChurn', {
      workflowId,
      taskQueue: worker.taskQueue,
      args: [{ seed: 5, rate: 4, channels: ['sandbox-travel'] }],
    });
    await made(calls, 2);
    await handle.signal(sandboxChurnStopSignal);
    const progress = await handle.result();
    expect(progress.next).toBe(calls.length * 4);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    await recordHistory(handle, 'sandbox-churn-stopped');
  });

  test('certification run: probes, triggers, throttle, owner hand-off, then the judge answers passed', async () => {
    const { workflowId } = worker.workflow(certificationStandIns());
    const handle = await worker.env.client.workflow.start<typeof certificationRun>('certificationRun', {
      workflowId,
      taskQueue: worker.taskQueue,
      args: [CERTIFICATION_INPUT],
    });
    expect(await handle.result()).toBe('passed');
    const { scheduled } = await activityKinds(handle);
    expect(scheduled.at(-1)).toBe('judgeCertification');
    await recordHistory(handle, 'certification-run-passed');
  });
});
