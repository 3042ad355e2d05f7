import type { AnswerOutcome, AttemptStart, DeliveryState, EndpointStatus } from './states.ts';
import { channelReceivesWebhooks } from './sending.ts';

// A delivery's rules: whether an attempt POSTs at all, what the receiver's answer means, and how
// long deliveries are kept.

/** What an attempt does before any POST (AttemptStart says what each answer means). */
export function attemptStart(
  delivery: { state: DeliveryState },
  endpoint: { status: EndpointStatus } | null,
  channel: { status: string; webhooksSuspendedAt: Date | null } | null,
): AttemptStart {
  if (delivery.state !== 'pending') return delivery.state === 'delivered' ? 'delivered' : 'ended';
  if (!endpoint || endpoint.status !== 'active' || !channel || !channelReceivesWebhooks(channel)) return 'cancel';
  return 'send';
}

/** 2xx delivered; 410 gone (the endpoint is suspended at once); anything else, no answer included, failed. */
export function outcomeOf(answer: { statusCode: number | null }): AnswerOutcome {
  if (answer.statusCode !== null && answer.statusCode >= 200 && answer.statusCode < 300) return 'delivered';
  return answer.statusCode === 410 ? 'gone' : 'failed';
}

/** Deliveries are kept this many days; a deleted endpoint as long as a delivery names it, and as long after its deletion. */
export const DELIVERY_RETENTION_DAYS = 35;
export const DELIVERY_RETENTION_MS = DELIVERY_RETENTION_DAYS * 24 * 3600 * 1000;

/** Deliveries created before this instant are dropped, and endpoints deleted before it once no delivery names them. */
export function retentionCutoff(now: Date): Date {
  return new Date(now.getTime() - DELIVERY_RETENTION_MS);
}
