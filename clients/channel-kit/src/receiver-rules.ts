/**
 * The rules a webhook receiver keeps, each stated in a few words and cited where the project's
 * contract page states it (`docs/contract.md` of the Distribution Service's repository; the kit's
 * README states them too): what `check-receiver` holds a receiver to and prints.
 */

/** How long a receiver has to answer a delivery (rule 6); test/domain/contract-limits.test.ts holds it to the service's. */
export const ANSWER_WITHIN_MS = 10_000;

/** Where the receiver rules are stated, numbered 1 to 6. */
export const RECEIVING_WEBHOOKS = 'docs/contract.md#receiving-webhooks';
/** Where v1's growth is stated: rule 2, new fields and event types without a new version. */
export const VERSIONING = 'docs/contract.md#versioning';

/** The rule a check holds a receiver to: one of the receiver rules, or v1's growth. */
export type ReceiverRule =
  | 'answer' // receiving-webhooks rule 6
  | 'raw-body' // receiving-webhooks rule 2
  | 'signature' // receiving-webhooks rule 3
  | 'timestamp' // receiving-webhooks rule 1
  | 'rotation' // receiving-webhooks rule 3
  | 'duplicates' // receiving-webhooks rule 4
  | 'unknown-types' // versioning rule 2
  | 'unknown-fields'; // versioning rule 2

/** Each rule in a few words, with where it is stated: `…  (docs/contract.md#receiving-webhooks, rule 3)`. */
export const RECEIVER_RULES: Record<ReceiverRule, string> = {
  answer: `answer any 2xx within ${ANSWER_WITHIN_MS / 1000} seconds and do the work afterwards (${RECEIVING_WEBHOOKS}, rule 6)`,
  'raw-body': `compute the HMAC over the raw body exactly as received, before JSON parsing (${RECEIVING_WEBHOOKS}, rule 2)`,
  signature: `accept a delivery only when one of its v1 signatures matches (${RECEIVING_WEBHOOKS}, rule 3)`,
  timestamp: `refuse a webhook-timestamp more than 5 minutes from your clock (${RECEIVING_WEBHOOKS}, rule 1)`,
  rotation: `while a secret rotates two signatures are sent: accept when either matches (${RECEIVING_WEBHOOKS}, rule 3)`,
  duplicates: `delivery is at least once: answer a repeated webhook-id and deduplicate on it (${RECEIVING_WEBHOOKS}, rule 4)`,
  'unknown-types': `new event types appear without a new version: accept them (${VERSIONING}, rule 2)`,
  'unknown-fields': `new fields appear without a new version: ignore them (${VERSIONING}, rule 2)`,
};

/** What a receiver must do that no request from outside can observe, with the rule each comes from. */
export const NOT_OBSERVABLE = [
  `that the work of a repeated webhook-id runs once (deduplicate on webhook-id: ${RECEIVING_WEBHOOKS}, rule 4)`,
  `that the work runs after the answer, not before it (answer first, work afterwards: ${RECEIVING_WEBHOOKS}, rule 6)`,
  `that the named resource is read and applied only at a higher version (${RECEIVING_WEBHOOKS}, rule 5)`,
  `that signatures are compared in constant time (${RECEIVING_WEBHOOKS}, rule 3)`,
];
