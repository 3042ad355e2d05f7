import type { AvailabilityCandidate, AvailabilityTombstone } from '../db/availability-candidates.ts';
import { streamNightsOfSlices } from '../db/availability-nights.ts';
import { MAX_PAGE_NIGHTS } from '../domain/availability/nights.ts';
import { addDays, toInstant } from '../domain/time.ts';
import { RecordWriter } from './availability-records.ts';
import type { ServiceDeps } from './deps.ts';

// Writing an availability page once it is planned (services/availability-page.ts).

/**
 * Where the previous page ended: the last property's stamp (`u`, as stored), id (`i`) and version
 * (`v`), and the night its nights continue from (`d`), or `''` when it was served whole.
 */
export interface PagePosition {
  u: string;
  i: string;
  v: string;
  d: string;
}

export interface Slice {
  property: AvailabilityCandidate;
  /** The property's published `horizon_end`. */
  horizonEnd: string;
  start: string;
  to: string;
  take: number;
}

/** What a page lists, in order: a property's nights, or its tombstone (with `updated_since`). */
export type Entry = { slice: Slice; tombstone?: undefined } | { tombstone: AvailabilityTombstone; slice?: undefined };

/**
 * The page's entries as JSON: each record's nights copied in as they arrive (see `RecordWriter`),
 * its head, which names its last night, written once its pieces are in; a tombstone whole, in its
 * place. Answers where the next page starts when there is one: after the last entry, or within
 * the last record when the 5,000 nights cut it.
 */
export async function writePage(
  deps: Pick<ServiceDeps, 'orm'>,
  channelId: string,
  entries: readonly Entry[],
  following: boolean,
): Promise<{ bytes: Buffer; release: () => void; identity: string[]; nights: number; next: PagePosition | null }> {
  const slices = entries.flatMap((entry, at) => (entry.slice ? [{ ...entry.slice, at }] : []));
  const writer = new RecordWriter();
  const identity: string[] = [];
  let nights = 0;
  let written = 0;
  let open = -1;
  let count = 0;
  let last: string | null = null;
  let lastRecordTo: string | null = null;
  /** Writes the tombstones before entry `upTo`. */
  const tombstonesUpTo = (upTo: number) => {
    for (; written < upTo; written += 1) {
      const { tombstone } = entries[written]!;
      identity.push(`${tombstone!.externalId}@${tombstone!.version}:${tombstone!.status}`);
      writer.whole(tombstoneJson(tombstone!));
    }
  };
  const close = () => {
    const { property, horizonEnd, start, at } = slices[open]!;
    nights += count;
    const recordTo = last ? addDays(last, 1) : start;
    identity.push(`${property.externalId}@${property.version}:${start}/${recordTo}<${horizonEnd}`);
    writer.end(recordHead(property, horizonEnd, start, recordTo));
    written = at + 1;
    lastRecordTo = recordTo;
  };
  try {
    await streamNightsOfSlices(
      deps.orm.em.fork(),
      channelId,
      slices.map((slice) => ({
        propertyId: slice.property.internalId,
        start: slice.start,
        to: slice.to,
        take: slice.take,
      })),
      (piece) => {
        if (piece.slice !== open) {
          if (open !== -1) close();
          open = piece.slice;
          count = 0;
          last = null;
          const { property, horizonEnd, start, at } = slices[open]!;
          tombstonesUpTo(at);
          writer.begin(recordHead(property, horizonEnd, start, start), property.internalId, piece.plans ?? '');
        }
        if (piece.data !== null && piece.count > 0) writer.piece(piece.data);
        count += piece.count;
        if (piece.last !== null) last = piece.last;
      },
    );
    if (open !== -1) close();
    tombstonesUpTo(entries.length);
  } catch (error) {
    writer.abandon();
    throw error;
  }
  const { bytes, release } = writer.finish();
  const final = entries.at(-1);
  let next: PagePosition | null = null;
  if (final?.slice) {
    const { property, to, take } = final.slice;
    const cut = lastRecordTo! < to && count === take && take > 0 && nights >= MAX_PAGE_NIGHTS;
    if (cut || following)
      next = { u: property.stamp, i: property.externalId, v: String(property.version), d: cut ? lastRecordTo! : '' };
  } else if (final?.tombstone && following) {
    const { tombstone } = final;
    next = { u: tombstone.stamp, i: tombstone.externalId, v: String(tombstone.version), d: '' };
  }
  return { bytes, release, identity, nights, next };
}

/** A record up to its nights: `"data":[` closes it. Every value but the ids is fixed width. */
function recordHead(property: AvailabilityCandidate, horizonEnd: string, from: string, to: string): string {
  return (
    `{"property_id":${JSON.stringify(property.externalId)},"currency":${JSON.stringify(property.currency)},"version":${property.version},` +
    `"updated_at":"${toInstant(property.updatedAt)}","from":"${from}","to":"${to}","horizon_end":"${horizonEnd}","data":[`
  );
}

/** A tombstone exactly as the catalogue lists write one: `{id, status, version, updated_at}`. */
function tombstoneJson(tombstone: AvailabilityTombstone): string {
  return JSON.stringify({
    id: tombstone.externalId,
    status: tombstone.status,
    version: tombstone.version,
    updated_at: toInstant(tombstone.updatedAt),
  });
}
