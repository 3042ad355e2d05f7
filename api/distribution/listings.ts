import { z } from 'zod';
import {
  KNOWN_LISTING_STATUSES,
  LISTING_STATUS_PATTERN,
  MAX_PUBLIC_URL_LENGTH,
  MAX_REJECTION_TEXT_LENGTH,
  MAX_STAT_COUNT,
  MAX_STATS_ENTRIES,
  normalisePublicListingUrl,
  REJECTION_REASON_PATTERN,
  REPORT_RULES_SCHEMA,
  reportRuleErrors,
  STATS_DAYS_BACK,
} from '../../domain/listings/report.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { toInstant } from '../../domain/time.ts';
import {
  getListingReport,
  listingStatsRuleErrors,
  postListingStats,
  putListingReport,
} from '../../services/listings.ts';
import { PlainText } from '../schemas/common.ts';
import { defineOperation } from '../operations.ts';
import { ReadBackInstant } from '../read-back.ts';
import { memberOf, tooLong, wellFormedFields } from '../validation.ts';

const tags = ['Listing reports'];
const scopes = ['write:listings' as const];

const PropertyParams = z.object({
  property_id: z.string().meta({
    description:
      'A `prp_` id of this channel; a property the channel does not see (withdrawn and deleted included) or a malformed id is 404 `not_found`.',
  }),
});

// Years 1970 to 9999: an instant the database and every reader take back as it was written (a year
// such as 0024 was stored and then broke every later read of the report).
const Instant = z.iso
  .datetime({ offset: true, message: 'an RFC 3339 instant such as 2026-11-22T09:30:00Z', abort: true })
  .regex(/^(?:19[7-9]\d|[2-9]\d{3})-/, { message: 'an instant in the years 1970 to 9999' })
  .transform((text) => toInstant(new Date(text)));

const Status = z
  .string()
  .regex(new RegExp(LISTING_STATUS_PATTERN), { message: 'a lowercase word (a-z, 0-9, _), at most 40 characters' })
  .meta({
    pattern: LISTING_STATUS_PATTERN,
    description: `The listing's state on the channel: ${KNOWN_LISTING_STATUSES.map((s) => `\`${s}\``).join(', ')}. Open enum: another lowercase word (at most 40 characters) is stored and shown as reported.`,
    examples: ['published'],
  });

const PublicUrl = z
  .string()
  .transform((text, ctx) => {
    const checked = normalisePublicListingUrl(text);
    if ('url' in checked) return checked.url;
    ctx.addIssue({ code: 'custom', message: checked.detail, params: { code: checked.code } });
    return z.NEVER;
  })
  .meta({
    format: 'uri',
    pattern: '^https://',
    maxLength: MAX_PUBLIC_URL_LENGTH,
    description:
      'Where guests see the listing: required with `published`, `null` otherwise. An absolute `https://` URL with a host and no credentials (rule code `https_only`), ' +
      'without spaces, quotes, angle brackets, backslashes or control characters (`url_characters`). Stored and answered in its WHATWG URL serialisation ' +
      '(lowercase host, punycode, no default port or dot segments, percent-encoded), which is at most 2048 characters (`max`).',
  });

const Rejection = z
  .object({
    reason: z
      .string()
      .regex(new RegExp(REJECTION_REASON_PATTERN), { message: 'a lowercase word (a-z, 0-9, _), at most 40 characters' })
      .meta({
        pattern: REJECTION_REASON_PATTERN,
        description:
          'Why moderation refused it, a lowercase word such as `photos`, `description`, `legal`, `duplicate`.',
      }),
    text: PlainText.max(MAX_REJECTION_TEXT_LENGTH)
      .nullable()
      .default(null)
      .meta({
        description: `The channel's explanation for the host, plain text, at most ${MAX_REJECTION_TEXT_LENGTH} characters; \`null\` or absent when there is none.`,
      }),
  })
  .strict();

