import {
  applyAvailabilityUpdates,
  availabilityCandidates,
  lockPropertiesByRef,
  rollZone,
  zonesInUse,
  type AvailabilityCandidate,
  type UpdateOutcome,
} from '../db/availability.ts';
import { nightsOfSlices } from '../db/availability-nights.ts';
import { writeTransaction } from '../db/sql.ts';
import { BufferPool } from '../infra/buffer-pool.ts';
import { daysBetween, horizonFallsShort, MAX_PAGE_NIGHTS, MAX_WINDOW_NIGHTS, type AvailabilityUpdate } from '../domain/availability/nights.ts';
import { decodeCursor, encodeCursor, hashQuery } from '../domain/catalogue/cursor.ts';
import { RETENTION_MS } from '../domain/catalogue/retention.ts';
import { unknownReference } from '../domain/catalogue/source-rules.ts';
import type { Clock } from '../domain/clock.ts';
import { ProblemError, type ParameterError } from '../domain/problems.ts';
import { addDays, localDate, toInstant } from '../domain/time.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/**
 * Platform updates of nights and prices, applied together in one transaction: every property and
 * rate plan they name must exist, else nothing is written. Each property's changed nights are
 * announced to every channel that sees it.
 */
export function postAvailability(deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock'>, batch: { updates: readonly AvailabilityUpdate[] }): Promise<{ results: UpdateOutcome[] }> {
  return writeAndNotify(deps, async (tx) => {
    const rows = await lockPropertiesByRef(tx, [...new Set(batch.updates.map((u) => u.property))].sort());
    const byRef = new Map(rows.map((row) => [row.ref, row]));
    const errors: ParameterError[] = batch.updates.flatMap((update, i) => {
      const property = byRef.get(update.property);
      if (!property) return [unknownReference(`/updates/${i}/property`, 'property', update.property)];
      const keys = new Set(property.content.rate_plans.map((plan) => plan.key));
      return (update.rates ?? []).flatMap((rate, j) => (keys.has(rate.rate_plan) ? [] : [{ detail: `the property has no rate plan "${rate.rate_plan}"`, code: 'unknown_reference', pointer: `/updates/${i}/rates/${j}/rate_plan` }]));
    });
    if (errors.length > 0) throw invalidParameters(errors);
    const results = [];
    for (const row of rows) {
      const updates = batch.updates.filter((u) => u.property === row.ref);
      results.push(await applyAvailabilityUpdates(tx, { propertyId: row.id, ref: row.ref, content: row.content, timezone: row.timezone }, updates, deps.clock));
    }
    return { results };
  });
}

/**
 * The daily roll of one zone as of `clock` (see `rollZone`): in one transaction, run again from
 * the start on a deadlock. Idempotent per local date.
 */
export function rollHorizon(deps: Pick<ServiceDeps, 'orm'>, zone: string, clock: Clock): Promise<{ properties: number; rolled: number }> {
  return writeTransaction(deps.orm.em, (tx) => rollZone(tx, zone, clock));
}

/** The zones that have properties with availability: one horizon roll each. */
export function zonesToRoll(deps: Pick<ServiceDeps, 'orm'>): Promise<string[]> {
  return zonesInUse(deps.orm.em.fork());
}

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
   * serialised again, and never joined into one larger string (see `writeRecords`).
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

/** Where a plan placeholder starts in stored JSON text (`"\u0001<key>"`, see `planPlaceholder`). */
const PLACEHOLDER_START = '"\\u0001';

/** One record's text before it is written: see `writeRecords`. */
export interface RecordText {
  head: string;
  /** The stored nights in pieces (`nightsOfSlices`), to be joined by commas. */
  pieces: readonly string[];
  propertyId: string;
  /** The query's `<property id>/<plan key> <channel id>` pairs. */
  plans: string;
}

/** Closes a record's nights and the record, whose `head` ends with `"data":[`. */
const RECORD_TAIL = ']}';

/**
 * Pages are written into buffers kept for reuse (see `BufferPool`): two of at least 8 MiB, so an
 * API process keeps 16 MiB or more for them; a page larger than 64 MiB gets a buffer of its own.
 */
