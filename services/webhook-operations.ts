import { findChannelByName } from '../db/channels.ts';
import {
  attemptWindows,
  operatorDeliveries,
  operatorDelivery,
  operatorEndpoint,
  type AttemptWindow,
  type OperatorDelivery,
  type OperatorEndpoint,
} from '../db/webhook-operator-reads.ts';
import { RETRY_SPAN_MS } from '../domain/webhooks/retry-schedule.ts';
import type { DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import type { RetryNowAnswer } from '../workflows/definitions.ts';
import type { ServiceDeps } from './deps.ts';
import { Refusal } from './refusal.ts';

// The operator's view of webhook deliveries across channels (the CLI's `delivery` and `endpoint`
// commands): what is stuck, a retry made now, an endpoint's recent attempts.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** `delivery list` without `--since`: the last 7 days (the 3-day retry span, and room for an outage). */
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

/**
 * Makes a delivery waiting for its next attempt (`retrying`) attempt now, through its workflow, so
 * the attempt and what follows it keep the workflow's rules: one attempt at a time, the same
 * `webhook-id`, the schedule going on from that attempt's number. Refused for a delivery in any
 * other state, or whose workflow is not waiting (its attempt under way, or ended meanwhile).
 */
export async function retryDeliveryNow(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log'>,
  deliveryId: string,
): Promise<{ delivery: OperatorDelivery; retry: RetryNowAnswer }> {
  const delivery = await operatorDelivery(deps.orm.em.fork(), deliveryId);
  if (!delivery) throw new Refusal(`no delivery with id "${deliveryId}"`);
  if (delivery.state !== 'retrying')
    throw new Refusal(
      `delivery ${deliveryId} is ${delivery.state}: only a delivery waiting for its next attempt (retrying) can be attempted now`,
    );
  const answer = await deps.workflows.retryWebhookDelivery(delivery.endpointId, delivery.eventId);
  if ('refused' in answer)
    throw new Refusal(`delivery ${deliveryId} was not retried: ${answer.refused} (its attempt may be under way)`);
  if ('closed' in answer) throw new Refusal(`delivery ${deliveryId} was not retried: its workflow has ended`);
  if ('unanswered' in answer)
    throw new Error(
      `no worker took the retry of delivery ${deliveryId} within 10 s (is a worker running?); it may still be made when one does`,
    );
  deps.log.info('delivery retried now by an operator', {
    deliveryId,
    endpointId: delivery.endpointId,
    attempt: answer.retried.attempt,
    dueAt: answer.retried.dueAt,
  });
  return { delivery, retry: answer.retried };
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
