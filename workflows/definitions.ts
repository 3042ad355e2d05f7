import { defineSignal, defineUpdate } from '@temporalio/workflow';

/** Sent when an operator revokes a key: its lifecycle ends without marking it expired. */
export const apiKeyRevokedSignal = defineSignal('apiKeyRevoked');

/** Sent after a write that may change a property's legal dates or zone: its certificate-expiry workflow plans again. */
export const legalDatesChangedSignal = defineSignal('legalDatesChanged');

/** Sent by the API after a write commits events: the dispatcher looks at the log now rather than at its next poll. */
export const eventsCommittedSignal = defineSignal('eventsCommitted');

/** A channel's confirmation of an owner-connect token, once the API verified it: who confirms, for which owner. */
export interface OwnerConnectConfirmation {
  channel: string;
  /** The owner's `own_` id as the channel sees it (the token's `sub`). */
  ownerId: string;
}

export interface OwnerConnectBinding {
  /** RFC 3339 instant of the connection the token made. */
  connected_at: string;
}

/**
 * Confirms an owner-connect token (a workflow Update, validated before it is accepted): the first
 * binds the token to the connection it makes; the same again answers that connection.
 */
export const confirmOwnerConnectionUpdate = defineUpdate<OwnerConnectBinding, [OwnerConnectConfirmation]>(
  'confirmOwnerConnection',
);

/** Sent when the connection a token made is removed or replaced: the token is never accepted again. */
export const ownerConnectionRevokedSignal = defineSignal('ownerConnectionRevoked');

/**
 * Sent when the worker starts (with the configured rotation period) and after an operator's
 * early rotation: the owner-connect key rotation plans again from what is committed.
 */
export const ownerConnectKeysChangedSignal =
  defineSignal<[{ rotationDays: number } | undefined]>('ownerConnectKeysChanged');

/** What a delivery waiting for its next attempt answers `retryNow`: the attempt it makes now, and when it was due. */
export interface RetryNowAnswer {
  /** The number of the attempt made now (the first retry is attempt 2). */
  attempt: number;
  /** RFC 3339 instant the attempt was due at by the retry schedule. */
  dueAt: string;
}

/**
 * An operator's `delivery retry`: a delivery waiting for its next attempt makes it now (a workflow
 * Update, validated before it is accepted: a delivery that is not waiting refuses it and nothing is
 * recorded). The attempt rules and the schedule after it are unchanged.
 */
export const retryNowUpdate = defineUpdate<RetryNowAnswer, []>('retryNow');

/** The refusal's `type` when a delivery is not waiting for a retry (first attempt under way, or ended). */
export const NOT_WAITING_FOR_RETRY = 'delivery_not_waiting';
