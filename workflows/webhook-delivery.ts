import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { planNextRetry } from '../domain/webhooks/retry-schedule.ts';
import type { DeliveryOutcome, DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import { NOT_WAITING_FOR_RETRY, retryNowUpdate, type RetryNowAnswer } from './definitions.ts';
import { SA_STATE } from './search-attributes.ts';

// One attempt waits at most 10 s for the receiver; the activity gets room for signing and the
// database around it. Infrastructure failures (database down) are retried by Temporal; a failed
// POST is an outcome, not an activity failure, and follows the contract's schedule below.
const ATTEMPT_OPTIONS = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
} as const;
const { attemptDelivery, recordNextAttempt, finishDelivery, suspendEndpoint, notifyTechnicalContact } =
  proxyActivities<Activities>(ATTEMPT_OPTIONS);
// The same attempts as local activities: the 10-second limit fits a local activity's time, and
// one runs inside the workflow task, so the server records one marker instead of an activity's
// scheduled/started/completed events and a second workflow task.
const local = proxyLocalActivities<Activities>(ATTEMPT_OPTIONS);

/** A delivery workflow's input. Every delivery's history holds it: a field may be added, as an optional one. */
export interface DeliveryInput {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  channel: string;
  /**
   * `local`: attempts run as local activities and, without `state`, a first-attempt success
   * leaves `SvcState` as it was. Absent in deliveries started before it.
   */
  attempts?: 'local';
  /**
   * `always`: `SvcState` tells how the delivery ended, a first-attempt success (`delivered`)
   * included (every dispatch since this field exists). Absent in deliveries started before it.
   */
  state?: 'always';
}

function setState(state: DeliveryWorkflowState): void {
  upsertSearchAttributes([{ key: SA_STATE, value: state }]);
}

/**
 * One delivery of one event to one endpoint (workflow id `webhook-delivery:<endpoint>:<event>`).
 * Retries after 1 m, 5 m, 30 m, 2 h, 6 h, then every 12 h, each ±20 %, while the next attempt
 * falls within 3 days of the first; then the endpoint is suspended (`failing`) and its technical
 * contact e-mailed. A 410 suspends it at once (`gone`). Cancelled when the endpoint is deleted or
 * suspended by another delivery.
 *
 * While it waits for a retry, an operator's `retryNow` (Update) makes the next attempt now; the
 * schedule after it goes on from that attempt's number, as it would have.
 *
 * Versions, by input (in the history, so a replay takes the same branch, and no patch marker is
 * recorded): a delivery started with `attempts: 'local'` attempts through local activities, and
 * with `state: 'always'` also sets `SvcState = delivered` when its first attempt delivers (one
 * started before that, still running or replayed, leaves `pending`: see docs/benchmarks.md
 * "Push: the cost of a delivery"). One started without either runs as it always did. The retry
 * wait is a timer in every version (`condition` with a timeout issues the same command as
 * `sleep`), and a `retryNow` that code without its handler got was refused, not recorded, so
 * every history replays whichever version wrote it.
 */
export async function webhookDelivery(input: DeliveryInput): Promise<DeliveryOutcome> {
  const startedAt = Date.now();
  const lean = input.attempts === 'local';
  const attempt = lean ? local.attemptDelivery : attemptDelivery;
  const recordNext = lean ? local.recordNextAttempt : recordNextAttempt;
  /** The retry the delivery waits for, while it waits; `hurried` once an operator asked for it now. */
  let waiting: (RetryNowAnswer & { hurried: boolean }) | null = null;
  setHandler(
    retryNowUpdate,
    () => {
      waiting!.hurried = true;
      return { attempt: waiting!.attempt, dueAt: waiting!.dueAt };
    },
    {
      validator: () => {
        if (!waiting || waiting.hurried)
          throw ApplicationFailure.nonRetryable('the delivery is not waiting for a retry', NOT_WAITING_FOR_RETRY);
      },
    },
  );
  try {
    for (;;) {
      const { outcome, attempt: number } = await attempt(input.deliveryId);
      if (outcome === 'delivered' || outcome === 'cancelled') {
        const quiet = lean && input.state !== 'always' && outcome === 'delivered' && number <= 1;
        if (!quiet) setState(outcome);
        return outcome;
      }
      if (outcome === 'gone') {
        await finishDelivery(input.deliveryId, 'failed');
        if (await suspendEndpoint(input.endpointId, 'gone', input.deliveryId))
          await notifyTechnicalContact(input.endpointId, 'gone');
        setState('gone');
        return 'gone';
      }
      const delay = planNextRetry({
        attemptsMade: number,
        elapsedSinceFirstAttemptMs: Date.now() - startedAt,
        random: Math.random(),
      });
      if (delay === null) {
        await finishDelivery(input.deliveryId, 'failed');
        if (await suspendEndpoint(input.endpointId, 'failing', input.deliveryId))
          await notifyTechnicalContact(input.endpointId, 'failing');
        setState('failed');
        return 'failed';
      }
      setState('retrying');
      const dueAt = new Date(Date.now() + delay).toISOString();
      // Waiting from here: a `retryNow` accepted while the next attempt is being recorded is not lost.
      const wait = { attempt: number + 1, dueAt, hurried: false };
      waiting = wait;
      await recordNext(input.deliveryId, dueAt);
      await condition(() => wait.hurried, delay);
      waiting = null;
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    waiting = null;
    await CancellationScope.nonCancellable(() => finishDelivery(input.deliveryId, 'cancelled'));
    setState('cancelled');
    return 'cancelled';
  }
}
