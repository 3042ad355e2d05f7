import type { EntityManager } from '@mikro-orm/postgresql';
import { presentStoredResource } from '../../domain/catalogue/projection.ts';
import type { LogAtPosition } from '../../domain/catalogue/log-position.ts';
import type { ResourceStatus } from '../../domain/catalogue/status.ts';
import { instantOfTimestamp } from '../../domain/time.ts';
import { pgArray, queryRows } from '../sql.ts';
import type { ViewKind } from '../../domain/catalogue/event-type.ts';

interface ResourceRow {
  external_id: string;
  status: ResourceStatus;
  version: string;
  /** Raw queries return timestamps as text. */
  updated_at: string;
  /** The stored JSON text, as the projector wrote it (`json`, not `jsonb`: kept byte for byte). */
  body: string;
}

/** Position of the last row of a page: lists are ordered by `(updated_at, external_id)`. */
export interface ListPosition {
  updatedAt: Date;
  id: string;
}

export interface ListFilter {
  /** Inclusive; with it, tombstones are listed too. */
  since?: Date;
  statuses?: readonly ResourceStatus[];
  after?: ListPosition;
  limit: number;
}

/** A record as served: its JSON text, and what names that text (its id and version). */
export interface StoredRecord {
  json: string;
  id: string;
  version: number;
}

export interface ListPage {
  items: StoredRecord[];
  /** Position of the last item, when more rows follow. */
  next: ListPosition | null;
}

/**
 * The served text, spliced once per row from the stored JSON (its `updated_at` the one instant
 * converted): the list read is the hot path, and builds no object of a record's fields.
 */
function present(row: ResourceRow): StoredRecord {
  const version = Number(row.version);
  return {
    json: presentStoredResource(row.body, row.external_id, row.status, version, instantOfTimestamp(row.updated_at)),
    id: row.external_id,
    version,
  };
}

const COLUMNS = 'external_id, status, version, updated_at, body::text as body';

/**
 * One page of a channel's view of a kind (no unit of work: a read of stored text). The order is
 * `(updated_at, external_id)` for full listings too, so a record changed during a full sync moves
 * behind the reader and is read again rather than skipped.
 */
export async function listResources(
  em: EntityManager,
  channelId: string,
  kind: ViewKind,
  filter: ListFilter,
): Promise<ListPage> {
  const params: unknown[] = [channelId, kind];
  const where = ['channel_id = $1', 'kind = $2'];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (filter.since) where.push(`updated_at >= ${param(filter.since)}`);
  else where.push(`status in ('active', 'inactive')`);
  if (filter.statuses) where.push(`status = any(${param(filter.statuses)}::text[])`);
  if (filter.after)
    where.push(`(updated_at, external_id) > (${param(filter.after.updatedAt)}, ${param(filter.after.id)})`);
  const rows = await queryRows<ResourceRow>(
    em,
    `select ${COLUMNS} from channel_resource where ${where.join(' and ')} order by updated_at, external_id limit ${param(filter.limit + 1)}`,
    params,
  );
  const page = rows.slice(0, filter.limit);
  const last = page.at(-1);
  return {
    items: page.map(present),
    next: rows.length > filter.limit && last ? { updatedAt: new Date(last.updated_at), id: last.external_id } : null,
  };
}

export async function findResource(
  em: EntityManager,
  channelId: string,
  kind: ViewKind,
  externalId: string,
): Promise<StoredRecord | null> {
  const [row] = await queryRows<ResourceRow>(
    em,
    `select ${COLUMNS} from channel_resource where channel_id = $1 and kind = $2 and external_id = $3`,
    [channelId, kind, externalId],
  );
  return row ? present(row) : null;
}

