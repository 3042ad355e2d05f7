import type { EntityManager } from '@mikro-orm/postgresql';
import { addDays } from '../domain/time.ts';
import { pgArray } from './sql.ts';
import pg from 'pg';

/** Up to `take` nights of one property from `start`, before `to`. */
export interface NightSlice {
  propertyId: string;
  start: string;
  to: string;
  take: number;
}

/** One piece of a slice's nights as the query answers it, in night order. */
export interface NightPiece {
  /** The slice's place among those asked for. */
  slice: number;
  /** Up to `NIGHTS_PER_PIECE` nights as stored JSON joined by commas; null when the range holds none. */
  data: string | null;
  count: number;
  /** The piece's last night, `YYYY-MM-DD`. */
  last: string | null;
  /** With a slice's first piece only: `<property id>/<plan key> <channel id>` pairs, space-separated. */
  plans: string | null;
}

/**
 * Nights per piece of text the query answers: about 110 KB, under V8's large-object size (128
 * KB), so the driver's strings are ordinary young objects, each garbage once it is copied.
 */
export const NIGHTS_PER_PIECE = 96;

/** The read: a fixed text, prepared once per connection. */
const PIECES_SQL = `select p.n, b.data, b.count, to_char(b.last, 'YYYY-MM-DD') as last,
       case when p.first then (select string_agg(c.internal_key || ' ' || c.external_id, ' ') from channel_id c
         where c.channel_id = $1 and c.kind = 'rate_plan' and c.internal_key > p.pid::text || '/' and c.internal_key < p.pid::text || '0') end as plans
  from unnest($2::uuid[], $3::date[], $4::date[], $5::boolean[]) with ordinality as p(pid, start, stop, first, n)
  cross join lateral (select string_agg(body, ',') as data, count(*)::int as count, max(night) as last
    from (select night, body from ari_night where property_id = p.pid and night >= p.start and night < p.stop order by night) r) b`;

/**
 * The slices' nights in one round trip, handed to `onPiece` one piece at a time as the rows
 * arrive, in the slices' order and each slice's night order, so the caller copies each piece and
 * drops it (the page's megabytes of text are never all in the heap). Each slice comes in pieces
 * of `NIGHTS_PER_PIECE` dates (every night of a horizon is stored), at least one, each piece one
 * aggregate over an index range of the primary key giving its text joined in night order, its
 * count and its last night from one scan, with each slice's first piece the channel's ids of its
 * rate plans (a range on the primary key). The order comes from the subquery the aggregate reads,
 * an index scan in night order: PostgreSQL never pulls a subquery with an ORDER BY up into its
 * parent, and a plain aggregate takes its input in the order given. `string_agg(body, ',' order
 * by night)` says the same in the SQL standard's way but sorts each piece again (PostgreSQL 15
 * does not see the index already has): a fifth more of PostgreSQL's CPU per page. Not an
 * `array(select …)` in a lateral subquery: PostgreSQL inlines that into each expression that
 * names it, so reading the array's text and its length read every night twice. The query has no
 * ORDER BY (sorting the page's megabytes of text spilled past work_mem to disk): rows come in the
 * pieces' order, and one that ever came early would wait here for those before it.
 *
 * On MikroORM's pool (`getNativeClient`) with the driver's row events: the ORM's `execute`
 * collects every row before it answers. An error thrown by `onPiece` is raised once the rows end.
 */
export async function streamNightsOfSlices(
  em: EntityManager,
  channelId: string,
  slices: readonly NightSlice[],
  onPiece: (piece: NightPiece) => void,
): Promise<void> {
  if (slices.length === 0) return;
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
  const values = [
    channelId,
    pgArray(pieces.map((x) => x.propertyId)),
    pgArray(pieces.map((x) => x.start)),
    pgArray(pieces.map((x) => x.stop)),
    `{${pieces.map((x, i) => (i === 0 || pieces[i - 1]!.slice !== x.slice ? 't' : 'f')).join(',')}}`,
  ];
  const pool = await em.getConnection().getNativeClient();
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      let failure: Error | undefined;
      const take = inOrder<PieceRow>((row, n) => {
        const [, data, count, last, plans] = row;
        onPiece({ slice: pieces[n - 1]!.slice, data, count, last, plans });
      });
      const config: pg.QueryArrayConfig = { name: 'ari_pieces', text: PIECES_SQL, values, rowMode: 'array' };
      const query = client.query(new pg.Query(config));
      query.on('row', (row: PieceRow) => {
        if (failure !== undefined) return;
        try {
          take(Number(row[0]), row);
        } catch (error) {
          failure = error instanceof Error ? error : new Error(String(error));
        }
      });
      query.on('end', () => {
        if (failure === undefined && take.handed !== pieces.length)
          failure = new Error(`the nights query answered ${take.handed} of ${pieces.length} pieces`);
        if (failure === undefined) resolve();
        else reject(failure);
      });
      query.on('error', (error: Error) => {
        broken = error;
        reject(error);
      });
    });
  } finally {
    client.release(broken);
  }
}

/** `n`, `data`, `count`, `last`, `plans`, as `rowMode: 'array'` hands them. */
type PieceRow = [string, string | null, number, string | null, string | null];

/**
 * Hands rows numbered from 1 to `hand` in their numbers' order, whatever order they come in: one
 * that comes early waits for those before it. `handed` counts the rows handed so far.
 */
export function inOrder<T>(hand: (row: T, n: number) => void): ((n: number, row: T) => void) & { handed: number } {
  const early = new Map<number, T>();
  const take = Object.assign(
    (n: number, row: T) => {
      early.set(n, row);
      for (let ready = early.get(take.handed + 1); ready !== undefined; ready = early.get(take.handed + 1)) {
        early.delete(take.handed + 1);
        hand(ready, take.handed + 1);
        take.handed += 1;
      }
    },
    { handed: 0 },
  );
  return take;
}
