import type { EntityManager } from '@mikro-orm/postgresql';

/** A property with availability the channel sees. */
export interface AvailabilityCandidate {
  /** The channel's id of the property. */
  externalId: string;
  internalId: string;
  currency: string;
  /** The availability's version. */
  version: number;
  /** When the availability last changed. */
  updatedAt: Date;
  /**
   * The same instant as Postgres writes it, microseconds included (a Date keeps milliseconds):
   * the position a cursor carries, so the next page starts exactly there.
   */
  stamp: string;
  /** The first night past the horizon (`YYYY-MM-DD`). */
  horizonEnd: string;
  timezone: string;
}

/** A candidate as the query returns it (numbers and instants as text). */
interface CandidateRow {
  external_id: string;
  internal_id: string;
  currency: string;
  version: string;
  updated_at: string;
  horizon_end: string;
  timezone: string;
}

/** Where a page of availability starts: a property (the channel's id) and its stamp when it was read. */
export interface CandidatePosition {
  /** The property's `stamp`. */
  stamp: string;
  externalId: string;
  /** The property itself is listed again (its nights continue), else listing starts after it. */
  inclusive: boolean;
}

export interface CandidateFilter {
  /** Only properties whose availability changed at or after this instant; with it, tombstones too. */
  since?: Date;
  /** Only this property (the channel's id). */
  externalId?: string;
  after?: CandidatePosition;
  limit: number;
}

/**
 * A property the channel no longer sees, as the availability change listing shows it: exactly
 * `{id, status, version, updated_at}`. Its `updated_at` is the channel's stamp of the withdrawal
 * or deletion, its `version` past every availability version the channel could have read: the
 * availability's current one plus one while the property exists (a return moves it by two,
 * `announceNowVisible`), the last one plus two once deleted (`ari_property_gone`), so a deletion
 * after a withdrawal is higher still.
 */
export interface AvailabilityTombstone {
  externalId: string;
  internalId: string;
  status: 'withdrawn' | 'deleted';
  version: number;
  updatedAt: Date;
  /** As `AvailabilityCandidate.stamp`. */
  stamp: string;
}

/** What an availability listing holds, in order: a property's nights, or its tombstone. */
export type ListedAvailability =
  ({ tombstone: false } & AvailabilityCandidate) | ({ tombstone: true } & AvailabilityTombstone);

/** A row of either kind as the query returns it. */
interface ListedRow extends CandidateRow {
  status: 'withdrawn' | 'deleted' | null;
}

/** The position condition on `(stamp, property)` columns, and its values. */
function afterCondition(at: string, id: string, channelId: string, after: CandidatePosition): [string, unknown[]] {
  return [
    `(${at}, ${id}) ${after.inclusive ? '>=' : '>'} (?::timestamptz,
      (select internal_id from channel_resource where channel_id = ? and kind = 'property' and external_id = ?))`,
    [after.stamp, channelId, after.externalId],
  ];
}

/**
 * Active and inactive properties of the channel's view with their availability, in the order of
 * their availability stamps, `(updated_at, property)`; with `since`, the properties withdrawn or
 * deleted from the view since then too, as tombstones at their withdrawal's stamp. Stamps are
 * taken under the log lock of every channel that sees the property (`announce`,
 * `announceNowVisible`; the projector's view writes for a withdrawal), so they grow strictly in
 * commit order per channel (`withChannelLog`): a change that commits after a reader passed a
 * position is stamped after it, whatever its id, and is read on this pass, never skipped. Full
 * listings use the same order, so a property changed during a full pull moves behind the reader
 * too. Ties within a stamp go by the internal id, which one index orders with the stamp (a page
 * is a range scan, with no sort of the channel's properties); the position names the channel's
 * id, looked up here. Tombstones are read from the channel's view by the index of its tombstones in
 * stamp order, no further than the last property of the page when the page is full.
 */
export async function availabilityCandidates(
  em: EntityManager,
  channelId: string,
  filter: CandidateFilter,
): Promise<ListedAvailability[]> {
  const where = [`cr.status in ('active', 'inactive')`];
  const params: unknown[] = [channelId];
  if (filter.since) {
    where.push('a.updated_at >= ?');
    params.push(filter.since);
  }
  if (filter.externalId !== undefined) {
    where.push('cr.external_id = ?');
    params.push(filter.externalId);
  }
  if (filter.after) {
    const [condition, values] = afterCondition('a.updated_at', 'a.property_id', channelId, filter.after);
    where.push(condition);
    params.push(...values);
  }
  const live = `select cr.external_id, cr.internal_id, a.currency, a.version, a.updated_at as at,
            to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end, a.timezone, null::text as status
       from ari_property a join channel_resource cr on cr.channel_id = ? and cr.kind = 'property' and cr.internal_id = a.property_id
      where ${where.join(' and ')} order by a.updated_at, a.property_id limit ?`;
  params.push(filter.limit);
  const columns = 'external_id, internal_id, currency, version, at::text as updated_at, horizon_end, timezone, status';
  let sql = `select ${columns} from (${live}) live`;
  if (filter.since) {
    const gone = [
      `cr.channel_id = ?`,
      `cr.kind = 'property'`,
      `cr.status in ('withdrawn', 'deleted')`,
      'cr.updated_at >= ?',
    ];
    const goneParams: unknown[] = [channelId, filter.since];
    // Past the page's last property, when the page is full, a tombstone belongs to a later page.
    gone.push(
      `cr.updated_at <= (select case when count(*) < ? then 'infinity'::timestamptz else max(at) end from live)`,
    );
    goneParams.push(filter.limit);
    if (filter.externalId !== undefined) {
      gone.push('cr.external_id = ?');
      goneParams.push(filter.externalId);
    }
    if (filter.after) {
      const [condition, values] = afterCondition('cr.updated_at', 'cr.internal_id', channelId, filter.after);
      gone.push(condition);
      goneParams.push(...values);
    }
    sql = `with live as materialized (${live})
      select ${columns} from (
        select * from live
        union all
        (select cr.external_id, cr.internal_id, null, coalesce(case cr.status when 'deleted' then g.version + 2 else a.version + 1 end, cr.version),
                cr.updated_at, null, null, cr.status::text
           from channel_resource cr
           left join ari_property a on a.property_id = cr.internal_id
           left join ari_property_gone g on g.property_id = cr.internal_id
          where ${gone.join(' and ')} order by cr.updated_at, cr.internal_id limit ?)
      ) listed order by at, internal_id limit ?`;
    params.push(...goneParams, filter.limit, filter.limit);
  }
  // One object and one Date per property of the page; the nights are never parsed.
  const rows = await em.execute<ListedRow[]>(sql, params);
  return rows.map((row): ListedAvailability => {
    const common = {
      externalId: row.external_id,
      internalId: row.internal_id,
      version: Number(row.version),
      updatedAt: new Date(row.updated_at),
      stamp: row.updated_at,
    };
    if (row.status !== null) return { tombstone: true, ...common, status: row.status };
    return { tombstone: false, ...common, currency: row.currency, horizonEnd: row.horizon_end, timezone: row.timezone };
  });
}