/** An event of the channel's log, at its position in commit order. */
export interface ChannelEvent {
  position: number;
  id: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

/**
 * An event row as raw queries return it (positions as text, instants as text). Exported for the
 * webhook dispatcher's own read of the log (db/webhooks.ts), still within db/.
 */
export interface EventRow {
  position: string;
  id: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

export interface EventPage {
  events: ChannelEvent[];
  hasMore: boolean;
  /** What the log holds at and before `after`, read in the same statement (one snapshot) as the events. */
  log: LogAtPosition;
  /**
   * The log's last kept event in that snapshot, null when none is kept. Every event up to it had
   * committed when the page was read (positions are taken under the channel's lock, in commit
   * order), so a page that is not full has returned every event of its types up to there.
   */
  tail: { position: number; id: string; occurredAt: Date } | null;
}

/** A row of the page's statement: the log's ends and the event at or before `after` on every row, then one event, if any. */
interface EventPageRow {
  log_end: string | null;
  anchor_position: string | null;
  anchor_id: string | null;
  tail_position: string | null;
  tail_id: string | null;
  tail_occurred_at: string | null;
  position: string | null;
  id: string;
  type: string;
  occurred_at: string;
  data: Record<string, unknown>;
}

/**
 * The event type the log's two partial indexes split it on (migration EventPageIndexes): the
 * events `read:ari` gives on one side, those `read:catalog` gives on the other. A page of one
 * side's types walks only that side's index: it examines the rows it returns, however many of the
 * other side lie between them. PostgreSQL proves the index applies from the list of types when it
 * plans with the statement's values, as it does for every statement the service sends (unnamed);
 * the page names its side in SQL as well so that a generic plan (a prepared statement, a pooler
 * that prepares) keeps it too.
 */
const SPLIT_TYPE = 'availability.updated';

function sideOfTheLog(types: readonly string[]): string {
  if (types.every((type) => type === SPLIT_TYPE)) return `and type = '${SPLIT_TYPE}'`;
  if (!types.includes(SPLIT_TYPE)) return `and type <> '${SPLIT_TYPE}'`;
  return '';
}

/**
 * Events after `after` in commit order (positions are taken under the channel's lock), of the given
 * types only, and what the log holds at `after` and at its end: each one probe of a primary key.
 * With `since`, only events stamped then or later: the first of them is found by one probe of the
 * channel's `(occurred_at, position)` index (a channel's stamps never decrease along its
 * positions), and the page starts there rather than filtering every older event the sweep has
 * not dropped yet. With `from` (the stamp of the event at `after`, which a cursor carries), every
 * part reads only the days from then on: the events after `after` are stamped no earlier, and the
 * event at `after` is found there if the log still holds it. The log's days are partitions
 * (db/partitions.ts), so each part plans and probes a day or two, not the whole window. One
 * statement, so the check and the page see the same log; it answers at least one row, its event
 * columns null when no event follows.
 */
export async function listEvents(
  em: EntityManager,
  channelId: string,
  options: {
    after: number;
    since?: Date | undefined;
    from?: Date | undefined;
    types: readonly string[];
    limit: number;
  },
): Promise<EventPage> {
  const { since } = options;
  const from = options.from ?? since;
  // The channel's last committed stamp bounds the days from above: every committed event is
  // stamped no later, and one committing meanwhile (stamped later) is read by the next page.
  const [log] = await em.execute<{ last_stamp: string }[]>('select last_stamp from channel_log where channel_id = ?', [
    channelId,
  ]);
  const bounds = [...(from === undefined ? [] : ['occurred_at >= ?']), ...(log ? ['occurred_at <= ?'] : [])];
  const days = bounds.map((bound) => `and ${bound}`).join(' ');
  const fromArg = [...(from === undefined ? [] : [from]), ...(log ? [log.last_stamp] : [])];
  // Positions start at 1: a read from the log's start has nothing at or before it to look for.
  const anchor =
    options.after === 0
      ? 'select null::bigint as position, null::text as id'
      : `select position, id from event where channel_id = ? and position <= ? ${days} order by position desc limit 1`;
  const anchorArgs = options.after === 0 ? [] : [channelId, options.after, ...fromArg];
  const start =
    since === undefined
      ? ''
      : `left join lateral (select position from event where channel_id = ? and occurred_at >= ?
                             order by occurred_at, position limit 1) start on true`;
  const rows = await em.execute<EventPageRow[]>(
    `select log.last_position as log_end, anchor.position as anchor_position, anchor.id as anchor_id,
            tail.position as tail_position, tail.id as tail_id, tail.occurred_at as tail_occurred_at,
            page.position, page.id, page.type, page.occurred_at, page.data
       from (values (1)) as one (x)
       left join channel_log log on log.channel_id = ?
       left join lateral (${anchor}) anchor on true
       left join lateral (select position, id, occurred_at from event where channel_id = ? ${days}
                           order by occurred_at desc, position desc limit 1) tail on true
       ${start}
       left join lateral (select position, id, type, occurred_at, data from event
                           where channel_id = ? and position > ? ${days}
                             ${since === undefined ? '' : 'and position >= start.position'}
                             and type = any(?::text[]) ${sideOfTheLog(options.types)}
                           order by position limit ?) page on true
      order by page.position`,
    [
      channelId,
      ...anchorArgs,
      channelId,
      ...fromArg,
      ...(since === undefined ? [] : [channelId, since]),
      channelId,
      options.after,
      ...fromArg,
      pgArray(options.types),
      options.limit + 1,
    ],
  );
  const first = rows[0]!;
  const found = rows.filter((row): row is EventPageRow & { position: string } => row.position !== null);
  return {
    events: found.slice(0, options.limit).map((row) => ({
      position: Number(row.position),
      id: row.id,
      type: row.type,
      occurredAt: new Date(row.occurred_at),
      data: row.data,
    })),
    hasMore: found.length > options.limit,
    log: {
      end: Number(first.log_end ?? 0),
      atOrBefore:
        first.anchor_position === null ? null : { position: Number(first.anchor_position), id: first.anchor_id! },
    },
    tail:
      first.tail_position === null
        ? null
        : { position: Number(first.tail_position), id: first.tail_id!, occurredAt: new Date(first.tail_occurred_at!) },
  };
}
