import { defineSignal } from '@temporalio/workflow';

/** Sent when an operator revokes a key: its lifecycle ends without marking it expired. */
export const apiKeyRevokedSignal = defineSignal('apiKeyRevoked');

/** Sent after a write that may change a property's legal dates or zone: its certificate-expiry workflow plans again. */
export const legalDatesChangedSignal = defineSignal('legalDatesChanged');

/** Sent by the API after a write commits events: the dispatcher looks at the log now rather than at its next poll. */
export const eventsCommittedSignal = defineSignal('eventsCommitted');

/**
 * Sent when the worker starts (with the configured rotation period) and after an operator's
 * early rotation: the owner-connect key rotation plans again from what is committed.
 */
export const ownerConnectKeysChangedSignal = defineSignal<[{ rotationDays: number } | undefined]>('ownerConnectKeysChanged');
