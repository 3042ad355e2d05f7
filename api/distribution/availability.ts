import { z } from 'zod';
import { addDays, daysBetween, MAX_PAGE_NIGHTS, MAX_WINDOW_NIGHTS, PLACEHOLDER_IN_JSON, planPlaceholder } from '../../domain/availability/nights.ts';
import { pgArray } from '../../db/sql.ts';
import { decodeCursor, encodeCursor, hashQuery, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { localDate, toInstant } from '../../domain/time.ts';
import { chargeOf } from '../middleware/rate-limit.ts';
import { defineOperation } from '../operations.ts';
import { ProblemError } from '../../domain/problems.ts';
import { Instant } from '../schemas/common.ts';
import { RETENTION_DAYS } from './catalogue.ts';

const RETENTION_MS = RETENTION_DAYS * 24 * 3600 * 1000;
const NIGHTS_PER_UNIT = 1000;

const LocalDate = z.iso.date({ message: 'a date YYYY-MM-DD' });

export const AvailabilityQuery = z
  .object({
    from: LocalDate.optional().meta({ description: "First night, in each property's local dates. Default: the property's today (earlier nights are not kept)." }),
    to: LocalDate.optional().meta({ description: "Exclusive; at most 365 nights after `from` and not beyond the property's `horizon_end` (else 400 `window_beyond_horizon`). Default: `horizon_end`, or `from` + 365." }),
    property_id: z.string().optional().meta({ description: 'Only this property (`prp_` id); 404 when the channel does not see it.' }),
    updated_since: z.iso.datetime({ offset: true, message: 'an RFC 3339 instant' }).optional().meta({ description: 'Only properties whose availability changed at or after this instant. Older than 35 days: 410 `sync_window_expired`.' }),
    limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Properties per page, 1 to 500; a page also ends at 5,000 nights.' }),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional(),
  })
  .strict()
  .superRefine((query, ctx) => {
    if (query.from && query.to && query.from >= query.to) ctx.addIssue({ code: 'custom', path: ['to'], message: '`to` is after `from`', params: { code: 'range' } });
    else if (query.from && query.to && daysBetween(query.from, query.to) > MAX_WINDOW_NIGHTS) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: `at most ${MAX_WINDOW_NIGHTS} nights after from`, params: { code: 'max_nights' } });
    }
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
      price: Money.nullable().meta({ description: 'Lowest price of `prices_by_occupancy`; null on a night the plan has no price (then `closed`).' }),
      base_occupancy: z.int().nullable(),
      extra_guest_price: Money.nullable(),
      closed: z.boolean(),
      prices_by_occupancy: z.array(z.object({ adults: z.int(), price: Money })),
      child_prices: z.array(z.object({ age_from: z.int(), age_to: z.int(), price: Money })),
      child_price: Money.nullable(),
      infant_price: Money.nullable(),
      min_stay: z.int().nullable(),
      closed_to_arrival: z.boolean(),
    }),
  ),
  min_stay: z.int(),
  max_stay: z.int().nullable(),
});
const AvailabilityRecord = z
  .object({
    property_id: z.string(),
    currency: z.string(),
    version: z.int(),
    updated_at: Instant,
    from: z.string(),
    to: z.string().meta({ description: 'Exclusive: the nights of this record are `from` up to `to`.' }),
    horizon_end: z.string(),
    data: z.array(Night),
  })
  .meta({ id: 'AvailabilityRecord', description: "One property's nights; a property's nights may continue on the next page under the same `property_id`." });
const AvailabilityPage = z.object({ data: z.array(AvailabilityRecord), next_cursor: z.string().nullable() }).meta({ id: 'AvailabilityPage' });

interface Candidate {
  external_id: string;
  internal_id: string;
  currency: string;
  version: string;
  updated_at: string;
  horizon_end: string;
  timezone: string;
}

