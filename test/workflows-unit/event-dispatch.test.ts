import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { eventsCommittedSignal } from '../../workflows/definitions.ts';
import type { EventDispatchInput, eventDispatch } from '../../workflows/event-dispatch.ts';
import {
  activityKinds,
  idle,
  made,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

const SECOND = 1000;

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

/** Each call's batch reports `more` as the list says in turn (false from then on). */
function batches(...more: boolean[]): StandIns {
  let call = 0;
  return { dispatchEvents: () => ({ started: 1, more: more[call++] ?? false }) };
}

async function start(standIns: StandIns, input: EventDispatchInput = { pollSeconds: 30, dispatch: 'local' }) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof eventDispatch>('eventDispatch', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [input],
  });
  return { handle, calls };
}

describe('eventDispatch with stand-in activities', () => {
  test('it dispatches when started, again at once while a batch reports more, then looks again after pollSeconds', async () => {
    const { handle, calls } = await start(batches(true, false));
    await made(calls, 2);
    expect(calls[1]!.atMs - calls[0]!.atMs).toBeLessThan(SLACK_MS);
    await idle(handle);
    expect(await timerDurations(handle)).toEqual([30 * SECOND]);
    await worker.env.sleep(29 * SECOND);
    expect(calls).toHaveLength(2);
    await worker.env.sleep(2 * SECOND);
    await made(calls, 3);
    expect(calls[2]!.atMs - calls[1]!.atMs).toBeGreaterThanOrEqual(30 * SECOND);
    expect(calls[2]!.atMs - calls[1]!.atMs).toBeLessThan(30 * SECOND + SLACK_MS);
    await idle(handle);
    await handle.terminate();
  });

  test('an eventsCommitted signal wakes it before the poll is due', async () => {
    const { handle, calls } = await start(batches());
    await made(calls, 1);
    await idle(handle);
    await worker.env.sleep(10 * SECOND);
    await handle.signal(eventsCommittedSignal);
    await made(calls, 2);
    expect(calls[1]!.atMs - calls[0]!.atMs).toBeGreaterThanOrEqual(10 * SECOND);
    expect(calls[1]!.atMs - calls[0]!.atMs).toBeLessThan(30 * SECOND);
    await idle(handle);
    await handle.terminate();
  });

  test.each([
    ['with dispatch local, as a local activity', { pollSeconds: 30, dispatch: 'local' as const }, [], 1],
    ['without it (started before that field), as an activity task', { pollSeconds: 30 }, ['dispatchEvents'], 0],
  ])('a dispatcher started %s dispatches', async (_label, input, scheduled, markers) => {
    const { handle, calls } = await start(batches(), input);
    await made(calls, 1);
    await idle(handle);
    expect(await activityKinds(handle)).toEqual({ scheduled, markers });
    await handle.terminate();
  });
});
