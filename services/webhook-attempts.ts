import { toInstant } from '../domain/time.ts';
import { attemptStart, outcomeOf } from '../domain/webhooks/deliveries.ts';
import type { DeliveryOutcome, SuspensionReason } from '../domain/webhooks/states.ts';
import { suspensionMail } from '../infra/mailer.ts';
import { countChannelAttempt, observeCommitToDelivery } from '../infra/metrics.ts';
import type { WebhookSender } from '../infra/webhook-sender.ts';
import type { ServiceDeps } from './deps.ts';
import type { ServiceStores } from './stores/index.ts';
import { cancelPendingDeliveries } from './webhooks.ts';

// What a delivery workflow's activities do: one attempt, and when an endpoint is given up on, its
// suspension and the notice to its channel's technical contact.

export interface AttemptResult {
  outcome: DeliveryOutcome;
  statusCode: number | null;
  /** The attempt's number: 0 for a delivery that no longer exists. */
  attempt: number;
  /** Why a sent attempt failed (`timeout`, `http_status`…, as its row says); absent when it delivered or nothing was sent. */
  error?: string;
}

/** One attempt: signs with every live secret, POSTs, records the attempt (one read, one write). */
export async function attemptDelivery(
  deps: Pick<ServiceDeps, 'clock' | 'log'> & { stores: Pick<ServiceStores, 'attempts'>; webhookSender: WebhookSender },
  deliveryId: string,
): Promise<AttemptResult> {
  const { clock } = deps;
  const store = deps.stores.attempts;
  const context = await store.attemptContext(deliveryId);
  if (!context) return { outcome: 'cancelled', statusCode: null, attempt: 0 };
  const { delivery, endpoint, channel, eventOccurredAt } = context;
  const start = attemptStart(delivery, endpoint, channel);
  if (start === 'delivered' || start === 'ended')
    return {
      outcome: start === 'delivered' ? 'delivered' : 'cancelled',
      statusCode: null,
      attempt: delivery.attempts,
    };
  if (start !== 'send' || !endpoint) {
    await store.finishDelivery(deliveryId, 'cancelled', clock.now());
    return { outcome: 'cancelled', statusCode: null, attempt: delivery.attempts };
  }
  const attemptedAt = clock.now();
  const response = await deps.webhookSender.send(endpoint, { id: delivery.eventId, body: delivery.payload });
  const outcome = outcomeOf(response);
  const number = delivery.attempts + 1;
  countChannelAttempt(channel?.name, outcome);
  // The channel is shown only the reason; the detail (addresses, codes) is for the operator.
  if (response.error !== null)
    deps.log.info('webhook attempt failed', {
      deliveryId,
      endpointId: endpoint.id,
      attempt: number,
      reason: response.error,
      statusCode: response.statusCode,
      detail: response.detail,
    });
  const deliveredAt = outcome === 'delivered' ? clock.now() : null;
  await store.recordAttempt({
    deliveryId,
    number,
    attemptedAt,
    statusCode: response.statusCode,
    durationMs: response.durationMs,
    error: response.error,
    excerpt: response.excerpt,
    deliveredAt,
  });
  if (deliveredAt && eventOccurredAt) observeCommitToDelivery(eventOccurredAt, deliveredAt, number);
  return {
    outcome,
    statusCode: response.statusCode,
    attempt: number,
    ...(response.error ? { error: response.error } : {}),
  };
}

/**
 * Makes an active endpoint inactive for `reason` and stops its other pending deliveries.
 * True when this call suspended it (so only one delivery e-mails the contact).
 */
export async function suspendEndpoint(
  deps: Pick<ServiceDeps, 'stores' | 'clock' | 'log' | 'workflows'>,
  endpointId: string,
  reason: SuspensionReason,
  exceptDeliveryId: string,
): Promise<boolean> {
  const suspended = await deps.stores.attempts.suspendEndpoint(endpointId, reason, deps.clock.now());
  await cancelPendingDeliveries(deps, { endpointId, except: exceptDeliveryId });
  if (suspended) deps.log.warn('webhook endpoint suspended', { endpointId, reason });
  return suspended;
}

/** E-mails the channel's technical contact; without a contact or SMTP it is logged for operators. */
export async function notifyTechnicalContact(
  deps: Pick<ServiceDeps, 'clock' | 'log' | 'mailer'> & { stores: Pick<ServiceStores, 'attempts'> },
  endpointId: string,
  reason: SuspensionReason,
): Promise<{ sent: boolean }> {
  const { log } = deps;
  const contact = await deps.stores.attempts.endpointContact(endpointId);
  if (!contact?.email) {
    log.warn('webhook endpoint suspended; the channel has no technical contact to tell', { endpointId, reason });
    return { sent: false };
  }
  const mail = suspensionMail({
    to: contact.email,
    channel: contact.channel,
    endpointId,
    url: contact.url,
    reason,
    suspendedAt: toInstant(deps.clock.now()),
  });
  const result = await deps.mailer.send(mail);
  if (!result.sent)
    log.warn('webhook endpoint suspended; no SMTP configured to tell the technical contact', {
      endpointId,
      reason,
    });
  return { sent: result.sent };
}