const pageBuffers = new BufferPool({ keep: 2, minBytes: 8 * 2 ** 20, maxBytes: 64 * 2 ** 20 });

/**
 * Records as the UTF-8 bytes a channel reads, joined by commas: each record's `head`, its stored
 * nights (pieces joined by commas) with every rate plan's placeholder swapped for the channel's
 * id (a plan without one, never the case for a projected property, becomes null rather than leak
 * its key), and `]}`. Measured first, then encoded straight into one buffer taken from
 * `pool`: no second copy of the nights as a string. `bytes` is exactly what was written; call
 * `release` once nothing reads them any more.
 */
export function writeRecords(records: readonly RecordText[], pool: BufferPool = pageBuffers): { bytes: Buffer; release: () => void } {
  const swapsByRecord = records.map((record) => swapsOf(record));
  let size = Math.max(0, records.length - 1);
  for (const { size: bytes } of swapsByRecord) size += bytes;
  const { buffer, release } = pool.take(size);
  let offset = 0;
  for (const [r, record] of records.entries()) {
    if (r > 0) offset += buffer.write(',', offset, 'latin1');
    const { cuts, swaps } = swapsByRecord[r]!;
    offset += buffer.write(record.head, offset);
    let swap = 0;
    for (const [p, data] of record.pieces.entries()) {
      if (p > 0) offset += buffer.write(',', offset, 'latin1');
      const at = cuts[p]!;
      let from = 0;
      for (let i = 0; i < at.length; i += 2) {
        offset += buffer.write(data.slice(from, at[i]), offset);
        offset += buffer.write(swaps[swap]!, offset, 'latin1');
        swap += 1;
        from = at[i + 1]!;
      }
      offset += buffer.write(data.slice(from), offset);
    }
    offset += buffer.write(RECORD_TAIL, offset, 'latin1');
  }
  if (offset !== size) {
    release();
    throw new Error(`records measured ${size} bytes, wrote ${offset}`);
  }
  return { bytes: buffer.subarray(0, offset), release };
}

/** Where a record's placeholders are (their text is ASCII), what replaces each, and its size in bytes. */
function swapsOf(record: RecordText): { cuts: number[][]; swaps: string[]; size: number } {
  const ids = new Map<string, string>();
  const words = record.plans.split(' ').filter(Boolean);
  for (let p = 0; p + 1 < words.length; p += 2) ids.set(words[p]!.slice(record.propertyId.length + 1), JSON.stringify(words[p + 1]));
  const cuts: number[][] = [];
  const swaps: string[] = [];
  let size = Buffer.byteLength(record.head) + RECORD_TAIL.length + Math.max(0, record.pieces.length - 1);
  for (const data of record.pieces) {
    const at: number[] = [];
    size += Buffer.byteLength(data);
    for (let start = data.indexOf(PLACEHOLDER_START); start !== -1; start = data.indexOf(PLACEHOLDER_START, start)) {
      const end = data.indexOf('"', start + PLACEHOLDER_START.length) + 1;
      if (end === 0) break;
      const swap = ids.get(data.slice(start + PLACEHOLDER_START.length, end - 1)) ?? 'null';
      at.push(start, end);
      swaps.push(swap);
      size += swap.length - (end - start);
      start = end;
    }
    cuts.push(at);
  }
  return { cuts, swaps, size };
}

/**
 * One page of the nights of the properties a channel sees. A page ends at `limit` properties or
 * 5,000 nights; a property cut by the night limit continues on the next page from the night after.
 */
