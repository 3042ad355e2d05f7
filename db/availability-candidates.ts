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
  /** Only properties whose availability changed at or after this instant. */
  since?: Date;
  /** Only this property (the channel's id). */
  externalId?: string;
  after?: CandidatePosition;
  limit: number;
}

/**
 * Active and inactive properties of the channel's view with their availability, in the order of
 * their availability stamps, `(updated_at, property)`. Stamps are taken under the log lock of
 * every channel that sees the property (`announce`, `announceNowVisible`), so they grow strictly
 * in commit order per channel (`withChannelLog`): a change that commits after a reader passed a
 * position is stamped after it, whatever its id, and is read on this pass, never skipped. Full
 * listings use the same order, so a property changed during a full pull moves behind the reader
 * too. Ties within a stamp go by the internal id, which one index
 * orders with the stamp (a page is a range scan, with no sort of the channel's properties); the
 * position names the channel's id, looked up here.
 */
export async function availabilityCandidates(
  em: EntityManager,
  channelId: string,
  filter: CandidateFilter,
): Promise<AvailabilityCandidate[]> {
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
    where.push(
      `(a.updated_at, a.property_id) ${filter.after.inclusive ? '>=' : '>'} (?::timestamptz,
        (select internal_id from channel_resource where channel_id = ? and kind = 'property' and external_id = ?))`,
    );
    params.push(filter.after.stamp, channelId, filter.after.externalId);
  }
  // One object and one Date per property of the page; the nights are never parsed.
  const rows = await em.execute<CandidateRow[]>(
    `select cr.external_id, cr.internal_id, a.currency, a.version, a.updated_at::text as updated_at,
            to_char(a.horizon_end, 'YYYY-MM-DD') as horizon_end, a.timezone
       from ari_property a join channel_resource cr on cr.channel_id = ? and cr.kind = 'property' and cr.internal_id = a.property_id
      where ${where.join(' and ')} order by a.updated_at, a.property_id limit ?`,
    [...params, filter.limit],
  );
  return rows.map((row) => ({
    externalId: row.external_id,
    internalId: row.internal_id,
    currency: row.currency,
    version: Number(row.version),
    updatedAt: new Date(row.updated_at),
    stamp: row.updated_at,
    horizonEnd: row.horizon_end,
    timezone: row.timezone,
  }));
}
