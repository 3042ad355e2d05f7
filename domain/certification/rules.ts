/**
 * A sandbox certification run's rules, judged from what the service observed of the channel's own
 * integration: the answers its receiver gave to deliveries, the requests its keys made (the sandbox
 * request log) and the owner connection it confirmed. Pure: the run (workflows/certification.ts)
 * gathers the observations, these functions turn them into one row per rule with its evidence.
 * Rules no observation can prove are listed as self-declared.
 */

import { acceptsRotation, answersEachEventType, completesOwnerConnect, refusesProbe } from './delivery-rules.ts';
import { ANSWER_WITHIN_MS, REREAD_WITHIN_MS, STALE_TIMESTAMP_SECONDS } from './limits.ts';
import { readsListWith, rereadsAnnouncedRange, rereadsNamedResource, stopsReadingWithdrawn } from './reading-rules.ts';
import { honoursRetryAfter } from './throttle-rule.ts';

/** Every rule of a run, in the order the report prints them. */
export const CERTIFICATION_RULES = [
  'answers_each_event_type',
  'refuses_wrong_secret',
  'refuses_stale_timestamp',
  'accepts_rotation_signatures',
  'rereads_named_resource',
  'rereads_announced_range',
  'pages_with_cursor',
  'resumes_with_updated_since',
  'honours_retry_after',
  'stops_reading_withdrawn',
  'completes_owner_connect',
  'dedupes_on_webhook_id',
  'applies_higher_versions_only',
] as const;
export type CertificationRule = (typeof CERTIFICATION_RULES)[number];

/** Rules the channel states it follows; nothing the service sees can prove them. */
export const SELF_DECLARED_RULES: readonly CertificationRule[] = [
  'dedupes_on_webhook_id',
  'applies_higher_versions_only',
];

export type RuleOutcome = 'passed' | 'failed' | 'self_declared';

export interface RuleRow {
  rule: CertificationRule;
  /** One sentence: what the rule asks (the contract's words). */
  title: string;
  outcome: RuleOutcome;
  /** What was observed, enough to see why without asking anyone: ids, statuses, times. */
  evidence: string;
}

/** The limits: answer within, re-read within, a stale probe's age (defined in ./limits.ts). */
export { ANSWER_WITHIN_MS, REREAD_WITHIN_MS, STALE_TIMESTAMP_SECONDS } from './limits.ts';

/** One delivery attempt the run watched, as the delivery records hold it. */
export interface ObservedAttempt {
  type: string;
  eventId: string;
  /** The HTTP status, or null when no answer came (timeout, refused connection). */
  status: number | null;
  durationMs: number;
  /** The transport error when there was no answer (`timeout`, `connection refused`, …). */
  error: string | null;
}

/** One request of the channel's sandbox keys, as the request log holds it. */
export interface ObservedRequest {
  method: string;
  /** Path and query as logged (`/properties/prp_1?fields=~`). */
  path: string;
  status: number;
  code: string | null;
  receivedAt: Date;
}

/** A probe delivery the run sent itself (only in a certification run). */
export interface ProbeAnswer {
  eventId: string;
  status: number | null;
  durationMs: number;
  error: string | null;
}

export interface OwnerConnectObservation {
  ownerId: string;
  tokenId: string;
  /** When the run handed the token off, and when the channel confirmed it (null: not within the run). */
  handedOffAt: Date;
  confirmedAt: Date | null;
  /** The end of the token's confirmation window. */
  windowEndsAt: Date;
}

export interface CertificationObservations {
  /** The first attempt of each triggered event's delivery to the endpoint under test, per type. */
  attempts: Record<string, ObservedAttempt | null>;
  wrongSecret: ProbeAnswer;
  staleTimestamp: ProbeAnswer;
  rotation: ProbeAnswer;
  /** The `property.updated` the run triggered: the property and when its delivery was answered. */
  propertyUpdated: { propertyId: string; at: Date } | null;
  /** The `availability.updated` the run triggered: property, `from`, `to` (exclusive), when answered. */
  availabilityUpdated: { propertyId: string; from: string; to: string; at: Date } | null;
  /** The `property.withdrawn` the run triggered, and when the run stopped watching. */
  withdrawn: { propertyId: string; at: Date; watchedUntil: Date } | null;
  /** The provoked 429: when the run filled the channel's window, and when that window ends. */
  throttle: { filledAt: Date; windowEndsAt: Date } | null;
  ownerConnect: OwnerConnectObservation | null;
  /** The channel's requests from the run's start to its end, oldest first. */
  requests: ObservedRequest[];
}

