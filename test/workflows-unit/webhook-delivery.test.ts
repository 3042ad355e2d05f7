import { WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import type { ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  JITTER_FRACTION,
  NOMINAL_DELAYS_MS,
  planRetries,
  RETRY_SPAN_MS,
  STEADY_DELAY_MS,
} from '../../domain/webhooks/retry-schedule.ts';
import {
  NOT_WAITING_FOR_RETRY,
  OTHER_ATTEMPT_DUE,
  retryNowUpdate,
  retryNowUpdateId,
} from '../../workflows/definitions.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import type { DeliveryInput, webhookDelivery } from '../../workflows/webhook-delivery.ts';
import {
  activityKinds,
  described,
  made,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type Call,
  type StandInWorker,
  type StandIns,
} from '../support/workflow-stand-ins.ts';

/** The retries a failing delivery makes at most and at least: every delay at its jitter's low and high ends. */
const MOST_RETRIES = planRetries(() => 0).length;
const FEWEST_RETRIES = planRetries(() => 1 - Number.EPSILON).length;

const MINUTE = 60_000;
const INPUT: DeliveryInput = {
  deliveryId: 'dlv_1',
  endpointId: 'whe_1',
  eventId: 'evt_1',
  eventType: 'property.distributed',
  channel: 'partner',
  attempts: 'local',
  state: 'always',
};

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

/** Answers each attempt with the next outcome of the list (its last one from then on). */
function receiver(outcomes: ('delivered' | 'failed' | 'gone' | 'cancelled')[], suspends = true): StandIns {
  let attempt = 0;
  return {
    attemptDelivery() {
      const outcome = outcomes[Math.min(attempt, outcomes.length - 1)]!;
      attempt += 1;
      return { outcome, statusCode: outcome === 'gone' ? 410 : outcome === 'failed' ? 500 : null, attempt };
    },
    async recordNextAttempt() {},
    async finishDelivery() {},
    suspendEndpoint() {
      return suspends;
    },
    notifyTechnicalContact() {
      return { sent: true };
    },
  };
}

/** Starts a delivery whose activities `standIns` answer, as the dispatcher does (SvcState pending). */
async function start(standIns: StandIns, input: DeliveryInput = INPUT) {
  const { workflowId, calls } = worker.workflow(standIns);
  const handle = await worker.env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
    workflowId,
    taskQueue: worker.taskQueue,
    args: [input],
    typedSearchAttributes: [{ key: SA_STATE, value: 'pending' }],
  });
  return { handle, calls };
}

/** The refusal's type of a rejected Update. */
const refusal = (error: unknown) => {
  expect(error).toBeInstanceOf(WorkflowUpdateFailedError);
  return ((error as WorkflowUpdateFailedError).cause as ApplicationFailure).type;
};

const state = async (handle: WorkflowHandle) => (await handle.describe()).typedSearchAttributes.get(SA_STATE);
const attemptTimes = (calls: Call[]) => calls.filter((c) => c.name === 'attemptDelivery').map((c) => c.atMs);

