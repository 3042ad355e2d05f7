import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  JITTER_FRACTION,
  NOMINAL_DELAYS_MS,
  planRetries,
  RETRY_SPAN_MS,
  STEADY_DELAY_MS,
} from '../../domain/webhooks/retry-schedule.ts';
import { SANDBOX_TIME_FACTOR } from '../../domain/webhooks/time-factor.ts';
import { SA_STATE } from '../../workflows/search-attributes.ts';
import type { DeliveryInput, webhookDelivery } from '../../workflows/webhook-delivery.ts';
import {
  described,
  SLACK_MS,
  startStandInWorker,
  timerDurations,
  type StandInWorker,
} from '../support/workflow-stand-ins.ts';

// A sandbox endpoint with fast retries: the same schedule (attempt count, jitter, span rule,
// suspension), its waits divided by the time factor.

const MOST_RETRIES = planRetries(() => 0).length;
const FEWEST_RETRIES = planRetries(() => 1 - Number.EPSILON).length;
const FACTOR = SANDBOX_TIME_FACTOR;

const INPUT: DeliveryInput = {
  deliveryId: 'dlv_fast',
  endpointId: 'whe_fast',
  eventId: 'evt_fast',
  eventType: 'property.distributed',
  channel: 'partner',
  attempts: 'local',
  state: 'always',
  timeFactor: FACTOR,
};

let worker: StandInWorker;
beforeAll(async () => {
  worker = await startStandInWorker();
});
afterAll(() => worker?.stop());

const nominal = (retry: number) => NOMINAL_DELAYS_MS[retry] ?? STEADY_DELAY_MS;

describe('webhookDelivery with a time factor (sandbox fast retries)', () => {
  test('a failing receiver is retried on the schedule with every delay divided by the factor, as many times as the schedule allows, then suspended failing with the contact told', async () => {
    let attempt = 0;
    const { workflowId, calls } = worker.workflow({
      attemptDelivery: () => ({ outcome: 'failed', statusCode: 500, attempt: ++attempt }),
      recordNextAttempt: async () => {},
      finishDelivery: async () => {},
      suspendEndpoint: () => true,
      notifyTechnicalContact: () => ({ sent: true }),
    });
    const handle = await worker.env.client.workflow.start<typeof webhookDelivery>('webhookDelivery', {
      workflowId,
      taskQueue: worker.taskQueue,
      args: [INPUT],
      typedSearchAttributes: [{ key: SA_STATE, value: 'pending' }],
    });
    expect(await handle.result()).toBe('failed');

    const delays = await timerDurations(handle);
    // The same number of retries as the uncompressed schedule can make.
    expect(delays.length).toBeGreaterThanOrEqual(FEWEST_RETRIES);
    expect(delays.length).toBeLessThanOrEqual(MOST_RETRIES);
    // Each delay is its nominal one, jittered, divided by the factor (rounded to whole ms).
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(Math.floor((nominal(i) * (1 - JITTER_FRACTION)) / FACTOR));
      expect(delay).toBeLessThanOrEqual(Math.ceil((nominal(i) * (1 + JITTER_FRACTION)) / FACTOR));
    });
    // The span rule on the compressed clock: within it, and the next retry (at most +20 %) past it.
    const onSchedule = delays.reduce((sum, delay) => sum + delay * FACTOR, 0);
    const rounding = delays.length * FACTOR;
    expect(onSchedule).toBeLessThanOrEqual(RETRY_SPAN_MS + rounding);
    expect(onSchedule + nominal(delays.length) * (1 + JITTER_FRACTION)).toBeGreaterThan(RETRY_SPAN_MS - rounding);
    // The whole walk takes the span divided by the factor: 3 days in about 5 minutes.
    const attempts = calls.filter((c) => c.name === 'attemptDelivery').map((c) => c.atMs);
    expect(attempts).toHaveLength(delays.length + 1);
    expect(attempts.at(-1)! - attempts[0]!).toBeLessThan(RETRY_SPAN_MS / FACTOR + SLACK_MS);
    expect(described(calls.slice(-3))).toEqual([
      'finishDelivery("dlv_fast", "failed")',
      'suspendEndpoint("whe_fast", "failing", "dlv_fast")',
      'notifyTechnicalContact("whe_fast", "failing")',
    ]);
  });
});
