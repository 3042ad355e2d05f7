import type { z } from 'zod';
import type { Channel } from '../../db/channels.ts';
import type { StoredDelivery, WebhookAttempt } from '../../db/webhook-deliveries.ts';
import type { StoredEndpoint } from '../../db/webhook-endpoints.ts';
import { toInstant } from '../../domain/time.ts';
import { publicDeliveryError } from '../../domain/webhooks/delivery-errors.ts';
import { previousSecretLive } from '../../domain/webhooks/endpoints.ts';
import { PLATFORM_SUSPENDED_REASON } from '../../domain/webhooks/states.ts';
import type { PingOutcome } from '../../services/webhooks.ts';
import type { Attempt, DeliveryRecord, EndpointRecord, PingOutcome as PingOutcomeSchema } from './webhook-schemas.ts';

// Webhook endpoints, deliveries and pings as the channel sees them: each record is its schema's type.

/**
 * `secret` only when just created or rotated. While the operators hold the channel's webhooks
 * nothing is delivered to any of its endpoints, so each reads `inactive` with reason `platform`
 * over its own state, which it reads again once they resume (its own state is kept, not changed).
 */
export function endpointRecord(
  endpoint: StoredEndpoint,
  now: Date,
  channel: Pick<Channel, 'webhooksSuspendedAt'>,
  secret?: string,
): z.output<typeof EndpointRecord> {
  const heldByPlatform = channel.webhooksSuspendedAt != null;
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    status: heldByPlatform ? 'inactive' : endpoint.status,
    suspended_reason: heldByPlatform ? PLATFORM_SUSPENDED_REASON : endpoint.suspendedReason,
    ...(secret === undefined ? {} : { secret }),
    previous_secret_expires_at: previousSecretLive(endpoint, now) ? toInstant(endpoint.previousSecretExpiresAt!) : null,
    created_at: toInstant(endpoint.createdAt),
    updated_at: toInstant(endpoint.updatedAt),
  };
}

const instantOrNull = (value: Date | null) => (value === null ? null : toInstant(value));

export function deliveryRecord(delivery: StoredDelivery): z.output<typeof DeliveryRecord> {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    state: delivery.state,
    attempts: delivery.attempts,
    created_at: toInstant(delivery.createdAt),
    last_attempt_at: instantOrNull(delivery.lastAttemptAt),
    next_attempt_at: instantOrNull(delivery.nextAttemptAt),
    completed_at: instantOrNull(delivery.completedAt),
  };
}

export function attemptRecord(attempt: WebhookAttempt): z.output<typeof Attempt> {
  return {
    number: attempt.number,
    attempted_at: toInstant(attempt.attemptedAt),
    status_code: attempt.statusCode ?? null,
    duration_ms: attempt.durationMs,
    error: publicDeliveryError(attempt.error ?? null),
    response_excerpt: attempt.responseExcerpt ?? null,
  };
}

export function pingOutcomeRecord(outcome: PingOutcome): z.output<typeof PingOutcomeSchema> {
  return {
    delivered: outcome.delivered,
    status_code: outcome.statusCode,
    duration_ms: outcome.durationMs,
    error: outcome.error,
    event_id: outcome.eventId,
  };
}
