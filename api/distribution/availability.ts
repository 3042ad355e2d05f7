import { z } from 'zod';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { availabilityPage, availabilityRuleErrors } from '../../services/availability-page.ts';
import { chargeMore } from '../middleware/rate-limit.ts';
import { defineOperation } from '../operations.ts';
import { wellFormedFields } from '../validation.ts';
import { Instant } from '../schemas/common.ts';
import { Tombstone } from '../schemas/records.ts';

const NIGHTS_PER_UNIT = 1000;

const LocalDate = z.iso.date({ message: 'a date YYYY-MM-DD' });

export const AvailabilityQuery = z
  .object({
    from: LocalDate.optional().meta({
      description:
        "First night, in each property's local dates; the property's today when earlier (earlier nights are not kept). Default: the property's today.",
    }),
    to: LocalDate.optional().meta({
      description:
        "Exclusive, so after `from` (`to` equal to or before `from`: 400 `invalid_parameters`); at most 365 nights after the first night (`from`, or the property's today when later; else 400 `invalid_parameters`, rule `max_nights`) and not beyond `horizon_end` (else 400 `window_beyond_horizon`). Default: `horizon_end`. " +
        "With `property_id`, the property's own `horizon_end`; in a listing, where properties in zones a day apart have horizons a day apart, the latest `horizon_end` of any property: each property's nights stop at its own (its record's `to`).",
    }),
    property_id: z
      .string()
      .optional()
      .meta({ description: 'Only this property (`prp_` id); 404 when the channel does not see it.' }),
    updated_since: z.iso.datetime({ offset: true, message: 'an RFC 3339 instant' }).optional().meta({
      description:
        'Only properties whose availability changed at or after this instant, and, as tombstones, those withdrawn or deleted since. Older than 35 days: 410 `sync_window_expired`.',
    }),
    limit: z.coerce
      .number()
      .int()
      .min(1)
      .max(500)
      .default(100)
      .meta({ description: 'Properties per page, 1 to 500; a page also ends at 5,000 nights.' }),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional().meta({
      pattern: CURSOR_PATTERN,
      description:
        'The `next_cursor` of the previous page, bound to the query that produced it; any other value: 400 `invalid_cursor`.',
    }),
  })
  .strict()
  // `max_nights` needs the first night, `from` or the property's today: services/availability-page.ts.
  .superRefine((query, ctx) => {
    // Judged between two dates only: a malformed one is named once, by its own rule.
    if (!LocalDate.safeParse(query.from).success || !LocalDate.safeParse(query.to).success) return;
    if (query.from && query.to && query.from >= query.to)
      ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` is after `from`', params: { code: 'range' } });
  });

const Money = z.object({ amount: z.int(), currency: z.string() });
const Night = z.object({
  date: z.string(),
  units_available: z.int(),
  closed_to_arrival: z.boolean(),
  closed_to_departure: z.boolean(),
  rates: z.array(
    z.object({
      rate_plan_id: z.string(),
      price: Money.optional().meta({
        description:
          'Lowest price of `prices_by_occupancy`. Absent, with `base_occupancy` and `extra_guest_price`, on a night the plan has no price (then `closed` and `prices_by_occupancy` empty).',
      }),
      base_occupancy: z
        .int()
        .optional()
        .meta({ description: 'The most adults charged `price`; absent when the plan has no price that night.' }),
      extra_guest_price: Money.optional().meta({
        description:
          'What the adult after `base_occupancy` adds (0 when none can be added); absent when the plan has no price that night.',
      }),
      closed: z.boolean(),
      prices_by_occupancy: z.array(z.object({ adults: z.int(), price: Money })),
      child_prices: z.array(z.object({ age_from: z.int(), age_to: z.int(), price: Money })),
      child_price: Money.optional().meta({
        description: 'What a child adds when the plan names no age bands; absent when the host set none.',
      }),
      infant_price: Money.optional().meta({ description: 'What an infant adds; absent when the host set none.' }),
      min_stay: z.int().min(1).meta({
        description: "The plan's own minimum stay; 1 when it sets none (the night's `min_stay` still applies).",
      }),
      closed_to_arrival: z.boolean(),
    }),
  ),
  min_stay: z.int().min(1),
  max_stay: z.int().min(1).meta({
    description:
      'Longest stay arriving this night; 365 (the longest stay one query window covers) when the host sets no maximum.',
  }),
});
const AvailabilityRecord = z
  .object({
    property_id: z.string(),
    currency: z.string(),
    version: z.int(),
    updated_at: Instant,
    from: z.string(),
    to: z.string().meta({ description: 'Exclusive: the nights of this record are `from` up to `to`.' }),
    horizon_end: z.string().meta({
      description:
        "Exclusive: 365 nights after the property's today, the longest window. It moves at the property's local midnight.",
    }),
    data: z.array(Night),
  })
  .meta({
    id: 'AvailabilityRecord',
    description:
      "One property's nights; a property's nights may continue on the next page under the same `property_id`. A property withdrawn or deleted comes as a Tombstone under `updated_since`.",
  });
const AvailabilityPage = z
  .object({ data: z.array(z.union([AvailabilityRecord, Tombstone])), next_cursor: z.string().nullable() })
  .meta({
    id: 'AvailabilityPage',
    description: 'A page of availability records; tombstones appear only with `updated_since`.',
  });

export const listAvailability = defineOperation({
  operationId: 'listAvailability',
  method: 'get',
  path: '/availability',
  summary: 'Nightly availability, prices and restrictions',
  description:
    "Every night from each property's today (its own zone) up to `horizon_end` is present; a night a plan has no price for carries that plan `closed`. " +
    'A page ends at `limit` properties or 5,000 nights, whichever comes first, whatever the window, and costs `max(1, ceil(nights / 1000))` rate-limit units.\n\n' +
    "`horizon_end` is exactly 365 nights after the property's today, the longest window: a pull without `from` and `to` reads every property's whole horizon, and every range an `availability.updated` names is read with its own `from` and `to`. " +
    "`horizon_end` moves at the property's local midnight, and the daily roll that follows announces the night it added. " +
    "Dates are each property's own, so properties in zones a day apart have horizons a day apart: one window from the earliest today to the latest `horizon_end` reads them all, each record stopping at its property's own `horizon_end`.\n\n" +
    'Properties are listed in the order their availability last changed, full listings too: a property that changes while a channel pages through the list moves behind it and is listed again. ' +
    'With `updated_since`, send the largest `updated_at` received as the next `updated_since`: nothing that changed is skipped. ' +
    'A property withdrawn or deleted since comes, in that order, as a Tombstone (`{id, status, version, updated_at}`): stop selling its nights. Its `version` is higher than any its nights were read at, and a withdrawn property that comes back is listed again with a higher one. ' +
    "A property cut at 5,000 nights continues on the next page from the night after, unless it changed in between: then it is listed again from its window's first night, with its new `version`.",
  tags: ['Availability'],
  scopes: ['read:ari'],
  readsCallerIdentityOnly: true,
  paged: true,
  query: AvailabilityQuery,
  responses: {
    200: {
      description: 'A page of availability records and, with `updated_since`, tombstones',
      schema: AvailabilityPage,
    },
  },
  laterRules: ({ query, caller, deps }) =>
    availabilityRuleErrors(deps, caller.channel.id, wellFormedFields(AvailabilityQuery, query)),
  problems: ['invalid_parameters', 'invalid_cursor', 'window_beyond_horizon', 'sync_window_expired', 'not_found'],
  handler: async ({ query, caller, deps, res }) => {
    const page = await availabilityPage(deps, caller.channel.id, query);
    // The page's buffer is reused for a later page once this answer is closed: sent, 304, refused or cut off.
    res.once('close', page.release);
    // The first unit was counted on arrival; a page of many nights costs more.
    const units = Math.max(1, Math.ceil(page.nights / NIGHTS_PER_UNIT));
    if (units > 1) await chargeMore(deps, res, units - 1);
    // A page is fully named by its records' ids, availability versions, night ranges and horizons
    // (every change to a night moves the version; plan ids never change; `horizon_end` moves at
    // local midnight) and its tombstones' ids, versions and statuses, so the ETag hashes that.
    return {
      jsonChunks: ['{"data":[', page.records, `],"next_cursor":${JSON.stringify(page.nextCursor)}}`],
      etagBasis: `availability|${page.identity.join(',')}|${page.nextCursor ?? ''}`,
      nextCursor: page.nextCursor,
    };
  },
});
