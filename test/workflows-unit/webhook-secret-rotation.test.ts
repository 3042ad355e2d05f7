import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SecretRotationInput, webhookSecretRotation } from '../../workflows/webhook-secret-rotation.ts';
import {
  described,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const HOUR = 3_600_000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

async function start(standIns: StandIns, input: SecretRotationInput) {
  const { workflowId, calls } = worker.workflow(standIns);
  const startedAt = await worker.env.currentTimeMs();
  const handle = await worker.env.client.workflow.start<typeof webhookSecretRotation>('webhookSecretRotation', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [input],
  });
  return { handle, calls, startedAt };
}

const destroys = (answer: boolean): StandIns => ({ destroyPreviousSecret: () => answer });

describe('webhookSecretRotation with stand-in activities', () => {
  test('the previous secret is kept through the 24-hour overlap and destroyed when it ends', async () => {
    const { handle, calls, startedAt } = await start(destroys(true), {
      endpointId: 'whe_1',
      generation: 2,
      overlapMs: 24 * HOUR,
    });
    await worker.env.sleep(24 * HOUR - 60_000);
    expect(calls).toEqual([]);
    expect(await handle.result()).toBe('destroyed');
    expect(described(calls)).toEqual(['destroyPreviousSecret("whe_1", 2)']);
    expect(calls[0]!.atMs - startedAt).toBeGreaterThanOrEqual(24 * HOUR);
    expect(calls[0]!.atMs - startedAt).toBeLessThan(24 * HOUR + SLACK_MS);
    expect(await timerDurations(handle)).toEqual([24 * HOUR]);
  });

  test('a rotation that a later one replaced ends superseded', async () => {
    const { handle, calls } = await start(destroys(false), { endpointId: 'whe_1', generation: 2, overlapMs: HOUR });
    expect(await handle.result()).toBe('superseded');
    expect(described(calls)).toEqual(['destroyPreviousSecret("whe_1", 2)']);
  });

  test('without an overlap the previous secret is destroyed at once, with no timer', async () => {
    const { handle, calls } = await start(destroys(true), { endpointId: 'whe_1', generation: 3, overlapMs: 0 });
    expect(await handle.result()).toBe('destroyed');
    expect(described(calls)).toEqual(['destroyPreviousSecret("whe_1", 3)']);
    expect(await timerDurations(handle)).toEqual([]);
  });
});
