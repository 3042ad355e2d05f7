import * as deliveryStore from '../db/webhook-deliveries.ts';
import * as endpointStore from '../db/webhook-endpoints.ts';
import type { SuspensionReason, UndeliveredState } from '../domain/webhooks/states.ts';
import { inAttemptSpan, type SpanOutcome } from '../infra/tracing.ts';
import * as attempts from '../services/webhook-attempts.ts';
import { dispatchEvents } from '../services/webhook-dispatch.ts';
import { cancelPendingDeliveries } from '../services/webhooks.ts';
import type { ServiceDeps } from '../services/deps.ts';
import type { ActivityDeps } from './deps.ts';

export function webhookActivities(deps: ActivityDeps & Pick<ServiceDeps, 'stores'>) {
  const { orm, clock } = deps;

  return {
    /** The dispatcher's one activity: the channels' new events become deliveries, their workflows started. */
    async dispatchEvents(): Promise<{ started: number; more: boolean }> {
      return dispatchEvents(deps);
    },

    /**
     * One attempt: signs with every live secret, POSTs, records the attempt (one read, one write).
     * With tracing on, under a `webhook attempt` span that says how it went.
     */
    async attemptDelivery(deliveryId: string): Promise<attempts.AttemptResult> {
      return inAttemptSpan('webhook attempt', () => attempts.attemptDelivery(deps, deliveryId), attemptSpanOutcome);
    },

    async recordNextAttempt(deliveryId: string, at: string): Promise<void> {
      await deliveryStore.recordNextAttempt(orm.em.fork(), deliveryId, new Date(at));
    },

    async finishDelivery(deliveryId: string, state: UndeliveredState): Promise<void> {
      await deliveryStore.finishDelivery(orm.em.fork(), deliveryId, state, clock.now());
    },

    /** Suspends the endpoint and stops its other pending deliveries; true when this call suspended it. */
    async suspendEndpoint(endpointId: string, reason: SuspensionReason, exceptDeliveryId: string): Promise<boolean> {
      return attempts.suspendEndpoint(deps, endpointId, reason, exceptDeliveryId);
    },

    async cancelPendingDeliveries(endpointId: string): Promise<number> {
      return cancelPendingDeliveries(deps, { endpointId });
    },

    /** E-mails the channel's technical contact; without a contact or SMTP it is logged for operators. */
    async notifyTechnicalContact(endpointId: string, reason: SuspensionReason): Promise<{ sent: boolean }> {
      return attempts.notifyTechnicalContact(deps, endpointId, reason);
    },

    /** Ends a rotation's overlap: destroys the previous secret unless a later rotation replaced it. */
    async destroyPreviousSecret(endpointId: string, generation: number): Promise<boolean> {
      return endpointStore.destroyPreviousSecret(orm.em.fork(), endpointId, generation);
    },
  };
}

/**
 * What an attempt's span says of it (names on domain/span-attributes.ts's list, no value of a
 * row): its number, its outcome, the answer's status code and why it failed when the attempt
 * says; a failed attempt, and a 410 (`gone`), mark the span as an error.
 */
function attemptSpanOutcome(result: attempts.AttemptResult): SpanOutcome {
  return {
    attributes: {
      'webhook.attempt': result.attempt,
      'webhook.outcome': result.outcome,
      ...(result.statusCode !== null ? { 'http.response.status_code': result.statusCode } : {}),
      ...(result.error ? { 'error.type': result.error } : {}),
    },
    failed: result.outcome === 'failed' || result.outcome === 'gone',
  };
}
