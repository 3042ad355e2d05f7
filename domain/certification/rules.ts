/**
 * A sandbox certification run's rules, judged from what the service observed of the channel's own
 * integration: the answers its receiver gave to deliveries, the requests its keys made (the sandbox
 * request log) and the owner connection it confirmed. Pure: the run (workflows/certification.ts)
 * gathers the observations, these functions turn them into one row per rule with its evidence.
 * Rules no observation can prove are listed as self-declared.
 */

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

/** A receiver must answer a delivery 2xx within this long (the contract's receiver rule 6). */
export const ANSWER_WITHIN_MS = 10_000;
/** How long after an event the channel has to read what it names. */
export const REREAD_WITHIN_MS = 30_000;
/** A probe's timestamp is this far in the past: beyond the receiver's 5-minute tolerance. */
export const STALE_TIMESTAMP_SECONDS = 600;

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

/** The report's rows, one per rule of CERTIFICATION_RULES in that order. */
export function judge(observations: CertificationObservations): RuleRow[] {
  void observations;
  throw new Error('not implemented');
}

/** A run passes when no row failed. */
export function runPassed(rows: readonly RuleRow[]): boolean {
  return rows.every((row) => row.outcome !== 'failed');
}