export const listAvailability = defineOperation({
  operationId: 'listAvailability',
  method: 'get',
  path: '/availability',
  summary: 'Nightly availability, prices and restrictions',
  description:
    "Every night from each property's today (its own zone) up to `horizon_end`, at least 365 nights ahead, is present; a night a plan has no price for carries that plan `closed`. " +
    'A page ends at `limit` properties or 5,000 nights, whichever comes first, and costs `max(1, ceil(nights / 1000))` rate-limit units.',
  tags: ['Availability'],
  scopes: ['read:ari'],
  query: AvailabilityQuery,
  responses: { 200: { description: 'A page of availability records', schema: AvailabilityPage } },
  problems: ['invalid_parameters', 'invalid_cursor', 'window_beyond_horizon', 'sync_window_expired', 'not_found'],
  handler: async ({ query, caller, deps, res }) => {
    const now = deps.clock.now();
    const since = query.updated_since === undefined ? undefined : new Date(query.updated_since);
    if (since && since.getTime() < now.getTime() - RETENTION_MS) throw new ProblemError('sync_window_expired');
    const hash = hashQuery({ kind: 'availability', channel: caller.channel.id, from: query.from, to: query.to, property_id: query.property_id, updated_since: since?.toISOString() });
    let after: { i: string; d: string | null } | null = null;
    if (query.cursor !== undefined) {
      const decoded = await decodeCursor(query.cursor, hash, deps.secrets.server);
      if (!decoded || typeof decoded.i !== 'string' || (decoded.d !== '' && typeof decoded.d !== 'string')) throw new ProblemError('invalid_cursor');
      after = { i: decoded.i, d: decoded.d === '' ? null : (decoded.d) };
    }
    const em = deps.orm.em.fork();
    const where = [`cr.channel_id = ?`, `cr.kind = 'property'`, `cr.status in ('active', 'inactive')`];
    const params: unknown[] = [caller.channel.id];
    if (since) {
      where.push('a.updated_at >= ?');
      params.push(since);
    }
    if (query.property_id !== undefined) {
      where.push('cr.external_id = ?');
      params.push(query.property_id);
    }
    if (after) {
      where.push('cr.external_id >= ?');
      params.push(after.i);
    }
    // A page holds at most 5,000 nights: with a known window, no more properties than that can
    // fill are fetched (one may be partly served already, one more tells whether a page follows).
    const windowNights = query.from !== undefined && query.to !== undefined ? daysBetween(query.from, query.to) : MAX_WINDOW_NIGHTS;
    const fetch = Math.min(query.limit, Math.ceil(MAX_PAGE_NIGHTS / Math.max(1, windowNights)) + 1);
    const candidates = await em.execute<Candidate[]>(
      `select cr.external_id, cr.internal_id, a.currency, a.version, a.updated_at, to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end, a.timezone
         from channel_resource cr join ari_property a on a.property_id = cr.internal_id
        where ${where.join(' and ')} order by cr.external_id limit ?`,
      [...params, fetch + 1],
    );
    if (query.property_id !== undefined && candidates.length === 0 && !since) throw new ProblemError('not_found');

    const page = candidates.slice(0, fetch);

    const records: string[] = [];
    const identity: string[] = [];
    let nightsServed = 0;
    let next: { i: string; d: string } | null = null;
    // Plan the page first: each property's window and how many of its nights fit (every night of
    // a horizon is stored, so a range's length is its count), then read it all in one round trip.
    interface Slice { property: Candidate; start: string; to: string; take: number }
    const slices: Slice[] = [];
    let planned = 0;
    for (const [index, property] of page.entries()) {
      if (planned >= MAX_PAGE_NIGHTS) break;
      const today = localDate(now, property.timezone);
      const from = query.from !== undefined && query.from > today ? query.from : today;
      const to = query.to ?? (daysBetween(from, property.horizon_end) > MAX_WINDOW_NIGHTS ? addDays(from, MAX_WINDOW_NIGHTS) : property.horizon_end);
      if (to > property.horizon_end || from >= property.horizon_end) {
        throw new ProblemError('window_beyond_horizon', { horizon_end: property.horizon_end, detail: `${property.external_id} has nights up to ${property.horizon_end} (exclusive)` });
      }
      const start = index === 0 && after?.i === property.external_id && after.d !== null && after.d > from ? after.d : from;
      const take = Math.min(Math.max(0, daysBetween(start, to)), MAX_PAGE_NIGHTS - planned);
      slices.push({ property, start, to, take });
      planned += take;
    }
    // One row per property: its nights joined in SQL (the driver handles one value, not
    // thousands), and the channel's ids of its rate plans (a range on the primary key).
    const rows = slices.length === 0 ? [] : await em.execute<{ i: string; data: string | null; count: string; last: string | null; plans: string | null }[]>(
      `select s.i,
              n.data, n.count, n.last,
              (select string_agg(c.internal_key || ' ' || c.external_id, ' ') from channel_id c
                where c.channel_id = ? and c.kind = 'rate_plan' and c.internal_key > s.pid::text || '/' and c.internal_key < s.pid::text || '0') as plans
         from unnest(?::uuid[], ?::date[], ?::date[], ?::int[]) with ordinality as s(pid, start, stop, take, i)
         cross join lateral (
           select string_agg(body, ',' order by night) as data, count(*) as count, to_char(max(night), 'YYYY-MM-DD') as last
             from (select night, body from ari_night where property_id = s.pid and night >= s.start and night < s.stop order by night limit s.take) x
         ) n
        order by s.i`,
      [
        caller.channel.id,
        pgArray(slices.map((x) => x.property.internal_id)),
        pgArray(slices.map((x) => x.start)),
        pgArray(slices.map((x) => x.to)),
        `{${slices.map((x) => x.take).join(',')}}`,
      ],
    );
    for (const [index, slice] of slices.entries()) {
      const { property, start, to, take } = slice;
      const row = rows[index];
      const count = Number(row?.count ?? 0);
      nightsServed += count;
      const recordTo = row?.last ? addDays(row.last, 1) : start;
      let data = row?.data ?? '';
      const plans = (row?.plans ?? '').split(' ').filter(Boolean);
      for (let p = 0; p + 1 < plans.length; p += 2) {
        data = data.replaceAll(JSON.stringify(planPlaceholder(plans[p]!.slice(property.internal_id.length + 1))), JSON.stringify(plans[p + 1]));
      }
      // A plan without a channel id (never the case for a projected property) must not leak its key.
      if (data.includes('\\u0001')) data = data.replace(PLACEHOLDER_IN_JSON, 'null');
      identity.push(`${property.external_id}@${property.version}:${start}/${recordTo}`);
      records.push(
        `{"property_id":${JSON.stringify(property.external_id)},"currency":${JSON.stringify(property.currency)},"version":${Number(property.version)},` +
          `"updated_at":"${toInstant(new Date(property.updated_at))}","from":"${start}","to":"${recordTo}","horizon_end":"${property.horizon_end}","data":[${data}]}`,
      );
      if (recordTo < to && count === take && take > 0 && index === slices.length - 1 && nightsServed >= MAX_PAGE_NIGHTS) {
        next = { i: property.external_id, d: recordTo };
        break;
      }
      if (nightsServed >= MAX_PAGE_NIGHTS) {
        const following = page[index + 1] ?? candidates[fetch];
        if (following) next = { i: following.external_id, d: '' };
        break;
      }
    }
    if (!next && candidates.length > fetch) next = { i: candidates[fetch]!.external_id, d: '' };
    // The first unit was counted on arrival; a page of many nights costs more.
    const units = Math.max(1, Math.ceil(nightsServed / NIGHTS_PER_UNIT));
    if (units > 1) await chargeOf(res)(units - 1);
    const cursor = next ? await encodeCursor(next, hash, deps.secrets.server) : null;
    // A page is fully named by its records' ids, availability versions and night ranges (every
    // change to a night moves the version; plan ids never change), so the ETag hashes that.
    return { json: `{"data":[${records.join(',')}],"next_cursor":${JSON.stringify(cursor)}}`, etagBasis: `availability|${identity.join(',')}|${cursor ?? ''}` };
  },
});
