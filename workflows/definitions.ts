import { defineSignal, defineUpdate } from '@temporalio/workflow';
import type { DeliveryOutcome, DeliveryWorkflowState } from '../domain/webhooks/states.ts';
import type { DeliveryInput } from './webhook-delivery.ts';

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
 * The sandbox's expire-now, after the token's record is marked expired: its confirmation window
 * ends now, as it would have at `confirmUntil`. An Update, not a signal: code without its handler
 * rejects it instead of recording it for a later replay to deliver.
 */
export const endOwnerConnectWindowUpdate = defineUpdate<void, []>('endOwnerConnectWindow');

/**
 * Sent when the worker starts (with the configured rotation period) and after an operator's
 * early rotation: the owner-connect key rotation plans again from what is committed.
 */
export const ownerConnectKeysChangedSignal =
  defineSignal<[{ rotationDays: number } | undefined]>('ownerConnectKeysChanged');

/** What an operator's `retryNow` names: the attempt they expect to make now (`attempts` of the row + 1). */
export interface RetryNowRequest {
  attempt: number;
}

/** What the attempt made for a `retryNow` did, and what the delivery does next. */
export interface RetryNowResult {
  outcome: DeliveryOutcome;
  /** The receiver's status code; null when it gave none (time-out, refused connection) or nothing was sent. */
  statusCode: number | null;
  /** Why the attempt failed, as the delivery's attempts say it (`timeout`, `http_status`…); null otherwise. */
  error: string | null;
  /** What the delivery does now: `retrying` (then `nextAttemptAt`), or how it ended. */
  state: DeliveryWorkflowState;
  /** RFC 3339 instant of the next attempt, while the delivery goes on retrying; null otherwise. */
  nextAttemptAt: string | null;
}

/** What a delivery waiting for its next attempt answers `retryNow`. */
export interface RetryNowAnswer {
  /** The number of the attempt made now (the first retry is attempt 2). */
  attempt: number;
  /** RFC 3339 instant the attempt was due at by the retry schedule. */
  dueAt: string;
  /**
   * What the attempt did: the answer comes once it is made. Absent from a delivery that answered
   * at once, before its attempt (a run whose first `retryNow` came before answers waited for it).
   */
  result?: RetryNowResult;
}

/**
 * An operator's `delivery retry`: a delivery waiting for its next attempt makes it now, and
 * answers what it did (a workflow Update, validated before it is accepted: a delivery that is not
 * waiting, or waits for another attempt than the one named, refuses it and nothing is recorded).
 * The attempt rules and the schedule after it are unchanged. A caller names the Update by the
 * attempt (`retryNowUpdateId`), so a second request for the same attempt joins the first (the
 * server keeps one Update per id) instead of making another.
 */
export const retryNowUpdate = defineUpdate<RetryNowAnswer, [RetryNowRequest]>('retryNow');

/** The Update id of a `retryNow` for `attempt`: one per attempt of a run. */
export const retryNowUpdateId = (attempt: number) => `retry-now:attempt-${attempt}`;

/** The refusal's `type` when a delivery is not waiting for a retry (an attempt under way, or ended). */
export const NOT_WAITING_FOR_RETRY = 'delivery_not_waiting';
/** The refusal's `type` when a delivery waits for another attempt than the one a `retryNow` names. */
export const OTHER_ATTEMPT_DUE = 'delivery_other_attempt_due';

/**
 * The version fields of `DeliveryInput` every delivery started today carries: the dispatcher's
 * starts and an operator's drive again (`delivery retry` of a delivery whose run is gone).
 */
export const CURRENT_DELIVERY = { attempts: 'local', state: 'always' } as const satisfies Partial<DeliveryInput>;

/** An operator's new pace for a catalogue re-projection under way: properties a second. */
export const reprojectionRateSignal = defineSignal<[number]>('reprojectionRate');

/** An operator's new pace for the sandbox churn: changes a second. */
export const sandboxChurnRateSignal = defineSignal<[number]>('sandboxChurnRate');

/** An operator's `sandbox churn stop`: the churn ends after the change under way, with its progress. */
export const sandboxChurnStopSignal = defineSignal('sandboxChurnStop');
