/**
 * The time limits a certification run judges against (re-exported by ./rules.ts, where the run and
 * the report read them); kept apart so the rule files can use them without importing ./rules.ts.
 */

/** A receiver must answer a delivery 2xx within this long (docs/contract.md#receiving-webhooks, rule 6). */
export const ANSWER_WITHIN_MS = 10_000;
/** How long after an event the channel has to read what it names. */
export const REREAD_WITHIN_MS = 30_000;
/** A probe's timestamp is this far in the past: beyond the receiver's 5-minute tolerance. */
export const STALE_TIMESTAMP_SECONDS = 600;
/** A re-read may reach the service this long before the event's delivery was answered. */
export const REREAD_EARLY_MS = 1_000;
