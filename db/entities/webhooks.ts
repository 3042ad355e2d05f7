import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { DELIVERY_STATES, ENDPOINT_STATUSES, SUSPENSION_REASONS } from '../../domain/webhooks/states.ts';
import { ChannelSchema } from './channel.ts';

/**
 * A channel's webhook endpoint. Secrets are stored encrypted (AES-256-GCM under a key derived
 * from SERVER_SECRET, infra/secret-box.ts): the service must sign with them, so a hash would not
 * do. Deleting an endpoint keeps the row (its deliveries name it) with its secrets destroyed.
 */
export const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoint',
  properties: {
    id: p.string().length(40).primary(),
    channel: () => p.manyToOne(ChannelSchema).index(),
    url: p.string().length(2048),
    events: p.array(),
    description: p.string().length(500).nullable(),
    status: p.enum(ENDPOINT_STATUSES),
    suspendedReason: p.enum(SUSPENSION_REASONS).nullable(),
    secret: p.text().nullable(),
    previousSecret: p.text().nullable(),
    previousSecretExpiresAt: p.datetime().nullable(),
    /** Bumped by every rotation, so a rotation's expiry timer destroys only its own previous secret. */
    secretGeneration: p.integer(),
    /**
     * The channel's log position when the endpoint was registered or last enabled: it is sent
     * only the events after it. The channel-wide dispatch progress never jumps for one endpoint.
     */
    resumeAfterPosition: p.bigint('number').default(0),
    /** Sandbox fast retries: its deliveries' retry schedule runs this many times faster; 1 otherwise. */
    timeFactor: p.integer().default(1),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    deletedAt: p.datetime().nullable(),
  },
});

export const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_delivery',
  properties: {
    id: p.string().length(40).primary(),
    endpoint: () => p.manyToOne(WebhookEndpointSchema),
    eventId: p.string().length(40),
    eventType: p.string().length(60),
    /** The exact body sent on every attempt. */
    payload: p.text(),
    state: p.enum(DELIVERY_STATES),
    attempts: p.integer(),
    createdAt: p.datetime(),
    lastAttemptAt: p.datetime().nullable(),
    nextAttemptAt: p.datetime().nullable(),
    completedAt: p.datetime().nullable(),
  },
  // Partitioned by day of `created_at` (db/partitions.ts): the key and `(endpoint_id, event_id)`
  // are unique in each day.
  indexes: [
    // An endpoint's deliveries newest first by (created_at, id), the page's position (db/webhook-deliveries.ts).
    { name: 'webhook_delivery_page', properties: ['endpoint', 'createdAt', 'id'] },
    // The pending deliveries of an endpoint by when they are due (db/monitoring.ts, the overdue gauge).
    {
      name: 'webhook_delivery_due',
      expression: `create index "webhook_delivery_due" on "webhook_delivery" ("endpoint_id", (coalesce("next_attempt_at", "last_attempt_at", "created_at"))) where "state" = 'pending'`,
    },
  ],
});

export const WebhookAttemptSchema = defineEntity({
  name: 'WebhookAttempt',
  tableName: 'webhook_attempt',
  properties: {
    // Partitioned by day of `attempted_at` (db/partitions.ts): no foreign key to a delivery, whose
    // id is unique per day; an attempt's day goes with or after its delivery's.
    delivery: () => p.manyToOne(WebhookDeliverySchema).primary().createForeignKeyConstraint(false),
    number: p.integer().primary(),
    attemptedAt: p.datetime(),
    statusCode: p.integer().nullable(),
    durationMs: p.integer(),
    error: p.string().length(500).nullable(),
    responseExcerpt: p.string().length(1024).nullable(),
  },
  primaryKeys: ['delivery', 'number'],
});

/** How far the dispatcher has turned each channel's event log into deliveries. */
export const DispatchProgressSchema = defineEntity({
  name: 'DispatchProgress',
  tableName: 'dispatch_progress',
  properties: {
    channel: () => p.oneToOne(ChannelSchema).primary(),
    position: p.bigint('number'),
    /** The stamp of the event at `position`, once dispatched: the events after it are stamped no earlier. */
    stamp: p.datetime().nullable(),
  },
});

export type WebhookEndpoint = InferEntity<typeof WebhookEndpointSchema>;
export type WebhookDelivery = InferEntity<typeof WebhookDeliverySchema>;