export const ListingReportInput = z
  .object({
    status: Status,
    public_url: PublicUrl.nullable().default(null),
    promoted: z
      .boolean()
      .default(false)
      .meta({ description: 'Promoted (featured or boosted) on the channel now; absent means `false`.' }),
    promoted_until: Instant.nullable().default(null).meta({
      description:
        'When the promotion ends; `null` (or absent) when it has no end or the listing is not promoted. Must be `null` when `promoted` is false (rule code `not_allowed`). A fraction of a second is dropped.',
    }),
    rejection: Rejection.nullable().default(null).meta({
      description: 'Required with `rejected`, refused with any other status (rule codes `required`, `not_allowed`).',
    }),
  })
  .strict()
  .meta({
    id: 'ListingReportInput',
    description:
      'The whole report: it replaces the previous one. Absent optional fields take their default (`null`, `false`).',
    // The rules tying fields together, as the service checks them after each field's own shape.
    allOf: REPORT_RULES_SCHEMA,
    examples: [
      {
        status: 'published',
        public_url: 'https://travel.example/stay/1234',
        promoted: true,
        promoted_until: '2026-12-31T22:00:00Z',
      },
      { status: 'rejected', rejection: { reason: 'photos', text: 'The photos show another property.' } },
    ],
  });

const ListingReport = z
  .object({
    property_id: z.string(),
    status: z.string().meta({ description: 'As reported (open enum).' }),
    public_url: z.string().nullable(),
    promoted: z.boolean(),
    promoted_until: z.string().nullable(),
    rejection: z.object({ reason: z.string(), text: z.string().nullable() }).nullable(),
    updated_at: z.string().meta({
      description:
        'When the reported state last changed: the receipt of the first report stating it. A re-sent identical report keeps it.',
    }),
    received_at: z.string().meta({ description: 'When the service received the last report, identical or not.' }),
  })
  .meta({
    id: 'ListingReport',
    examples: [
      {
        property_id: 'prp_0h2k4m6p8r0t2v4x6z8b0d2f4h',
        status: 'published',
        public_url: 'https://travel.example/stay/1234',
        promoted: false,
        promoted_until: null,
        rejection: null,
        updated_at: '2026-11-20T08:00:00Z',
        received_at: '2026-11-22T08:00:00Z',
      },
    ],
  });

const REPORT_NOTES =
  "Scope `write:listings` for the read as for the write (the contract leaves the read's scope unshown): a channel reads back only what it reports. " +
  "A property the channel does not see (never distributed to it, another channel's, withdrawn or deleted, or a malformed id) is 404 `not_found`, answered identically in every case. " +
  'The service is the receiver of reports: no event and no webhook follows one.';

export const putListingReportOperation = defineOperation({
  operationId: 'putListingReport',
  method: 'put',
  path: '/properties/{property_id}/listing',
  summary: 'Report the publication state of a property on the channel',
  description:
    "Replaces the channel's report on the property and answers it as stored. `public_url` is required with `published` and `null` otherwise; `rejection` is required with `rejected` and refused otherwise. " +
    "`updated_at` is when the reported state last changed (a re-sent identical report keeps it and gets a new `received_at`); every change is kept in the report's history, which the host sees. " +
    "The report as the GET answers it may be sent back whole: its `property_id` must be the path's (rule code `path_mismatch`), its `updated_at` and `received_at` are ignored. " +
    `A refused report writes nothing. ${REPORT_NOTES}`,
  tags,
  scopes,
  params: PropertyParams,
  body: ListingReportInput,
  // The report is "returned by GET and sent to PUT": what the GET answers is taken back.
  readBack: {
    readOnly: { updated_at: ReadBackInstant, received_at: ReadBackInstant },
    identity: { field: 'property_id', param: 'property_id' },
  },
  // The rules between fields, over the fields whose own shape holds.
  laterRules: ({ body }) => Promise.resolve(reportRuleErrors(wellFormedFields(ListingReportInput, body))),
  responses: { 200: { description: 'The report as stored', schema: ListingReport } },
  problems: ['invalid_parameters', 'not_found', 'insufficient_scope'],
  handler: async ({ params, body, caller, deps }) => ({
    body: await putListingReport(deps, caller.channel.id, params.property_id, body),
  }),
});

export const getListingReportOperation = defineOperation({
  operationId: 'getListingReport',
  method: 'get',
  path: '/properties/{property_id}/listing',
  summary: "The channel's last listing report for a property",
  description: `The last report the channel sent, as the PUT answered it; 404 \`not_found\` until one was sent. ${REPORT_NOTES}`,
  tags,
  scopes,
  params: PropertyParams,
  responses: { 200: { description: 'The last report', schema: ListingReport } },
  problems: ['not_found', 'insufficient_scope'],
  handler: async ({ params, caller, deps }) => ({
    body: await getListingReport(deps, caller.channel.id, params.property_id),
  }),
});

