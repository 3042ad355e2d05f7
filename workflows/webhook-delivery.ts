import { CancellationScope, isCancellation, proxyActivities, sleep, upsertSearchAttributes } from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import type { DeliveryInput } from '../activities/webhooks.ts';
import { planNextRetry } from '../domain/webhooks/retry-schedule.ts';
import { SA_STATE } from './search-attributes.ts';

export type DeliveryOutcome = 'delivered' | 'gone' | 'failed' | 'cancelled';

// One attempt waits at most 10 s for the receiver; the activity gets room for signing and the
// database around it. Infrastructure failures (database down) are retried by Temporal; a failed
// POST is an outcome, not an activity failure, and follows the contract's schedule below.
const { attemptDelivery, recordNextAttempt, finishDelivery, suspendEndpoint, notifyTechnicalContact } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

function setState(state: string): void {
  upsertSearchAttributes([{ key: SA_STATE, value: state }]);
}

/**
 * One delivery of one event to one endpoint (workflow id `webhook-delivery:<endpoint>:<event>`).
 * Retries after 1 m, 5 m, 30 m, 2 h, 6 h, then every 12 h, each ±20 %, while the next attempt
 * falls within 3 days of the first; then the endpoint is suspended (`failing`) and its technical
 * contact e-mailed. A 410 suspends it at once (`gone`). Cancelled when the endpoint is deleted or
 * suspended by another delivery.
 */
export async function webhookDelivery(input: DeliveryInput): Promise<DeliveryOutcome> {
  const startedAt = Date.now();
  try {
    for (;;) {
      const { outcome, attempt } = await attemptDelivery(input.deliveryId);
      if (outcome === 'delivered' || outcome === 'cancelled') {
        setState(outcome);
        return outcome;
      }
      if (outcome === 'gone') {
        await finishDelivery(input.deliveryId, 'failed');
        if (await suspendEndpoint(input.endpointId, 'gone', input.deliveryId)) await notifyTechnicalContact(input.endpointId, 'gone');
        setState('gone');
        return 'gone';
      }
      const delay = planNextRetry({ attemptsMade: attempt, elapsedSinceFirstAttemptMs: Date.now() - startedAt, random: Math.random() });
      if (delay === null) {
        await finishDelivery(input.deliveryId, 'failed');
        if (await suspendEndpoint(input.endpointId, 'failing', input.deliveryId)) await notifyTechnicalContact(input.endpointId, 'failing');
        setState('failed');
        return 'failed';
      }
      setState('retrying');
      await recordNextAttempt(input.deliveryId, new Date(Date.now() + delay).toISOString());
      await sleep(delay);
    }
  } catch (error) {
    if (!isCancellation(error)) throw error;
    await CancellationScope.nonCancellable(() => finishDelivery(input.deliveryId, 'cancelled'));
    setState('cancelled');
    return 'cancelled';
  }
}