/** What one rule found: its outcome and the evidence for it. */
export type RuleVerdict = Pick<RuleRow, 'outcome' | 'evidence'>;

/** Each rule's title: what it asks, in the contract's words, one sentence. */
export const RULE_TITLES: Readonly<Record<CertificationRule, string>> = {
  answers_each_event_type: `Answer every event type's delivery with a 2xx within ${ANSWER_WITHIN_MS / 1000} seconds and do the work afterwards.`,
  refuses_wrong_secret: "Refuse a delivery when no `v1` signature matches the HMAC of the endpoint's secret.",
  refuses_stale_timestamp: "Reject a delivery whose timestamp is more than 5 minutes from the receiver's clock.",
  accepts_rotation_signatures:
    'Accept a delivery when any `v1` signature matches: while a secret rotates, two are sent.',
  rereads_named_resource: `Read the resource a \`property.updated\` names within ${REREAD_WITHIN_MS / 1000} seconds of its delivery.`,
  rereads_announced_range: `For \`availability.updated\`, re-read the property's range from \`from\` to \`to\` within ${REREAD_WITHIN_MS / 1000} seconds.`,
  pages_with_cursor: 'Page through a catalogue list by sending its `next_cursor` back as `cursor`.',
  resumes_with_updated_since: 'Resume a catalogue list with `updated_since`, the largest `updated_at` received.',
  honours_retry_after: 'Over the rate limit (429), wait the `Retry-After` seconds before making the request again.',
  stops_reading_withdrawn: 'Stop reading a withdrawn property: only its tombstone is served.',
  completes_owner_connect:
    'Confirm a handed-off owner-connect token with `PUT /owners/{owner_id}/connection` within its confirmation window.',
  dedupes_on_webhook_id:
    'Deduplicate deliveries on `webhook-id`: delivery is at least once and in no particular order.',
  applies_higher_versions_only: 'Apply a resource read only when its `version` is higher than the one held.',
};

/** The evidence of a rule the channel declares: the contract's receiving rule it follows. */
const DECLARED: Readonly<Partial<Record<CertificationRule, string>>> = {
  dedupes_on_webhook_id:
    'Declared by the channel, not observed: docs/contract.md#receiving-webhooks, rule 4 (delivery is at least once and in no particular order; deduplicate on webhook-id).',
  applies_higher_versions_only:
    'Declared by the channel, not observed: docs/contract.md#receiving-webhooks, rule 5 (read the named resource and apply it only when its version is higher than the one held).',
};

function verdicts(observations: CertificationObservations): Record<CertificationRule, RuleVerdict> {
  const { requests } = observations;
  const declared = (rule: CertificationRule): RuleVerdict => ({ outcome: 'self_declared', evidence: DECLARED[rule]! });
  return {
    answers_each_event_type: answersEachEventType(observations.attempts),
    refuses_wrong_secret: refusesProbe(observations.wrongSecret, 'signed with a wrong secret'),
    refuses_stale_timestamp: refusesProbe(
      observations.staleTimestamp,
      `webhook-timestamp ${STALE_TIMESTAMP_SECONDS} s in the past`,
    ),
    accepts_rotation_signatures: acceptsRotation(observations.rotation),
    rereads_named_resource: rereadsNamedResource(observations.propertyUpdated, requests),
    rereads_announced_range: rereadsAnnouncedRange(observations.availabilityUpdated, requests),
    pages_with_cursor: readsListWith('cursor', requests),
    resumes_with_updated_since: readsListWith('updated_since', requests),
    honours_retry_after: honoursRetryAfter(observations.throttle, requests),
    stops_reading_withdrawn: stopsReadingWithdrawn(observations.withdrawn, requests),
    completes_owner_connect: completesOwnerConnect(observations.ownerConnect),
    dedupes_on_webhook_id: declared('dedupes_on_webhook_id'),
    applies_higher_versions_only: declared('applies_higher_versions_only'),
  };
}

/** The report's rows, one per rule of CERTIFICATION_RULES in that order. */
export function judge(observations: CertificationObservations): RuleRow[] {
  const found = verdicts(observations);
  return CERTIFICATION_RULES.map((rule) => ({ rule, title: RULE_TITLES[rule], ...found[rule] }));
}

/** A run passes when no row failed. */
export function runPassed(rows: readonly RuleRow[]): boolean {
  return rows.every((row) => row.outcome !== 'failed');
}
