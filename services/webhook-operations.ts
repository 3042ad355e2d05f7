import { findChannelByName } from '../db/channels.ts';
import { timeFactorOfEndpoint } from '../db/webhook-endpoints.ts';
import {
  attemptWindows,
  operatorDeliveries,
  operatorDelivery,
  operatorEndpoint,
  type AttemptWindow,
  type OperatorDelivery,
  type OperatorEndpoint,
} from '../db/webhook-operator-reads.ts';
import { toInstant } from '../domain/time.ts';
import { endpointHost } from '../domain/webhooks/endpoints.ts';
import { ATTEMPT_LIMIT_MS, RETRY_SPAN_MS } from '../domain/webhooks/retry-schedule.ts';
import type { DeliveryOutcome, DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import { CURRENT_DELIVERY, type RetryNowResult } from '../workflows/definitions.ts';
import type { DeliveryInput } from '../workflows/webhook-delivery.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

// The operator's view of webhook deliveries across channels (the CLI's `delivery` and `endpoint`
// commands): what is stuck, a retry made now, an endpoint's recent attempts.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** `delivery list` without `--since`: the last 7 days (the retry span, `RETRY_SPAN_MS`, and room for an outage). */
export const LIST_SINCE_DEFAULT_MS = 7 * DAY_MS;
export const LIST_LIMIT_DEFAULT = 100;
export const LIST_LIMIT_MAX = 1_000;
/** `delivery list` without `--state`: every delivery that has not (yet) been delivered. */
export const UNDELIVERED_STATES: readonly DeliveryWorkflowState[] = [
  'pending',
  'retrying',
  'failed',
  'gone',
  'cancelled',
];

export interface DeliveryListQuery {
  channel?: string | undefined;
  endpointId?: string | undefined;
  states?: readonly DeliveryWorkflowState[] | undefined;
  since?: Date | undefined;
  limit?: number | undefined;
}

/** Deliveries matching the query, newest first, at most `limit`; `more` when others match too. */
export async function listOperatorDeliveries(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  query: DeliveryListQuery,
): Promise<{ deliveries: OperatorDelivery[]; more: boolean; since: Date; limit: number }> {
  const em = deps.orm.em.fork();
  if (query.channel !== undefined && !(await findChannelByName(em, query.channel)))
    throw new Refusal(`no channel named "${query.channel}"`);
  if (query.endpointId !== undefined && !(await operatorEndpoint(em, query.endpointId)))
    throw new Refusal(`no webhook endpoint with id "${query.endpointId}"`);
  const since = query.since ?? new Date(deps.clock.now().getTime() - LIST_SINCE_DEFAULT_MS);
  const limit = query.limit ?? LIST_LIMIT_DEFAULT;
  const rows = await operatorDeliveries(em, {
    since,
    states: query.states ?? UNDELIVERED_STATES,
    channelName: query.channel,
    endpointId: query.endpointId,
    limit: limit + 1,
  });
  return { deliveries: rows.slice(0, limit), more: rows.length > limit, since, limit };
}

/** How long `delivery retry` waits for its attempt: the longest one try may take, and a margin. */
export const RETRY_WAIT_MS = ATTEMPT_LIMIT_MS + 15_000;

/** What `delivery retry` did: the attempt it made, what it did, and the delivery as it is after it. */
export interface DeliveryRetried {
  delivery: OperatorDelivery;
  retry: {
    /** The number of the attempt made now. */
    attempt: number;
    /** When it was due by the schedule; null for a delivery driven again (its run had ended). */
    dueAt: string | null;
    /** What the attempt did; null when the run's answer did not say (it answered before its attempt). */
    result: RetryNowResult | null;
    /** True when the delivery's run had ended without it (terminated, lost) and a new one was started. */
    drivenAgain: boolean;
  };
}

/**
 * Makes a delivery waiting for its next attempt (`retrying`) attempt now, through its workflow, so
 * the attempt and what follows it keep the workflow's rules: one attempt at a time, the same
 * `webhook-id`, the schedule going on from that attempt's number. The request names the attempt
 * (the row's `attempts` + 1): a second request while it is made joins it rather than making
 * another. Waits for the attempt (`RETRY_WAIT_MS`) and answers what it did.
 *
 * A delivery still `pending` or `retrying` whose workflow has no running run (terminated, or lost
 * with its namespace) is driven again: a new run of its workflow makes the next attempt at once,
 * and the schedule goes on from it, within the retry span (`RETRY_SPAN_MS`) of that attempt. Refused for a delivery in any
 * other state, or whose workflow is not waiting (an attempt under way).
 */
export async function retryDeliveryNow(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log'>,
  deliveryId: string,
  waitMs = RETRY_WAIT_MS,
): Promise<DeliveryRetried> {
  const before = await operatorDelivery(deps.orm.em.fork(), deliveryId);
  if (!before) throw new Refusal(`no delivery with id "${deliveryId}"`);
  if (before.state !== 'retrying' && before.state !== 'pending')
    throw new Refusal(
      `delivery ${deliveryId} is ${before.state}: only a delivery waiting for its next attempt (retrying) can be attempted now`,
    );
  const attempt = before.attempts + 1;
  const answer = await deps.workflows.retryWebhookDelivery(before.endpointId, before.eventId, attempt, waitMs);
  if ('closed' in answer) return driveAgain(deps, before, waitMs);
  if ('refused' in answer) throw new Refusal(`delivery ${deliveryId} was not retried: ${answer.refused}`);
  if ('cancelled' in answer)
    throw new Refusal(
      `delivery ${deliveryId} was cancelled (its endpoint or channel stopped) while attempt ${attempt} was made`,
    );
  if ('unanswered' in answer)
    throw new Error(
      answer.unanswered === 'no_worker'
        ? `no worker polls task queue ${deps.workflows.taskQueue}: attempt ${attempt} of delivery ${deliveryId} is made when one starts`
        : `attempt ${attempt} of delivery ${deliveryId} did not finish within ${waitMs / 1000} s: it is under way; delivery list shows its outcome once it has one`,
    );
  const retried = answer.answered;
  deps.log.info('delivery retried now by an operator', {
    deliveryId,
    endpointId: before.endpointId,
    attempt: retried.attempt,
    dueAt: retried.dueAt,
    outcome: retried.result?.outcome,
  });
  const after = (await operatorDelivery(deps.orm.em.fork(), deliveryId)) ?? before;
  return {
    delivery: after,
    retry: { attempt: retried.attempt, dueAt: retried.dueAt, result: retried.result ?? null, drivenAgain: false },
  };
}

/** A delivery whose run ended without it: a new run attempts it now; answers once the attempt is recorded. */
async function driveAgain(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log'>,
  before: OperatorDelivery,
  waitMs: number,
): Promise<DeliveryRetried> {
  // A sandbox endpoint's fast retries (only ever set there) go on with the new run.
  const timeFactor = await timeFactorOfEndpoint(deps.orm.em.fork(), before.endpointId);
  const input: DeliveryInput = {
    deliveryId: before.id,
    endpointId: before.endpointId,
    eventId: before.eventId,
    eventType: before.eventType,
    channel: before.channel,
    ...CURRENT_DELIVERY,
    ...(timeFactor === 1 ? {} : { timeFactor }),
  };
  await deps.workflows.startWebhookDelivery(input, endpointHost(before.endpointUrl), { again: true });
  deps.log.info('delivery driven again by an operator: its workflow had no running run', {
    deliveryId: before.id,
    endpointId: before.endpointId,
    attempt: before.attempts + 1,
  });
  const deadline = Date.now() + waitMs;
  for (;;) {
    const after = await operatorDelivery(deps.orm.em.fork(), before.id);
    if (after && (after.attempts > before.attempts || after.state !== before.state)) {
      return {
        delivery: after,
        retry: { attempt: before.attempts + 1, dueAt: null, result: resultFromRow(after), drivenAgain: true },
      };
    }
    if (Date.now() > deadline)
      throw new Error(
        `delivery ${before.id} was started again, and attempt ${before.attempts + 1} did not finish within ${waitMs / 1000} s: delivery list shows its outcome once it has one`,
      );
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** What a recorded attempt did, read back from the delivery's row. */
function resultFromRow(delivery: OperatorDelivery): RetryNowResult {
  const statusCode = delivery.lastAttempt?.statusCode ?? null;
  const outcome: DeliveryOutcome =
    delivery.state === 'delivered'
      ? 'delivered'
      : delivery.state === 'gone'
        ? 'gone'
        : delivery.state === 'cancelled'
          ? 'cancelled'
          : 'failed';
  return {
    outcome,
    statusCode,
    error: delivery.lastAttempt?.error ?? null,
    state: delivery.state,
    nextAttemptAt: delivery.state === 'retrying' && delivery.nextAttemptAt ? toInstant(delivery.nextAttemptAt) : null,
  };
}

/** An endpoint's attempts over the last hour and the last day. */
export async function endpointHealth(
  deps: Pick<ServiceDeps, 'orm' | 'clock'>,
  endpointId: string,
): Promise<{ endpoint: OperatorEndpoint; at: Date; lastHour: AttemptWindow; lastDay: AttemptWindow }> {
  const em = deps.orm.em.fork();
  const endpoint = await operatorEndpoint(em, endpointId);
  if (!endpoint) throw new Refusal(`no webhook endpoint with id "${endpointId}"`);
  const at = deps.clock.now();
  const dayAgo = new Date(at.getTime() - DAY_MS);
  // A delivery is attempted within the retry span of its first attempt, made when it is created;
  // a day more covers a worker that was away meanwhile (its late attempts counted too).
  const createdSince = new Date(dayAgo.getTime() - RETRY_SPAN_MS - DAY_MS);
  const [lastHour, lastDay] = await attemptWindows(em, endpointId, createdSince, [
    new Date(at.getTime() - HOUR_MS),
    dayAgo,
  ]);
  return { endpoint, at, lastHour: lastHour!, lastDay: lastDay! };
}
