import { addDays } from '../time.ts';

/**
 * Listing reports and daily statistics: what a channel tells the service about a property on
 * its side. Pure rules, shared by the API's validation, the service and the dashboard.
 */

/** The contract's listing states; the enum is open, so any lowercase word of this shape is kept. */
export const KNOWN_LISTING_STATUSES = ['published', 'unpublished', 'pending_review', 'rejected'] as const;
export const LISTING_STATUS_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
export const REJECTION_REASON_PATTERN = '^[a-z][a-z0-9_]{0,39}$';
export const MAX_PUBLIC_URL_LENGTH = 2048;
export const MAX_REJECTION_TEXT_LENGTH = 2000;

/** Statistics: a report covers up to this many entries; a date at most this many days before the property's today. */
export const MAX_STATS_ENTRIES = 1000;
export const STATS_DAYS_BACK = 35;
/** A count fits a PostgreSQL integer. */
export const MAX_STAT_COUNT = 2_147_483_647;
/** The platform's statistics read covers at most this many days. */
export const MAX_STATS_RANGE_DAYS = 366;

export interface ReportedState {
  status: string;
  public_url: string | null;
  promoted: boolean;
  /** Whole-second instant, `Z`. */
  promoted_until: string | null;
  rejection: { reason: string; text: string | null } | null;
}

/** One failed rule of a report, as a pointer into the request body. */
export interface ReportRuleError {
  pointer: string;
  code: string;
  detail: string;
}

/**
 * Refused in a listing URL as sent: whitespace, quotes, angle brackets, backslashes and control
 * characters. A URL parser would silently encode or reinterpret each of them (a space, a `\` read
 * as `/`), so what the host is shown would not be what the channel meant; a real listing address
 * never contains one.
 */
const REFUSED_URL_CHARACTERS = /[\s"'`<>\\\p{Cc}]/u;

export type PublicUrlCheck = { url: string } | { code: 'url_characters' | 'https_only' | 'max'; detail: string };

/**
 * The listing's public address as stored and shown: its WHATWG URL serialisation (lowercase host,
 * punycode, default port and dot segments dropped, percent-encoding). Refused: a refused
 * character, anything that is not an absolute `https://` URL with a host and without credentials,
 * and a serialisation longer than the limit.
 */
export function normalisePublicListingUrl(text: string): PublicUrlCheck {
  if (REFUSED_URL_CHARACTERS.test(text))
    return { code: 'url_characters', detail: 'no spaces, quotes, angle brackets, backslashes or control characters' };
  const parsed = text.startsWith('https://') ? URL.parse(text) : null;
  if (
    !parsed ||
    parsed.protocol !== 'https:' ||
    parsed.hostname === '' ||
    parsed.username !== '' ||
    parsed.password !== ''
  ) {
    return { code: 'https_only', detail: 'an absolute https:// address with a host' };
  }
  if (parsed.href.length > MAX_PUBLIC_URL_LENGTH)
    return { code: 'max', detail: `at most ${MAX_PUBLIC_URL_LENGTH} characters once normalised` };
  return { url: parsed.href };
}

/**
 * `reportRuleErrors` in JSON Schema (2020-12), for the description: what a report must hold given
 * its status and `promoted`. Absent fields take their defaults (`null`, `false`), so "must be null"
 * also allows absence. Held to `reportRuleErrors` by test/api/openapi-strictness.test.ts.
 */
export const REPORT_RULES_SCHEMA = [
  {
    if: { properties: { status: { const: 'published' } }, required: ['status'] },
    then: { properties: { public_url: { type: 'string' } }, required: ['public_url'] },
    else: { properties: { public_url: { type: 'null' } } },
  },
  {
    if: { properties: { status: { const: 'rejected' } }, required: ['status'] },
    then: { properties: { rejection: { type: 'object' } }, required: ['rejection'] },
    else: { properties: { rejection: { type: 'null' } } },
  },
  {
    if: { properties: { promoted: { const: true } }, required: ['promoted'] },
    else: { properties: { promoted_until: { type: 'null' } } },
  },
];

/**
 * The rules tying the fields of a report together (each field's own shape is checked before). A
 * field left out (absent from a report whose shape was refused there) is unknown: a rule that reads
 * it is not checked, so a refusal names a broken field once, by its own rule.
 */
export function reportRuleErrors(state: Partial<ReportedState>): ReportRuleError[] {
  const errors: ReportRuleError[] = [];
  const { status, public_url: publicUrl, rejection, promoted, promoted_until: promotedUntil } = state;
  if (status === 'published' && publicUrl === null) {
    errors.push({ pointer: '/public_url', code: 'required', detail: '`public_url` is required with `published`' });
  }
  if (status !== undefined && status !== 'published' && publicUrl !== undefined && publicUrl !== null) {
    errors.push({
      pointer: '/public_url',
      code: 'not_allowed',
      detail: '`public_url` is `null` unless the status is `published`',
    });
  }
  if (status === 'rejected' && rejection === null) {
    errors.push({ pointer: '/rejection', code: 'required', detail: '`rejection` is required with `rejected`' });
  }
  if (status !== undefined && status !== 'rejected' && rejection !== undefined && rejection !== null) {
    errors.push({
      pointer: '/rejection',
      code: 'not_allowed',
      detail: '`rejection` is refused unless the status is `rejected`',
    });
  }
  if (promoted === false && promotedUntil !== undefined && promotedUntil !== null) {
    errors.push({
      pointer: '/promoted_until',
      code: 'not_allowed',
      detail: '`promoted_until` is `null` when `promoted` is false',
    });
  }
  return errors;
}

/** Two reports state the same thing: a re-sent identical report keeps `updated_at`. */
export function sameReportedState(a: ReportedState, b: ReportedState): boolean {
  return (
    a.status === b.status &&
    a.public_url === b.public_url &&
    a.promoted === b.promoted &&
    a.promoted_until === b.promoted_until &&
    (a.rejection?.reason ?? null) === (b.rejection?.reason ?? null) &&
    (a.rejection?.text ?? null) === (b.rejection?.text ?? null)
  );
}

/**
 * Why a statistics date is refused for a property whose local date is `today`, or null when it
 * is accepted: from `today` minus 35 days through `today`, both included.
 */
export function statsDateError(date: string, today: string): { code: string; detail: string } | null {
  if (date > today) return { code: 'in_the_future', detail: `after the property's today (${today})` };
  const oldest = addDays(today, -STATS_DAYS_BACK);
  if (date < oldest)
    return {
      code: 'too_old',
      detail: `before ${oldest}: at most ${STATS_DAYS_BACK} days before the property's today (${today})`,
    };
  return null;
}
