// The words of the webhook pipeline, each list once: what a delivery's row and workflow say, how an
// attempt ends, what an endpoint is and why it was suspended. Everything else imports them.

/** A delivery's stored state (`webhook_delivery.state`), also the `state` a channel reads. */
export const DELIVERY_STATES = ['pending', 'delivered', 'failed', 'cancelled'] as const;
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** How a delivery ends when it is not delivered: its retries over or a 410 (`failed`), or stopped (`cancelled`). */
export type UndeliveredState = Extract<DeliveryState, 'failed' | 'cancelled'>;

/**
 * How one attempt ends, and so the delivery workflow's result: `gone` is a 410, which suspends
 * the endpoint at once; `cancelled`, a delivery that was not to be attempted (any more).
 */
export const DELIVERY_OUTCOMES = ['delivered', 'gone', 'failed', 'cancelled'] as const;
export type DeliveryOutcome = (typeof DELIVERY_OUTCOMES)[number];

/** What a receiver's answer (or its absence) means: every outcome but `cancelled`, which is decided before a POST. */
export type AnswerOutcome = Exclude<DeliveryOutcome, 'cancelled'>;

/**
 * What an attempt does before any POST: `send`; or answer `delivered` (a retried attempt of a
 * delivered delivery) or `ended` (one already failed or cancelled) and write nothing; or `cancel`
 * the delivery, its endpoint no longer active or its channel no longer sent webhooks.
 */
export const ATTEMPT_STARTS = ['send', 'delivered', 'ended', 'cancel'] as const;
export type AttemptStart = (typeof ATTEMPT_STARTS)[number];

/**
 * A delivery workflow's `SvcState`: `pending` when started, `retrying` while it waits for its next
 * attempt, then how it ended (a first-attempt success of a delivery dispatched before `SvcState`
 * was set on it leaves `pending`). The operator CLI's `delivery list` says a delivery's state in
 * the same words, read from its row.
 */
export const DELIVERY_WORKFLOW_STATES = ['pending', 'retrying', 'delivered', 'failed', 'gone', 'cancelled'] as const;
export type DeliveryWorkflowState = (typeof DELIVERY_WORKFLOW_STATES)[number];

/** An endpoint's stored status; a deleted one is kept while deliveries name it, and never shown. */
export const ENDPOINT_STATUSES = ['active', 'inactive', 'deleted'] as const;
export type EndpointStatus = (typeof ENDPOINT_STATUSES)[number];

/** Why an endpoint was made inactive: every retry over the retry span (`RETRY_SPAN_MS`) failed (`failing`) or it answered 410 (`gone`). */
export const SUSPENSION_REASONS = ['failing', 'gone'] as const;
export type SuspensionReason = (typeof SUSPENSION_REASONS)[number];

/** The reason every endpoint of a channel reads while the operators hold the channel's webhooks; never stored. */
export const PLATFORM_SUSPENDED_REASON = 'platform';

/** The reasons a channel may read on an endpoint. */
export const SHOWN_SUSPENSION_REASONS = [...SUSPENSION_REASONS, PLATFORM_SUSPENDED_REASON] as const;
export type ShownSuspensionReason = (typeof SHOWN_SUSPENSION_REASONS)[number];