export async function availabilityPage(deps: Pick<ServiceDeps, 'orm' | 'clock' | 'secrets'>, channelId: string, query: AvailabilityPageQuery): Promise<AvailabilityPage> {
  const now = deps.clock.now();
  const since = query.updated_since === undefined ? undefined : new Date(query.updated_since);
  const hash = hashQuery({ kind: 'availability', channel: channelId, from: query.from, to: query.to, property_id: query.property_id, updated_since: since?.toISOString() });
  let after: { i: string; d: string | null } | null = null;
  if (query.cursor !== undefined) {
    const decoded = await decodeCursor(query.cursor, hash, deps.secrets.ring);
    if (!decoded || typeof decoded.i !== 'string' || (decoded.d !== '' && typeof decoded.d !== 'string')) throw new ProblemError('invalid_cursor');
    after = { i: decoded.i, d: decoded.d === '' ? null : (decoded.d) };
  }
  // After the cursor: a bad cursor is the request's own mistake, which a resync would not mend.
  if (since && since.getTime() < now.getTime() - RETENTION_MS) throw new ProblemError('sync_window_expired');
  const em = deps.orm.em.fork();
  const candidateFilter = {
    ...(since ? { since } : {}),
    ...(query.property_id !== undefined ? { externalId: query.property_id } : {}),
    ...(after ? { fromExternalId: after.i } : {}),
  };
  // A page holds at most 5,000 nights: with a known window, no more properties than that can
  // fill are fetched (one may be partly served already, one more tells whether a page follows).
  const windowNights = query.from !== undefined && query.to !== undefined ? daysBetween(query.from, query.to) : MAX_WINDOW_NIGHTS;
  const fetch = Math.min(query.limit, Math.ceil(MAX_PAGE_NIGHTS / Math.max(1, windowNights)) + 1);
  let candidates = await availabilityCandidates(em, channelId, { ...candidateFilter, limit: fetch + 1 });
  // A zone whose roll is a day or more late (its worker down) is rolled here first, so the
  // horizon is always 365 nights past the property's today; the roll is idempotent per day.
  const overdue = new Set(candidates.filter((c) => horizonFallsShort(c.horizon_end, localDate(now, c.timezone))).map((c) => c.timezone));
  if (overdue.size > 0) {
    for (const zone of [...overdue].sort()) await rollHorizon(deps, zone, deps.clock);
    candidates = await availabilityCandidates(deps.orm.em.fork(), channelId, { ...candidateFilter, limit: fetch + 1 });
  }
  if (query.property_id !== undefined && candidates.length === 0 && !since) throw new ProblemError('not_found');

  const page = candidates.slice(0, fetch);
  // Plan the page first: each property's window and how many of its nights fit (every night of
  // a horizon is stored, so a range's length is its count), then read it all in one round trip.
  const slices: { property: AvailabilityCandidate; start: string; to: string; take: number }[] = [];
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
  const rows = await nightsOfSlices(em, channelId, slices.map((slice) => ({ propertyId: slice.property.internal_id, start: slice.start, to: slice.to, take: slice.take })));

  const records: RecordText[] = [];
  const identity: string[] = [];
  let nights = 0;
  let next: { i: string; d: string } | null = null;
  for (const [index, slice] of slices.entries()) {
    const { property, start, to, take } = slice;
    const row = rows[index];
    const count = Number(row?.count ?? 0);
    nights += count;
    const recordTo = row?.last ? addDays(row.last, 1) : start;
    identity.push(`${property.external_id}@${property.version}:${start}/${recordTo}`);
    const head =
      `{"property_id":${JSON.stringify(property.external_id)},"currency":${JSON.stringify(property.currency)},"version":${Number(property.version)},` +
      `"updated_at":"${toInstant(new Date(property.updated_at))}","from":"${start}","to":"${recordTo}","horizon_end":"${property.horizon_end}","data":[`;
    records.push({ head, pieces: row?.data ?? [], propertyId: property.internal_id, plans: row?.plans ?? '' });
    if (recordTo < to && count === take && take > 0 && index === slices.length - 1 && nights >= MAX_PAGE_NIGHTS) {
      next = { i: property.external_id, d: recordTo };
      break;
    }
    if (nights >= MAX_PAGE_NIGHTS) {
      const following = page[index + 1] ?? candidates[fetch];
      if (following) next = { i: following.external_id, d: '' };
      break;
    }
  }
  if (!next && candidates.length > fetch) next = { i: candidates[fetch]!.external_id, d: '' };
  const nextCursor = next ? await encodeCursor(next, hash, deps.secrets.ring) : null;
  const { bytes, release } = writeRecords(records);
  return { records: bytes, release, nextCursor, identity, nights };
}
