import {
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import { ATTEMPT_LIMIT_MS, planNextRetry } from '../domain/webhooks/retry-schedule.ts';
import type { DeliveryOutcome, DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import { compressedDelayMs, scheduleElapsedMs } from '../domain/webhooks/time-factor.ts';
import {
  NOT_WAITING_FOR_RETRY,
  OTHER_ATTEMPT_DUE,
  retryNowUpdate,
  type RetryNowAnswer,
  type RetryNowRequest,
  type RetryNowResult,
} from './definitions.ts';
import { SA_STATE } from './search-attributes.ts';

// One attempt waits at most 10 s for the receiver; the activity gets room for signing and the
// database around it. Infrastructure failures (database down) are retried by Temporal; a failed
// POST is an outcome, not an activity failure, and follows the contract's schedule below.
const ATTEMPT_OPTIONS = {
  startToCloseTimeout: ATTEMPT_LIMIT_MS,
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
  /**
   * Sandbox only (an endpoint with fast retries): the retry schedule's waits run this many times
   * faster (domain/webhooks/time-factor.ts); delays and the span check use that clock. Absent: 1.
   */
  timeFactor?: number;
}

/** What one attempt answers the workflow. */
type AttemptMade = Awaited<ReturnType<Activities['attemptDelivery']>>;

function setState(state: DeliveryWorkflowState): void {
  upsertSearchAttributes([{ key: SA_STATE, value: state }]);
}

/**
 * The patch under which a `retryNow` answers once its attempt is made (what it did, what comes
 * next) rather than at once. Its marker is recorded when the Update is accepted; a run hurried
 * before it replays the answer it gave then.
 */
export const RETRY_NOW_ANSWERS_ATTEMPT = 'retry-now-answers-attempt';

/** A wait for the next attempt; `hurried` once an operator's `retryNow` asked for it now. */
interface Wait {
  attempt: number;
  dueAt: string;
  hurried: boolean;
  /** Set by a `retryNow` that waits for the attempt's result (the patch above). */
  answer?: { result?: RetryNowResult; taken: boolean };
}

/**
 * One delivery of one event to one endpoint (workflow id `webhook-delivery:<endpoint>:<event>`).
 * Retries on the contract's schedule (`planNextRetry`, domain/webhooks/retry-schedule.ts) while the
 * next attempt falls within the retry span of the first; then the endpoint is suspended (`failing`) and its technical
 * contact e-mailed. A 410 suspends it at once (`gone`). Cancelled when the endpoint is deleted or
 * suspended by another delivery.
 *
 * While it waits for a retry, an operator's `retryNow` (Update) makes the next attempt now and
 * answers what it did; the schedule after it goes on from that attempt's number, as it would
 * have. The answer is handed over at a point of the run's own choosing: the attempt's result is
 * set, and the run issues nothing more until the Update has completed (`condition` waits for every
 * pending promise to settle first). So the Update's completion has one place among the commands,
 * however many awaits the interceptors around the handler add (docs/decisions.md "One workflow
 * code path").
 *
 * Versions, by input (in the history, so a replay takes the same branch, and no patch marker is
 * recorded): a sandbox delivery with `timeFactor` waits its schedule compressed; a delivery started with `attempts: 'local'` attempts through local activities, and
 * with `state: 'always'` also sets `SvcState = delivered` when its first attempt delivers (one
 * started before that, still running or replayed, leaves `pending`: see docs/benchmarks.md
 * "Push: the cost of a delivery"). One started without either runs as it always did. The retry
 * wait is a timer in every version (`condition` with a timeout issues the same command as
 * `sleep`), and a `retryNow` that code without its handler got was refused, not recorded, so
 * every history replays whichever version wrote it. The `retryNow` that waits for its attempt is
 * the one patch (`RETRY_NOW_ANSWERS_ATTEMPT`).
 */
export async function webhookDelivery(input: DeliveryInput): Promise<DeliveryOutcome> {
  const startedAt = Date.now();
  const factor = input.timeFactor ?? 1;
  /** Real time spent waiting for retries: the part of the run a time factor compresses. */
  let waitedMs = 0;
  const lean = input.attempts === 'local';
  const attempt = lean ? local.attemptDelivery : attemptDelivery;
  const recordNext = lean ? local.recordNextAttempt : recordNextAttempt;
  /** The retry the delivery waits for, while it waits, and until a hurried one has been made. */
  let waiting: Wait | null = null;
  setHandler(
    retryNowUpdate,
    async (): Promise<RetryNowAnswer> => {
      const wait = waiting!;
      wait.hurried = true;
      const asked = { attempt: wait.attempt, dueAt: wait.dueAt };
      if (!patched(RETRY_NOW_ANSWERS_ATTEMPT)) return asked;
      const answer: NonNullable<Wait['answer']> = { taken: false };
      wait.answer = answer;
      await condition(() => answer.result !== undefined);
      answer.taken = true;
      return { ...asked, result: answer.result! };
    },
    {
      validator: (request?: RetryNowRequest) => {
        if (!waiting)
          throw ApplicationFailure.nonRetryable('the delivery is not waiting for a retry', NOT_WAITING_FOR_RETRY);
        if (waiting.hurried)
          throw ApplicationFailure.nonRetryable(
            `attempt ${waiting.attempt} is under way, asked for by an earlier retry`,
            NOT_WAITING_FOR_RETRY,
          );
        if (request && request.attempt !== waiting.attempt)
          throw ApplicationFailure.nonRetryable(
            `the delivery waits for attempt ${waiting.attempt}, not ${request.attempt}`,
            OTHER_ATTEMPT_DUE,
          );
      },
    },
  );
  /** Hands a waiting `retryNow` what its attempt did; resolves once the Update has completed. */
  async function answerHurried(result: RetryNowResult): Promise<void> {
    const answer = waiting?.answer;
    waiting = null;
    if (!answer) return;
    answer.result = result;
    await condition(() => answer.taken);
  }
  try {
    for (;;) {
      const made = await attempt(input.deliveryId);
      const { outcome, attempt: number } = made;
      // What comes next is decided before anything is issued: a hurried attempt's answer says it.
      const planned =
        outcome === 'failed'
          ? planNextRetry({
              attemptsMade: number,
              elapsedSinceFirstAttemptMs: scheduleElapsedMs(Date.now() - startedAt, waitedMs, factor),
              random: Math.random(),
            })
          : null;
      const delay = planned === null ? null : compressedDelayMs(planned, factor);
      const dueAt = delay === null ? null : new Date(Date.now() + delay).toISOString();
      const next: DeliveryWorkflowState = dueAt === null ? outcome : 'retrying';
      describeAttempt(made, next, dueAt);
      await answerHurried({
        outcome,
        statusCode: made.statusCode,
        error: made.error ?? null,
        state: next,
        nextAttemptAt: dueAt,
      });
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
      if (delay === null || dueAt === null) {
        await finishDelivery(input.deliveryId, 'failed');
        if (await suspendEndpoint(input.endpointId, 'failing', input.deliveryId))
          await notifyTechnicalContact(input.endpointId, 'failing');
        setState('failed');
        return 'failed';
      }
      setState('retrying');
      // Waiting from here: a `retryNow` accepted while the next attempt is being recorded is not lost.
      const wait: Wait = { attempt: number + 1, dueAt, hurried: false };
      waiting = wait;
      await recordNext(input.deliveryId, dueAt);
      const waitFrom = Date.now();
      await condition(() => wait.hurried, delay);
      waitedMs += Date.now() - waitFrom;
      if (!wait.answer) waiting = null;
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    waiting = null;
    await CancellationScope.nonCancellable(() => finishDelivery(input.deliveryId, 'cancelled'));
    setState('cancelled');
    return 'cancelled';
  }
}

/**
 * The run's current details (the Temporal UI's workflow page, `temporal workflow describe`): the
 * last attempt's outcome and what comes next. Not a command: nothing of it is in the history.
 */
function describeAttempt(made: AttemptMade, next: DeliveryWorkflowState, dueAt: string | null): void {
  const answer = made.statusCode !== null ? `HTTP ${made.statusCode}` : (made.error ?? 'no answer');
  const what =
    made.outcome === 'cancelled'
      ? 'ended: the delivery was cancelled'
      : `attempt ${made.attempt}: ${made.outcome} (${answer})`;
  const then = next === 'retrying' ? `next attempt ${made.attempt + 1} due at ${dueAt}` : `SvcState ${next}`;
  setCurrentDetails(`**${what}**; ${then}.`);
}