describe('webhookDelivery with stand-in activities', () => {
  test('a receiver that always fails is attempted on the jittered retry schedule within the retry span, then the delivery fails, the endpoint is suspended failing and its contact told', async () => {
    const { handle, calls } = await start(receiver(['failed']));
    expect(await handle.result()).toBe('failed');

    const delays = await timerDurations(handle);
    expect(delays.length).toBeGreaterThanOrEqual(FEWEST_RETRIES);
    expect(delays.length).toBeLessThanOrEqual(MOST_RETRIES);
    delays.forEach((delay, i) => {
      const nominal = NOMINAL_DELAYS_MS[i] ?? STEADY_DELAY_MS;
      expect(delay).toBeGreaterThanOrEqual(Math.floor(nominal * (1 - JITTER_FRACTION)));
      expect(delay).toBeLessThanOrEqual(Math.ceil(nominal * (1 + JITTER_FRACTION)));
    });
    expect(delays.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(RETRY_SPAN_MS);

    // One attempt, then each retry once its timer has run out, and nothing before.
    const times = attemptTimes(calls);
    expect(times).toHaveLength(delays.length + 1);
    delays.forEach((delay, i) => {
      expect(times[i + 1]! - times[i]!).toBeGreaterThanOrEqual(delay);
      expect(times[i + 1]! - times[i]!).toBeLessThan(delay + SLACK_MS);
    });

    // Each failed attempt records when the next is due; the last ends the delivery.
    const retries = delays.map(() => ['attemptDelivery', 'recordNextAttempt']).flat();
    expect(calls.map((c) => c.name)).toEqual([
      ...retries,
      'attemptDelivery',
      'finishDelivery',
      'suspendEndpoint',
      'notifyTechnicalContact',
    ]);
    calls
      .filter((c) => c.name === 'recordNextAttempt')
      .forEach((c, i) => {
        expect(c.args[0]).toBe('dlv_1');
        expect(Math.abs(Date.parse(c.args[1] as string) - (times[i]! + delays[i]!))).toBeLessThan(SLACK_MS);
      });
    expect(described(calls.slice(-3))).toEqual([
      'finishDelivery("dlv_1", "failed")',
      'suspendEndpoint("whe_1", "failing", "dlv_1")',
      'notifyTechnicalContact("whe_1", "failing")',
    ]);
    expect(await state(handle)).toBe('failed');
    // Attempts and their bookkeeping are local activities: only the closing calls are activity tasks.
    expect((await activityKinds(handle)).scheduled).toEqual([
      'finishDelivery',
      'suspendEndpoint',
      'notifyTechnicalContact',
    ]);
  });

  test('a receiver that fails twice, then answers, is delivered at the third attempt, about 1 m and 5 m after the first two, with SvcState delivered', async () => {
    const { handle, calls } = await start(receiver(['failed', 'failed', 'delivered']));
    expect(await handle.result()).toBe('delivered');
    expect(calls.map((c) => c.name)).toEqual([
      'attemptDelivery',
      'recordNextAttempt',
      'attemptDelivery',
      'recordNextAttempt',
      'attemptDelivery',
    ]);
    const [first, second, third] = attemptTimes(calls);
    expect(second! - first!).toBeGreaterThanOrEqual(0.8 * MINUTE);
    expect(second! - first!).toBeLessThan(1.2 * MINUTE + SLACK_MS);
    expect(third! - second!).toBeGreaterThanOrEqual(4 * MINUTE);
    expect(third! - second!).toBeLessThan(6 * MINUTE + SLACK_MS);
    expect(await state(handle)).toBe('delivered');
  });

  test('a first attempt that delivers is the only call, a local activity, sets no timer, and sets SvcState delivered', async () => {
    const { handle, calls } = await start(receiver(['delivered']));
    expect(await handle.result()).toBe('delivered');
    expect(described(calls)).toEqual(['attemptDelivery("dlv_1")']);
    expect(await timerDurations(handle)).toEqual([]);
    expect(await activityKinds(handle)).toEqual({ scheduled: [], markers: 1 });
    expect(await state(handle)).toBe('delivered');
  });

  test('a delivery dispatched before SvcState was set on a first success (no `state` in its input) still leaves it pending', async () => {
    const { state: _always, ...earlier } = INPUT;
    const { handle, calls } = await start(receiver(['delivered']), earlier);
    expect(await handle.result()).toBe('delivered');
    expect(described(calls)).toEqual(['attemptDelivery("dlv_1")']);
    expect(await activityKinds(handle)).toEqual({ scheduled: [], markers: 1 });
    expect(await state(handle)).toBe('pending');
  });

  test("an operator's retryNow cuts the wait for the second attempt short; the schedule after it goes on from attempt 2 (about 5 m)", async () => {
    const { handle, calls } = await start(receiver(['failed', 'failed', 'delivered']));
    // Time stands still until the result is awaited: the 1-minute retry cannot run out meanwhile.
    await expect.poll(async () => (await timerDurations(handle)).length, { timeout: 10_000 }).toBe(1);
    // The UI's page for the run (its current details) says the last attempt and the next.
    const recordedFirst = () => calls.find((c) => c.name === 'recordNextAttempt')!.args[1];
    const { currentDetails } = await handle.query<{ currentDetails: string }>('__temporal_workflow_metadata');
    expect(currentDetails).toBe(`**attempt 1: failed (HTTP 500)**; next attempt 2 due at ${String(recordedFirst())}.`);
    const answer = await handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 2 }] });
    const [recorded, recordedAfter] = calls.filter((c) => c.name === 'recordNextAttempt');
    // The answer comes once attempt 2 is made: it failed, and attempt 3 is due when it recorded.
    expect(answer).toEqual({
      attempt: 2,
      dueAt: recorded!.args[1],
      result: {
        outcome: 'failed',
        statusCode: 500,
        error: null,
        state: 'retrying',
        nextAttemptAt: recordedAfter!.args[1],
      },
    });
    expect(await handle.result()).toBe('delivered');

    expect(calls.map((c) => c.name)).toEqual([
      'attemptDelivery',
      'recordNextAttempt',
      'attemptDelivery',
      'recordNextAttempt',
      'attemptDelivery',
    ]);
    const [first, second, third] = attemptTimes(calls);
    // The second attempt came at once, not 48-72 s after the first...
    expect(second! - first!).toBeLessThan(SLACK_MS);
    // ...and the third waited the schedule's second delay (5 m ±20 %), not its first.
    const delays = await timerDurations(handle);
    expect(delays).toHaveLength(2);
    expect(delays[0]).toBeGreaterThanOrEqual(0.8 * MINUTE);
    expect(delays[0]).toBeLessThanOrEqual(1.2 * MINUTE);
    expect(delays[1]).toBeGreaterThanOrEqual(4 * MINUTE);
    expect(delays[1]).toBeLessThanOrEqual(6 * MINUTE);
    expect(third! - second!).toBeGreaterThanOrEqual(delays[1]!);
    expect(third! - second!).toBeLessThan(delays[1]! + SLACK_MS);
    expect(await state(handle)).toBe('delivered');
  });

  test('a retryNow for an attempt made already, or under way, is refused: a second request makes no second attempt', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const outcomes = receiver(['failed', 'failed', 'delivered']);
    let attempts = 0;
    const { handle, calls } = await start({
      ...outcomes,
      async attemptDelivery(deliveryId: string) {
        attempts += 1;
        // The hurried second attempt hangs until released, as a receiver that does not answer.
        if (attempts === 2) await held;
        return outcomes.attemptDelivery!(deliveryId);
      },
    });
    await expect.poll(async () => (await timerDurations(handle)).length, { timeout: 10_000 }).toBe(1);
    const first = handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 2 }], updateId: retryNowUpdateId(2) });
    await made(calls, 3);
    // The same attempt asked again while it is made: the same Update id joins the first.
    const again = handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 2 }], updateId: retryNowUpdateId(2) });
    // Asked again under another id: refused once the attempt is made (the delivery then waits for 3).
    const other = handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 2 }] }).then(() => 'accepted', refusal);
    release();
    const [firstAnswer, againAnswer] = await Promise.all([first, again]);
    expect(againAnswer).toEqual(firstAnswer);
    expect(firstAnswer.result).toMatchObject({ outcome: 'failed', state: 'retrying' });
    expect(await other).toBe(OTHER_ATTEMPT_DUE);
    // While it waits for attempt 3, a retryNow naming attempt 2 is refused too.
    expect(await handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 2 }] }).then(() => 'accepted', refusal)).toBe(
      OTHER_ATTEMPT_DUE,
    );
    expect(calls.filter((c) => c.name === 'attemptDelivery')).toHaveLength(2);
    // Attempt 3 comes by the schedule (5 m ±20 % after attempt 2), not at once.
    expect(await handle.result()).toBe('delivered');
    const delays = await timerDurations(handle);
    expect(delays[1]).toBeGreaterThanOrEqual(4 * MINUTE);
  });

  test('retryNow is refused, and nothing recorded, when the delivery is not waiting for a retry', async () => {
    // Its first attempt under way, held by the stand-in until released. (An attempt as an activity
    // task, as deliveries dispatched before local attempts make it: a local one would hold the
    // workflow task, and the update with it, until the attempt ended.)
    const { attempts: _local, ...earlier } = INPUT;
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    const { handle, calls } = await start(
      {
        ...receiver(['delivered']),
        async attemptDelivery() {
          await held;
          return { outcome: 'delivered', statusCode: 204, attempt: 1 };
        },
      },
      earlier,
    );
    await made(calls, 1);
    expect(await handle.executeUpdate(retryNowUpdate, { args: [{ attempt: 1 }] }).then(() => 'accepted', refusal)).toBe(
      NOT_WAITING_FOR_RETRY,
    );
    answer();
    expect(await handle.result()).toBe('delivered');
    const events = (await handle.fetchHistory()).events ?? [];
    expect(events.filter((e) => e.workflowExecutionUpdateAcceptedEventAttributes)).toEqual([]);
  });

  test('a 410 fails the delivery, suspends the endpoint gone and tells its contact, without a retry', async () => {
    const { handle, calls } = await start(receiver(['gone']));
    expect(await handle.result()).toBe('gone');
    expect(described(calls)).toEqual([
      'attemptDelivery("dlv_1")',
      'finishDelivery("dlv_1", "failed")',
      'suspendEndpoint("whe_1", "gone", "dlv_1")',
      'notifyTechnicalContact("whe_1", "gone")',
    ]);
    expect(await timerDurations(handle)).toEqual([]);
    expect(await state(handle)).toBe('gone');
  });

  test('when another delivery suspended the endpoint first, the contact is not told again', async () => {
    const { handle, calls } = await start(receiver(['gone'], false));
    expect(await handle.result()).toBe('gone');
    expect(calls.map((c) => c.name)).toEqual(['attemptDelivery', 'finishDelivery', 'suspendEndpoint']);
  });

  test('an attempt that finds the delivery cancelled (endpoint inactive, channel suspended) ends it cancelled', async () => {
    const { handle, calls } = await start(receiver(['cancelled']));
    expect(await handle.result()).toBe('cancelled');
    expect(described(calls)).toEqual(['attemptDelivery("dlv_1")']);
    expect(await state(handle)).toBe('cancelled');
  });

  test('a delivery cancelled while it waits for its retry records itself cancelled and attempts no more', async () => {
    const { handle, calls } = await start(receiver(['failed']));
    // Time stands still until the result is awaited: the 1-minute retry cannot run out meanwhile.
    await expect.poll(async () => (await timerDurations(handle)).length, { timeout: 10_000 }).toBe(1);
    await handle.cancel();
    expect(await handle.result()).toBe('cancelled');
    expect(described(calls)).toEqual([
      'attemptDelivery("dlv_1")',
      expect.stringMatching(/^recordNextAttempt\("dlv_1", "/),
      'finishDelivery("dlv_1", "cancelled")',
    ]);
    expect(await state(handle)).toBe('cancelled');
  });

  test('a delivery started before attempts were local activities attempts through activity tasks and sets SvcState even on a first success', async () => {
    const { attempts: _local, ...earlier } = INPUT;
    const { handle, calls } = await start(receiver(['delivered']), earlier);
    expect(await handle.result()).toBe('delivered');
    expect(described(calls)).toEqual(['attemptDelivery("dlv_1")']);
    expect(await activityKinds(handle)).toEqual({ scheduled: ['attemptDelivery'], markers: 0 });
    expect(await state(handle)).toBe('delivered');
  });
});
