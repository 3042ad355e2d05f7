import { endTokenWindow, findToken } from '../db/owner-connect.ts';
import { waitingDeliveries } from '../db/webhook-deliveries.ts';
import { endpointTimeFactor, setEndpointTimeFactor } from '../db/webhook-endpoints.ts';
import { confirmationRefusal } from '../domain/owner-connect.ts';
import { ProblemError } from '../domain/problems.ts';
import { RETRY_SPAN_MS } from '../domain/webhooks/retry-schedule.ts';
import { SANDBOX_TIME_FACTOR } from '../domain/webhooks/time-factor.ts';
import type { ServiceDeps } from './deps.ts';
import type { ChannelCaller } from './owner-connect/connection.ts';
import { verifyOwnerConnectToken } from './owner-connect/verify.ts';

// The sandbox's time tools: a channel's waiting deliveries attempted now, an endpoint's retry
// schedule run faster, an owner-connect token's confirmation window ended now. Every one is
// refused outside a sandbox deployment, whoever calls it: production never moves a clock.

/** Deliveries one attempt-now hurries at most; `more` says when others wait. */
export const ATTEMPT_NOW_LIMIT = 100;
/** Hurried at once: each is one Update, answered when its run accepted it. */
const HURRY_CONCURRENCY = 8;
const DAY_MS = 24 * 3_600_000;

type Deps = Pick<ServiceDeps, 'orm' | 'stores' | 'workflows' | 'clock' | 'config' | 'log'>;

/** Outside a sandbox these operations do not exist: the same 404 as an unknown path. */
function sandboxOnly(deps: Pick<ServiceDeps, 'config'>): void {
  if (deps.config.environment !== 'sandbox') throw new ProblemError('not_found');
}

export interface HurriedDelivery {
  deliveryId: string;
  webhookId: string;
  /** The number of the attempt being made now. */
  attempt: number;
  /** When the schedule had it due. */
  wasDueAt: Date | null;
}

/**
 * Makes the channel's deliveries waiting for their next attempt (of one endpoint, given
 * `webhookId`) attempt now, soonest due first, at most ATTEMPT_NOW_LIMIT: each through its
 * workflow's `retryNow`, as an operator's `delivery retry`, so the attempt keeps the workflow's
 * rules and the schedule goes on from it. A delivery whose attempt is already under way, or whose
 * run has ended, is not hurried (and not listed).
 */
export async function attemptWaitingNow(
  deps: Deps,
  channel: ChannelCaller,
  webhookId?: string,
): Promise<{ hurried: HurriedDelivery[]; more: boolean }> {
  sandboxOnly(deps);
  const em = deps.orm.em.fork();
  if (webhookId !== undefined && (await endpointTimeFactor(em, channel.channelId, webhookId)) === null)
    throw new ProblemError('not_found');
  // A delivery waits within the retry span of its first attempt, made when it is created; a day
  // more covers a worker that was away meanwhile.
  const since = new Date(deps.clock.now().getTime() - RETRY_SPAN_MS - DAY_MS);
  const waiting = await waitingDeliveries(em, {
    channelId: channel.channelId,
    endpointId: webhookId,
    since,
    limit: ATTEMPT_NOW_LIMIT + 1,
  });
  const batch = waiting.slice(0, ATTEMPT_NOW_LIMIT);
  const hurried: (HurriedDelivery | null)[] = new Array<HurriedDelivery | null>(batch.length).fill(null);
  let next = 0;
  const lane = async () => {
    while (next < batch.length) {
      const index = next++;
      const delivery = batch[index]!;
      const attempt = delivery.attempts + 1;
      const outcome = await deps.workflows.hurryWebhookDelivery(delivery.endpointId, delivery.eventId, attempt);
      if ('accepted' in outcome)
        hurried[index] = {
          deliveryId: delivery.id,
          webhookId: delivery.endpointId,
          attempt,
          wasDueAt: delivery.nextAttemptAt,
        };
    }
  };
  await Promise.all(Array.from({ length: Math.min(HURRY_CONCURRENCY, batch.length) }, lane));
  const made = hurried.filter((delivery) => delivery !== null);
  deps.log.info('sandbox deliveries attempted now', { channel: channel.channelName, hurried: made.length });
  return { hurried: made, more: waiting.length > ATTEMPT_NOW_LIMIT };
}

/** An endpoint's fast retries: its factor (1 when off). */
export interface FastRetries {
  webhookId: string;
  timeFactor: number;
}

/**
 * Turns an endpoint's fast retries on or off: deliveries dispatched to it from now on run the
 * retry schedule SANDBOX_TIME_FACTOR times faster (a delivery keeps the factor it started with).
 */
export async function setFastRetries(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'config'>,
  channel: ChannelCaller,
  webhookId: string,
  enabled: boolean,
): Promise<FastRetries> {
  sandboxOnly(deps);
  const factor = enabled ? SANDBOX_TIME_FACTOR : 1;
  const set = await setEndpointTimeFactor(deps.orm.em.fork(), channel.channelId, webhookId, factor, deps.clock.now());
  if (set === null) throw new ProblemError('not_found');
  return { webhookId, timeFactor: set };
}

export async function fastRetries(
  deps: Pick<ServiceDeps, 'orm' | 'config'>,
  channel: ChannelCaller,
  webhookId: string,
): Promise<FastRetries> {
  sandboxOnly(deps);
  const factor = await endpointTimeFactor(deps.orm.em.fork(), channel.channelId, webhookId);
  if (factor === null) throw new ProblemError('not_found');
  return { webhookId, timeFactor: factor };
}

/** A token whose confirmation window was ended. */
export interface EndedWindow {
  tokenId: string;
  ownerId: string;
  expiredAt: Date;
}

/**
 * Ends an owner-connect token's confirmation window now: the token is checked as a confirmation
 * checks it (any owner of the channel), its record marked expired, and its workflow told, so a
 * later confirmation is refused `owner_connect_token_expired` as after the 3600 seconds. A token
 * already expired answers when it did; one confirmed or removed has no window left to end
 * (`owner_connect_token_used`).
 */
export async function endOwnerConnectWindow(deps: Deps, caller: ChannelCaller, token: string): Promise<EndedWindow> {
  sandboxOnly(deps);
  const claims = await verifyOwnerConnectToken(deps, token, { channel: caller.channelName });
  const em = deps.orm.em.fork();
  const record = await findToken(em, claims.jti);
  if (!record || record.channelId !== caller.channelId)
    throw new ProblemError('invalid_owner_connect_token', { detail: 'no such token was issued' });
  if (record.state === 'confirmed' || record.state === 'revoked')
    throw new ProblemError(confirmationRefusal(record.state, false)!, {
      detail: 'the token was confirmed: it has no confirmation window left to end',
    });
  const ended = record.state === 'waiting' ? await endTokenWindow(em, record.jti, deps.clock.now()) : record;
  if (!ended || ended.state !== 'expired')
    throw new ProblemError('owner_connect_token_used', { detail: 'the token was confirmed meanwhile' });
  if (record.state === 'waiting') {
    try {
      await deps.workflows.endOwnerConnectWindow(record.jti);
    } catch (error) {
      // The record refuses the token already; the signal only ends its workflow early.
      deps.log.warn('could not end an owner-connect workflow early; its record refuses the token anyway', {
        jti: record.jti,
        error: String(error),
      });
    }
  }
  return { tokenId: record.jti, ownerId: record.ownerExternalId, expiredAt: ended.confirmUntil };
}
