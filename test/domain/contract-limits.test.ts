import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { ANSWER_WITHIN_MS } from '../../clients/channel-kit/src/receiver-rules.ts';
import {
  CLOCK_SKEW_SECONDS as KIT_CLOCK_SKEW_SECONDS,
  MAX_LIFETIME_SECONDS as KIT_MAX_LIFETIME_SECONDS,
} from '../../clients/channel-kit/src/owner-connect.ts';
import { API_KEY_LENGTH, MAX_LIVE_KEYS } from '../../domain/api-keys.ts';
import { HORIZON_NIGHTS, MAX_PAGE_NIGHTS, MAX_WINDOW_NIGHTS } from '../../domain/availability/nights.ts';
import { MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { DEFAULT_PRECISION_M, PRECISION_RADII } from '../../domain/catalogue/geo.ts';
import { RETENTION_DAYS } from '../../domain/catalogue/retention.ts';
import { MAX_EVENT_PATTERNS } from '../../domain/events.ts';
import { CLOCK_SKEW_SECONDS, CONFIRMATION_WINDOW_SECONDS, TOKEN_LIFETIME_SECONDS } from '../../domain/owner-connect.ts';
import { PUBLICATION_LEAD_MS, RETIRED_OVERLAP_MS } from '../../domain/owner-connect-keys.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/pages.ts';
import { DELIVERY_RETENTION_MS } from '../../domain/webhooks/deliveries.ts';
import { MAX_ENDPOINTS, SECRET_OVERLAP_MS } from '../../domain/webhooks/endpoints.ts';
import { describeRetrySpan } from '../../domain/webhooks/retry-schedule.ts';
import { RECEIVER_ANSWER_MS } from '../../domain/webhooks/sending.ts';
import { SIGNATURE_TOLERANCE_SECONDS } from '../../domain/webhooks/signing.ts';

// docs/contract.md's limits table, row by row, against the constants the service enforces: a
// changed constant fails here until the table says the same, and a new row needs its constant.

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const COUNT_WORDS = ['none', 'one', 'two', 'three', 'four', 'five'];

const EXPECTED: Record<string, string> = {
  '`limit` of a list': `1 to ${PAGE_LIMIT_MAX}, default ${PAGE_LIMIT_DEFAULT}`,
  '`cursor`': `at most ${MAX_CURSOR_LENGTH} characters`,
  '`updated_since` retention': `${RETENTION_DAYS} days`,
  'availability query window': `\`to\` at most ${MAX_WINDOW_NIGHTS} nights after \`from\`, not beyond \`horizon_end\``,
  'availability page': `\`limit\` properties or ${MAX_PAGE_NIGHTS.toLocaleString('en')} nights, whichever comes first`,
  'availability horizon': `at least ${HORIZON_NIGHTS} nights ahead`,
  'webhook endpoints': `${MAX_ENDPOINTS} per channel`,
  'event types or patterns': `${MAX_EVENT_PATTERNS} per endpoint`,
  'webhook answer time': `${RECEIVER_ANSWER_MS / 1000} seconds`,
  'signature timestamp tolerance': `${SIGNATURE_TOLERANCE_SECONDS / 60} minutes`,
  'retry span': describeRetrySpan(),
  'deliveries kept': `${DELIVERY_RETENTION_MS / DAY_MS} days`,
  'previous secret overlap': `${SECRET_OVERLAP_MS / HOUR_MS} hours`,
  'owner-connect token':
    `\`exp\` at most ${TOKEN_LIFETIME_SECONDS} s after \`iat\`; confirmation until ` +
    `${CONFIRMATION_WINDOW_SECONDS} s after \`iat\`; ${CLOCK_SKEW_SECONDS} s clock skew`,
  'signing key publication': `${PUBLICATION_LEAD_MS / HOUR_MS} hours before it signs, ${RETIRED_OVERLAP_MS / HOUR_MS} hours after it retires`,
  'approximate location': `${PRECISION_RADII.slice(0, -1).join(', ')} or ${PRECISION_RADII.at(-1)} metres, default ${DEFAULT_PRECISION_M}`,
  'API key': `${API_KEY_LENGTH} characters; ${COUNT_WORDS[MAX_LIVE_KEYS]} per channel and environment`,
};

/** The rows of the table under `## Limits`, first cell to second. */
function limitsTable(): Record<string, string> {
  const text = readFileSync(join(import.meta.dirname, '../../docs/contract.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Limits'));
  const rows = section
    .slice(0, section.indexOf('\n## ', 1))
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map(
      (line) =>
        line
          .split('|')
          .slice(1, -1)
          .map((cell) => cell.trim()) as [string, string],
    );
  return Object.fromEntries(rows);
}

test("docs/contract.md's limits table states every limit as the constants enforce it, and no other", () => {
  expect(limitsTable()).toEqual(EXPECTED);
});

test("the channel kit's copies of the contract's limits are the service's", () => {
  expect({
    answerWithinMs: ANSWER_WITHIN_MS,
    tokenLifetimeSeconds: KIT_MAX_LIFETIME_SECONDS,
    clockSkewSeconds: KIT_CLOCK_SKEW_SECONDS,
  }).toEqual({
    answerWithinMs: RECEIVER_ANSWER_MS,
    tokenLifetimeSeconds: TOKEN_LIFETIME_SECONDS,
    clockSkewSeconds: CLOCK_SKEW_SECONDS,
  });
});
