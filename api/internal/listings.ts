import { z } from 'zod';
import { daysBetween } from '../../domain/availability/nights.ts';
import { Ref } from '../../domain/catalogue/source.ts';
import { MAX_STATS_RANGE_DAYS } from '../../domain/listings/report.ts';
import { propertyListings, propertyStats } from '../../services/listing-reads.ts';
import { defineOperation } from '../operations.ts';
import { PropertyListings, PropertyStats } from './records.ts';

/** The platform reads what channels reported about a property (for the host's dashboard). */
const tags = ['Platform'];
const problems = ['invalid_parameters', 'platform_token_invalid', 'not_found'] as const;
const RefParams = z.object({ ref: Ref }).strict();

export const getPropertyListings = defineOperation({
  operationId: 'getPropertyListings',
  method: 'get',
  path: '/properties/{ref}/listings',
  summary: "Each channel's listing report on a property, with its history",
  description:
    '`{property, data: [{channel, property_id, status, public_url, promoted, promoted_until, rejection, updated_at, received_at, history}]}`, one entry per channel that reported, by channel name. ' +
    '`property_id` is the id the channel knows the property by. `updated_at` is when the reported state last changed, `received_at` the last receipt. ' +
    '`history` lists the changes of the reported state, newest first (the latest 100), each with `changed_at`; an identical re-sent report adds none.',
  tags,
  scopes: null,
  params: RefParams,
  responses: { 200: { description: "The channels' reports", schema: PropertyListings } },
  problems: [...problems],
  handler: async ({ params, deps }) => ({ body: await propertyListings(deps, params.ref) }),
});

const LocalDate = z.iso.date({ message: 'a date YYYY-MM-DD' });

const StatsQuery = z
  .object({
    from: LocalDate.meta({ description: "First date (the property's local date)." }),
    to: LocalDate.meta({ description: `Exclusive; after \`from\` and at most ${MAX_STATS_RANGE_DAYS} days after it.` }),
  })
  .strict()
  .superRefine((query, ctx) => {
    // Judged between two dates only: a malformed one is named once, by its own rule.
    if (!LocalDate.safeParse(query.from).success || !LocalDate.safeParse(query.to).success) return;
    if (query.to <= query.from)
      ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` is after `from`', params: { code: 'range' } });
    else if (daysBetween(query.from, query.to) > MAX_STATS_RANGE_DAYS)
      ctx.addIssue({
        code: 'custom',
        path: ['to'],
        message: `at most ${MAX_STATS_RANGE_DAYS} days after \`from\``,
        params: { code: 'max_days' },
      });
  });

export const getPropertyStats = defineOperation({
  operationId: 'getPropertyStats',
  method: 'get',
  path: '/properties/{ref}/stats',
  summary: "Each channel's daily statistics of a property",
  description:
    '`{property, from, to, data: [{channel, days: [{date, views, clicks_to_booking}]}]}`, channels by name, days in order; a day the channel did not report is absent.',
  tags,
  scopes: null,
  params: RefParams,
  query: StatsQuery,
  responses: { 200: { description: 'Daily views and clicks per channel', schema: PropertyStats } },
  problems: [...problems],
  handler: async ({ params, query, deps }) => ({ body: await propertyStats(deps, params.ref, query.from, query.to) }),
});

export const listingReadOperations = [getPropertyListings, getPropertyStats];
