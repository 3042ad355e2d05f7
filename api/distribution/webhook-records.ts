import type { Channel } from '../../db/entities/index.ts';
import type { EndpointRow } from '../../db/webhook-endpoints.ts';
import type { DeliveryRow, WebhookAttempt } from '../../db/webhook-deliveries.ts';
import { toInstant } from '../../domain/time.ts';
import { publicDeliveryError } from '../../domain/webhooks/delivery-errors.ts';
import { previousSecretLive } from '../../domain/webhooks/endpoints.ts';
import { PLATFORM_SUSPENDED_REASON } from '../../domain/webhooks/states.ts';
import type { PingOutcome } from '../../services/webhooks.ts';

// Webhook endpoints, deliveries and pings as the channel sees them.

/**
 * `secret` only when just created or rotated. While the operators hold the channel's webhooks
 * nothing is delivered to any of its endpoints, so each reads `inactive` with reason `platform`
 * over its own state, which it reads again once they resume (its own state is kept, not changed).
 */
export function endpointRecord(
  endpoint: EndpointRow,
  now: Date,
  channel: Pick<Channel, 'webhooksSuspendedAt'>,
  secret?: string,
): Record<string, unknown> {
  const heldByPlatform = channel.webhooksSuspendedAt != null;
  const previousExpiresAt =
    endpoint.previous_secret_expires_at === null ? null : new Date(endpoint.previous_secret_expires_at);
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: heldByPlatform ? 'inactive' : endpoint.status,
    suspended_reason: heldByPlatform ? PLATFORM_SUSPENDED_REASON : endpoint.suspended_reason,
    ...(secret === undefined ? {} : { secret }),
    previous_secret_expires_at: previousSecretLive(
      { previousSecret: endpoint.previous_secret, previousSecretExpiresAt: previousExpiresAt },
      now,
    )
      ? toInstant(previousExpiresAt!)
      : null,
    created_at: toInstant(new Date(endpoint.created_at)),
    updated_at: toInstant(new Date(endpoint.updated_at)),
  };
}

const instantOrNull = (value: string | null) => (value === null ? null : toInstant(new Date(value)));

export function deliveryRecord(delivery: DeliveryRow): Record<string, unknown> {
  return {
    id: delivery.id,
    event_id: delivery.event_id,
    event_type: delivery.event_type,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: toInstant(new Date(delivery.created_at)),
    last_attempt_at: instantOrNull(delivery.last_attempt_at),
    next_attempt_at: instantOrNull(delivery.next_attempt_at),
    completed_at: instantOrNull(delivery.completed_at),
  };
}

export function attemptRecord(attempt: WebhookAttempt): Record<string, unknown> {
  return {
    number: attempt.number,
    attempted_at: toInstant(attempt.attemptedAt),
    status_code: attempt.statusCode ?? null,
    duration_ms: attempt.durationMs,
    error: publicDeliveryError(attempt.error ?? null),
    response_excerpt: attempt.responseExcerpt ?? null,
  };
}

export function pingOutcomeRecord(outcome: PingOutcome): Record<string, unknown> {
  return {
    delivered: outcome.delivered,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    error: outcome.error,
    event_id: outcome.eventId,
  };
}
