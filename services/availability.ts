import { applyAvailabilityUpdates, lockPropertiesByRef, rollZone, zonesInUse } from '../db/availability.ts';
import { writeTransaction } from '../db/sql.ts';
import { BufferPool } from '../infra/buffer-pool.ts';
import type { AvailabilityUpdate } from '../domain/availability/nights.ts';
import { unknownReference } from '../domain/catalogue/source-rules.ts';
import type { Clock } from '../domain/clock.ts';
import { jsonPointer } from '../domain/json-pointer.ts';
import { priceListErrors } from '../domain/pricing/price-lists.ts';
import type { ParameterError } from '../domain/problems.ts';
import { invalidParameters } from './catalogue.ts';
import type { ServiceDeps } from './deps.ts';
import { writeAndNotify } from './durable-processes.ts';

/** One property's outcome as the contract writes it. */
export interface PropertyUpdateOutcome {
  property: string;
  changed_nights: number;
  ranges: { from: string; to: string }[];
}

/**
 * Platform updates of nights and prices, applied together in one transaction: every property and
 * rate plan they name must exist and every price list must fit the property's capacity and the
 * plan's age bands (`priceListErrors`), else nothing is written. Each property's changed nights are
 * announced to every channel that sees it.
 */
export function postAvailability(
  deps: Pick<ServiceDeps, 'orm' | 'workflows' | 'log' | 'clock'>,
  batch: { updates: readonly AvailabilityUpdate[] },
): Promise<{ results: PropertyUpdateOutcome[] }> {
  return writeAndNotify(deps, async (tx) => {
    const rows = await lockPropertiesByRef(tx, [...new Set(batch.updates.map((u) => u.property))].sort());
    const byRef = new Map(rows.map((row) => [row.ref, row]));
    const errors: ParameterError[] = batch.updates.flatMap((update, i) => {
      const property = byRef.get(update.property);
      if (!property) return [unknownReference(`/updates/${i}/property`, 'property', update.property)];
      return (update.rates ?? []).flatMap((rate, j): ParameterError[] => {
        const plan = property.content.rate_plans.find((candidate) => candidate.key === rate.rate_plan);
        if (!plan)
          return [
            {
              detail: `the property has no rate plan "${rate.rate_plan}"`,
              code: 'unknown_reference',
              pointer: `/updates/${i}/rates/${j}/rate_plan`,
            },
          ];
        return priceListErrors(rate, {
          maxAdults: property.content.capacity.max_adults,
          bands: plan.child_age_bands,
        }).map((error) => ({
          detail: error.detail,
          code: error.code,
          pointer: jsonPointer(['updates', i, 'rates', j, ...error.path]),
        }));
      });
    });
    if (errors.length > 0) throw invalidParameters(errors);
    const results: PropertyUpdateOutcome[] = [];
    for (const row of rows) {
      const updates = batch.updates.filter((u) => u.property === row.ref);
      const outcome = await applyAvailabilityUpdates(
        tx,
        { propertyId: row.id, ref: row.ref, content: row.content, timezone: row.timezone },
        updates,
        deps.clock,
      );
      results.push({ property: outcome.property, changed_nights: outcome.changedNights, ranges: outcome.ranges });
    }
    return { results };
  });
}

/**
 * The daily roll of one zone as of `clock` (see `rollZone`): in one transaction, run again from
 * the start on a deadlock. Idempotent per local date.
 */
export function rollHorizon(
  deps: Pick<ServiceDeps, 'orm'>,
  zone: string,
  clock: Clock,
): Promise<{ properties: number; rolled: number }> {
  return writeTransaction(deps.orm.em, (tx) => rollZone(tx, zone, clock));
}

/** The zones that have properties with availability: one horizon roll each. */
export function zonesToRoll(deps: Pick<ServiceDeps, 'orm'>): Promise<string[]> {
  return zonesInUse(deps.orm.em.fork());
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
export function writeRecords(
  records: readonly RecordText[],
  pool: BufferPool = pageBuffers,
): { bytes: Buffer; release: () => void } {
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
  for (let p = 0; p + 1 < words.length; p += 2)
    ids.set(words[p]!.slice(record.propertyId.length + 1), JSON.stringify(words[p + 1]));
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
