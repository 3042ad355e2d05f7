import {
  availabilityCandidates,
  type AvailabilityCandidate,
  type CandidateFilter,
  type ListedAvailability,
} from '../db/availability-candidates.ts';
import { zonesInUse } from '../db/availability-zones.ts';
import { listingHorizon, publishedHorizonEnd } from '../domain/availability/horizon.ts';
import { HORIZON_NIGHTS, horizonFallsShort, MAX_PAGE_NIGHTS } from '../domain/availability/nights.ts';
import { propertyWindow, windowNights, windowRefusal, type WindowQuery } from '../domain/availability/window.ts';
import { decodeCursor, encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { RETENTION_MS } from '../domain/catalogue/retention.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { addDays, localDate } from '../domain/time.ts';
import { rollHorizon } from './availability.ts';
import { writePage, type Entry, type PagePosition, type Slice } from './availability-page-write.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';

type PageDeps = Pick<ServiceDeps, 'orm' | 'clock' | 'secrets'>;

export interface AvailabilityPageQuery {
  from?: string | undefined;
  to?: string | undefined;
  property_id?: string | undefined;
  updated_since?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

export interface AvailabilityPage {
  /**
   * The records as UTF-8 JSON joined by commas: stored nights are spliced in, not parsed and
   * serialised again, and never joined into one larger string (see `RecordWriter`).
   */
  records: Buffer;
  /** Gives the buffer under `records` back for the next page: call it once the answer is closed. */
  release: () => void;
  nextCursor: string | null;
  /** What names the page: its records' ids, availability versions and night ranges. */
  identity: string[];
  /** Nights served, which the page is charged by. */
  nights: number;
}

async function readCursor(cursor: string, hash: string, deps: PageDeps): Promise<PagePosition> {
  const decoded = await decodeCursor(cursor, hash, deps.secrets.ring);
  if (
    !decoded ||
    typeof decoded.u !== 'string' ||
    typeof decoded.i !== 'string' ||
    typeof decoded.v !== 'string' ||
    typeof decoded.d !== 'string'
  )
    throw new ProblemError('invalid_cursor');
  return { u: decoded.u, i: decoded.i, v: decoded.v, d: decoded.d };
}

/**
 * The next properties in listing order. A zone whose roll is a day or more late (its worker down)
 * is rolled first, so the horizon is always 365 nights past the property's today; the roll is
 * idempotent per day, and restamps what it rolls, so the batch is read again.
 */
async function nextCandidates(
  deps: PageDeps,
  channelId: string,
  filter: CandidateFilter,
  now: Date,
): Promise<ListedAvailability[]> {
  const batch = await availabilityCandidates(deps.orm.em.fork(), channelId, filter);
  const overdue = new Set(
    batch
      .filter((c) => !c.tombstone && horizonFallsShort(c.horizonEnd, localDate(now, c.timezone)))
      .map((c) => (c.tombstone ? '' : c.timezone)),
  );
  if (overdue.size === 0) return batch;
  for (const zone of [...overdue].sort()) await rollHorizon(deps, zone, deps.clock);
  return availabilityCandidates(deps.orm.em.fork(), channelId, filter);
}

/**
 * About how many nights each property gives this query, to fetch no more properties than a page
 * can take: its window in UTC, a night less for the zones a day ahead of it. A wrong guess costs
 * a few rows or one more fetch, never a short page.
 */
function nightsPerPropertyGuess(query: AvailabilityPageQuery, now: Date): number {
  const today = localDate(now, 'UTC');
  return Math.max(1, windowNights(propertyWindow(query, today, addDays(today, HORIZON_NIGHTS))) - 1);
}

const MAX_NIGHTS: ParameterError = {
  parameter: 'to',
  code: 'max_nights',
  detail: 'at most 365 nights after from, or after today when later',
};

/** A window refused, as the answer says it. */
function refusal(code: 'max_nights' | 'window_beyond_horizon', horizonEnd: string, detail: string): ProblemError {
  if (code === 'max_nights') return invalidParameters([MAX_NIGHTS]);
  return new ProblemError('window_beyond_horizon', { horizon_end: horizonEnd, detail });
}

/**
 * The window's `max_nights` for a request whose schema refused something else (the operation's
 * `laterRules`), so that one refusal names it too: the well-formed `from` and `to` against the
 * listing's latest today or, with `property_id`, that property's (none for a property the channel
 * does not see: that is 404). Reads only.
 */
export async function availabilityRuleErrors(
  deps: PageDeps,
  channelId: string,
  query: WindowQuery & { property_id?: string | undefined },
): Promise<ParameterError[]> {
  if (query.to === undefined || (query.from !== undefined && query.from >= query.to)) return [];
  const now = deps.clock.now();
  let today: string | undefined;
  if (query.property_id !== undefined) {
    const filter = { externalId: query.property_id, limit: 1 };
    const [listed] = await availabilityCandidates(deps.orm.em.fork(), channelId, filter);
    if (listed && !listed.tombstone) today = localDate(now, listed.timezone);
  } else today = listingHorizon(now, await zonesInUse(deps.orm.em.fork()))?.today;
  if (today === undefined) return [];
  return windowRefusal(query, today, addDays(today, HORIZON_NIGHTS)) === 'max_nights' ? [MAX_NIGHTS] : [];
}

/**
 * A listing's window against the latest horizon of the zones properties are in (horizon.ts,
 * `listingHorizon`): the window may end at the latest `horizon_end` any property has, properties
 * in zones whose dates are a day behind stopping at their own. A query without `from` and `to`,
 * or for one property (held to its own horizon, `planSlice`), reads no zones.
 */
async function checkListingWindow(deps: PageDeps, query: AvailabilityPageQuery, now: Date): Promise<void> {
  if (query.property_id !== undefined || (query.from === undefined && query.to === undefined)) return;
  const horizon = listingHorizon(now, await zonesInUse(deps.orm.em.fork()));
  if (!horizon) return;
  const refused = windowRefusal(query, horizon.today, horizon.horizonEnd);
  if (refused)
    throw refusal(refused, horizon.horizonEnd, `every property's nights end by ${horizon.horizonEnd} (exclusive)`);
}

/**
 * One page of the nights of the properties a channel sees, in the order of their availability
 * stamps (see `availabilityCandidates`). A page ends at `limit` properties or 5,000 nights,
 * whatever the window; a property cut by the night limit continues on the next page from the
 * night after, unless it changed in between (then it is listed again, whole, at its new stamp).
 */
export async function availabilityPage(
  deps: PageDeps,
  channelId: string,
  query: AvailabilityPageQuery,
): Promise<AvailabilityPage> {
  const now = deps.clock.now();
  const since = query.updated_since === undefined ? undefined : new Date(query.updated_since);
  const hash = hashQuery({
    kind: 'availability',
    channel: channelId,
    from: query.from,
    to: query.to,
    property_id: query.property_id,
    updated_since: since?.toISOString(),
  });
  const after = query.cursor === undefined ? null : await readCursor(query.cursor, hash, deps);
  // After the cursor: a bad cursor is the request's own mistake, which a resync would not mend.
  if (since && since.getTime() < now.getTime() - RETENTION_MS) throw new ProblemError('sync_window_expired');
  await checkListingWindow(deps, query, now);
  const filter = {
    ...(since ? { since } : {}),
    ...(query.property_id !== undefined ? { externalId: query.property_id } : {}),
  };
  const guess = nightsPerPropertyGuess(query, now);

  // Plan the page first: each property's window and how many of its nights fit (every night of a
  // horizon is stored, so a range's length is its count), then read it all in one round trip.
  const entries: Entry[] = [];
  let planned = 0;
  let position = after ? { stamp: after.u, externalId: after.i, inclusive: after.d !== '' } : undefined;
  let following = false;
  for (;;) {
    const want = Math.min(query.limit - entries.length, Math.ceil((MAX_PAGE_NIGHTS - planned) / guess) + 1);
    // One more than wanted tells whether the listing goes on.
    const batch = await nextCandidates(
      deps,
      channelId,
      { ...filter, ...(position ? { after: position } : {}), limit: want + 1 },
      now,
    );
    if (query.property_id !== undefined && !since && !after && batch.length === 0) throw new ProblemError('not_found');
    let used = 0;
    for (const listed of batch.slice(0, want)) {
      if (entries.length >= query.limit || planned >= MAX_PAGE_NIGHTS) break;
      used += 1;
      if (listed.tombstone) {
        entries.push({ tombstone: listed });
        continue;
      }
      const resumed = entries.length === 0 ? after : null;
      const slice = planSlice(listed, query, now, resumed, MAX_PAGE_NIGHTS - planned);
      entries.push({ slice });
      planned += slice.take;
    }
    if (entries.length >= query.limit || planned >= MAX_PAGE_NIGHTS) {
      following = batch.length > used;
      break;
    }
    if (batch.length <= want) break;
    const last = batch[want - 1]!;
    position = { stamp: last.stamp, externalId: last.externalId, inclusive: false };
  }

  const written = await writePage(deps, channelId, entries, following);
  const nextCursor = written.next ? await encodeCursor({ ...written.next }, hash, deps.secrets.ring) : null;
  return {
    records: written.bytes,
    release: written.release,
    nextCursor,
    identity: written.identity,
    nights: written.nights,
  };
}

/**
 * A property's part of the page: its window within its published horizon, from the night its
 * nights continue when the page resumes it unchanged, and as many of its nights as the page has
 * room for. One property asked for by `property_id` is held to its own horizon; in a listing,
 * each property's nights stop at its own `horizon_end` (the window was held to the listing's,
 * `checkListingWindow`).
 */
function planSlice(
  property: AvailabilityCandidate,
  query: AvailabilityPageQuery,
  now: Date,
  resumed: PagePosition | null,
  room: number,
): Slice {
  const today = localDate(now, property.timezone);
  const horizonEnd = publishedHorizonEnd(property.horizonEnd, today);
  const refused = query.property_id === undefined ? null : windowRefusal(query, today, horizonEnd);
  if (refused) throw refusal(refused, horizonEnd, `${property.externalId} has nights up to ${horizonEnd} (exclusive)`);
  const window = propertyWindow(query, today, horizonEnd);
  const continues =
    resumed !== null &&
    resumed.d !== '' &&
    resumed.i === property.externalId &&
    resumed.v === String(property.version) &&
    resumed.d > window.from;
  const start = continues ? resumed.d : window.from;
  return {
    property,
    horizonEnd,
    start,
    to: window.to,
    take: Math.min(windowNights({ from: start, to: window.to }), room),
  };
}