const Count = z.int().min(0).max(MAX_STAT_COUNT);

const StatsEntry = z
  .object({
    // The service checks the id with the other rules of the request (`isExternalId`), so that one
    // refusal lists every failed rule; the description states the same pattern.
    property_id: z.string().max(64).meta({
      pattern: ID_PATTERNS.property.source,
      description: 'A `prp_` id the channel sees (active or inactive); any other is refused (rule code `not_found`).',
    }),
    date: z.iso.date({ message: 'a date YYYY-MM-DD' }).meta({
      description: `The property's local date (its location's time zone), from ${STATS_DAYS_BACK} days before the property's today through today (rule codes \`too_old\`, \`in_the_future\`).`,
    }),
    views: Count.meta({ description: 'Times the listing was shown that day: a non-negative integer.' }),
    clicks_to_booking: Count.meta({
      description:
        'Clicks from the listing towards booking that day: a non-negative integer, at most `views` (rule code `exceeds_views`).',
    }),
  })
  .strict()
  .superRefine((entry, ctx) => {
    // Compared only when both are counts: a bad `views` is reported once, on itself.
    if (Count.safeParse(entry.views).success && entry.clicks_to_booking > entry.views)
      ctx.addIssue({
        code: 'custom',
        path: ['clicks_to_booking'],
        message: 'at most `views`',
        params: { code: 'exceeds_views' },
      });
  });

export const ListingStatsInput = z
  .object({ data: z.array(StatsEntry).min(1).max(MAX_STATS_ENTRIES) })
  .strict()
  .meta({
    id: 'ListingStatsInput',
    description: `1 to ${MAX_STATS_ENTRIES} days, each a property, its local date and that day's counts.`,
    examples: [
      {
        data: [
          { property_id: 'prp_0h2k4m6p8r0t2v4x6z8b0d2f4h', date: '2026-11-21', views: 412, clicks_to_booking: 17 },
          { property_id: 'prp_0h2k4m6p8r0t2v4x6z8b0d2f4h', date: '2026-11-22', views: 120, clicks_to_booking: 3 },
        ],
      },
    ],
  });

export const postListingStatsOperation = defineOperation({
  operationId: 'postListingStats',
  method: 'post',
  path: '/listing-stats',
  summary: 'Report daily listing statistics',
  description:
    "Daily counts per property, for the host's dashboard. A later report for the same (channel, property, date) replaces the earlier one, so re-sending a day with its final counts is safe. " +
    'The request is taken whole or refused whole with 400 `invalid_parameters`, one entry per failed rule with its JSON pointer (`/data/3/clicks_to_booking`): ' +
    "a property the channel does not see (`not_found`), a date after the property's today (`in_the_future`) or more than 35 days before it (`too_old`), `clicks_to_booking` above `views` (`exceeds_views`), " +
    'and the same property and date twice in one request (`duplicate`, on the later entry: send each day once). A refused request writes nothing. ' +
    'The answer counts the days stored: `{"accepted": n}`. No event and no webhook follows. The body may be up to 256 KiB (other operations: 64 KiB).',
  tags,
  scopes,
  body: ListingStatsInput,
  // 1,000 entries with long counts are about 110 KiB: above the interface's 64 KiB.
  bodyLimit: 256 * 1024,
  // The rules against the channel's properties, over each entry's well-formed `property_id` and
  // `date`; not for a list of more entries than a request takes, refused for its length alone.
  laterRules: ({ body, caller, deps }) => {
    const data = memberOf(body, 'data');
    if (!Array.isArray(data) || tooLong(ListingStatsInput.shape.data, data)) return Promise.resolve([]);
    return listingStatsRuleErrors(
      deps,
      caller.channel.id,
      data.map((entry: unknown) => wellFormedFields(StatsEntry, entry)),
    );
  },
  responses: {
    200: {
      description: 'Every day stored',
      schema: z.object({ accepted: z.int() }).meta({ id: 'ListingStatsAccepted', examples: [{ accepted: 2 }] }),
    },
  },
  problems: ['invalid_parameters', 'insufficient_scope'],
  handler: async ({ body, caller, deps }) => ({ body: await postListingStats(deps, caller.channel.id, body.data) }),
});

export const listingOperations = [getListingReportOperation, putListingReportOperation, postListingStatsOperation];
