import { ulid } from 'ulid';
import { CERTIFICATION_RULES, RULE_TITLES, type RuleOutcome, type RuleRow } from './rules.ts';

/**
 * A certification run as it is kept (db/certification-runs.ts) and shown: its id, state, the step
 * under way, the owner-connect hand-off while it waits for one, and one row per rule, pending
 * until the run judges (domain/certification/rules.ts). The rules themselves are judged there.
 */

export const CERTIFICATION_ID_PREFIX = 'crt_';
const ID_PATTERN = /^crt_[0-7][0-9a-hjkmnp-tv-z]{25}$/;

export const CERTIFICATION_STATES = ['running', 'passed', 'failed'] as const;
export type CertificationState = (typeof CERTIFICATION_STATES)[number];

/** A row before the run judged it: `pending`; after, the judge's outcome. */
export type RowOutcome = RuleOutcome | 'pending';
export interface ReportRow extends Omit<RuleRow, 'outcome'> {
  outcome: RowOutcome;
}

/** Runs a list answers at most (and by default): a channel's newest. */
export const CERTIFICATION_LIST_MAX = 20;

/** A ULID id under `crt_`, from the caller's clock (epoch milliseconds). */
export function newCertificationId(now: number): string {
  return CERTIFICATION_ID_PREFIX + ulid(now).toLowerCase();
}

export function isCertificationId(value: unknown): value is string {
  return typeof value === 'string' && ID_PATTERN.test(value);
}

/** Every rule of the run, pending: what a run shows before it judged. */
export function pendingRows(): ReportRow[] {
  return CERTIFICATION_RULES.map((rule) => ({
    rule,
    title: RULE_TITLES[rule],
    outcome: 'pending',
    evidence: 'not judged yet',
  }));
}

/** The owner-connect hand-off a run shows while it waits for the confirmation. */
export interface CertificationHandOff {
  ownerId: string;
  token: string;
  redirectUrl: string;
  /** When the run stops waiting for the confirmation. */
  windowEndsAt: Date;
}

export interface CertificationRun {
  id: string;
  channelId: string;
  webhookId: string;
  state: CertificationState;
  /** What the run does now, one sentence; null once it ended. */
  step: string | null;
  handOff: CertificationHandOff | null;
  rows: ReportRow[];
  startedAt: Date;
  finishedAt: Date | null;
}
