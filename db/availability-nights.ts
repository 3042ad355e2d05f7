import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays } from '../domain/time.ts';
import { pgArray } from './sql.ts';

/** Up to `take` nights of one property from `start`, before `to`. */
export interface NightSlice {
  propertyId: string;
  start: string;
  to: string;
  take: number;
}

/** A slice's nights as stored JSON joined by commas, their count and last date, and the channel's ids of the property's rate plans. */
export interface SliceNights {
  /** The nights in pieces of at most `NIGHTS_PER_PIECE`, in night order, to be joined by commas. */
  data: string[];
  count: number;
  last: string | null;
  /** `<property id>/<plan key> <channel id>` pairs, space-separated. */
  plans: string | null;
}

/**
 * Nights per piece of text the query answers: about 110 KB, under V8's large-object size (128
 * KB), so the driver's strings are ordinary young objects.
 */
export const NIGHTS_PER_PIECE = 96;

/**
 * One entry per slice, in the slices' order, read in one round trip: each slice's nights in
 * pieces of `NIGHTS_PER_PIECE` dates (every night of a horizon is stored), each piece joined in
 * SQL from an index range in night order with nothing to sort (the driver handles a few values
 * per property, not hundreds), and with each slice's first piece the channel's ids of its rate
 * plans (a range on the primary key).
 */
export async function nightsOfSlices(
  em: EntityManager,
  channelId: string,
  slices: readonly NightSlice[],
): Promise<SliceNights[]> {
  if (slices.length === 0) return [];
  const pieces: { slice: number; propertyId: string; start: string; stop: string }[] = [];
  for (const [i, slice] of slices.entries()) {
    const count = Math.max(1, Math.ceil(slice.take / NIGHTS_PER_PIECE));
    for (let piece = 0; piece < count; piece += 1) {
      const stop = addDays(slice.start, Math.min((piece + 1) * NIGHTS_PER_PIECE, slice.take));
      pieces.push({
        slice: i,
        propertyId: slice.propertyId,
        start: addDays(slice.start, piece * NIGHTS_PER_PIECE),
        stop: stop < slice.to ? stop : slice.to,
      });
    }
  }
  const rows = await em.execute<
    { n: string; data: string; count: number; last: string | null; plans: string | null }[]
  >(
    `select p.n, array_to_string(b.bodies, ',') as data, cardinality(b.bodies) as count,
            (select to_char(max(night), 'YYYY-MM-DD') from ari_night where property_id = p.pid and night >= p.start and night < p.stop) as last,
            case when p.first then (select string_agg(c.internal_key || ' ' || c.external_id, ' ') from channel_id c
              where c.channel_id = ? and c.kind = 'rate_plan' and c.internal_key > p.pid::text || '/' and c.internal_key < p.pid::text || '0') end as plans
       from unnest(?::uuid[], ?::date[], ?::date[], ?::boolean[]) with ordinality as p(pid, start, stop, first, n)
       cross join lateral (select array(select body from ari_night where property_id = p.pid and night >= p.start and night < p.stop order by night) as bodies) b`,
    [
      channelId,
      pgArray(pieces.map((x) => x.propertyId)),
      pgArray(pieces.map((x) => x.start)),
      pgArray(pieces.map((x) => x.stop)),
      `{${pieces.map((x, i) => (i === 0 || pieces[i - 1]!.slice !== x.slice ? 't' : 'f')).join(',')}}`,
    ],
  );
  const out: SliceNights[] = slices.map(() => ({ data: [], count: 0, last: null, plans: null }));
  // In the pieces' order (the query has no ORDER BY: sorting the page's megabytes of text
  // spilled past work_mem to disk).
  rows.sort((a, b) => Number(a.n) - Number(b.n));
  for (const row of rows) {
    const slice = out[pieces[Number(row.n) - 1]!.slice]!;
    if (row.count > 0) slice.data.push(row.data);
    slice.count += row.count;
    if (row.last !== null) slice.last = row.last;
    if (row.plans !== null) slice.plans = row.plans;
  }
  return out;
}
