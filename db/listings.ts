import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './sql.ts';

/**
 * Listing reports and statistics (db/entities/listings.ts). Reads for the channel go through its
 * view (`channel_resource`), so a property the channel does not see, or sees as a tombstone, is
 * never matched; the platform's reads go by the property's reference.
 */

/** A property of the channel's view, with the zone its local dates follow. */
export interface ListingSubject {
  external_id: string;
  internal_id: string;
  status: string;
  timezone: string;
}

/** The channel's properties among `externalIds` (any status; the caller decides what it accepts). */
export async function listingSubjects(
  em: EntityManager,
  channelId: string,
  externalIds: readonly string[],
): Promise<ListingSubject[]> {
  if (externalIds.length === 0) return [];
  return em.execute<ListingSubject[]>(
    `select cr.external_id, cr.internal_id, cr.status, l.content->>'timezone' as timezone
       from channel_resource cr
       join property p on p.id = cr.internal_id
       join location l on l.id = p.location_id
      where cr.channel_id = ? and cr.kind = 'property' and cr.external_id = any(?::text[])`,
    [channelId, pgArray(externalIds)],
  );
}

/** The stored form of a report's state; instants as Date. */
export interface ReportRow {
  status: string;
  public_url: string | null;
  promoted: boolean;
  promoted_until: Date | null;
  rejection_reason: string | null;
  rejection_text: string | null;
}

export interface StoredReport extends ReportRow {
  updated_at: Date;
  received_at: Date;
}

const REPORT_COLUMNS = 'status, public_url, promoted, promoted_until, rejection_reason, rejection_text';
const values = (row: ReportRow) => [
  row.status,
  row.public_url,
  row.promoted,
  row.promoted_until,
  row.rejection_reason,
  row.rejection_text,
];

export async function findReport(
  em: EntityManager,
  channelId: string,
  propertyId: string,
  options: { lock?: boolean } = {},
): Promise<StoredReport | null> {
  const [row] = await em.execute<StoredReport[]>(
    `select ${REPORT_COLUMNS}, updated_at, received_at from listing_report where channel_id = ? and property_id = ?${options.lock ? ' for update' : ''}`,
    [channelId, propertyId],
  );
  return row ?? null;
}

/** Inserts the first report of (channel, property); false when one exists (possibly just committed by another writer). */
export async function insertReport(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  row: ReportRow,
  at: Date,
): Promise<boolean> {
  const inserted = await tx.execute<{ one: number }[]>(
    `insert into listing_report (channel_id, property_id, ${REPORT_COLUMNS}, updated_at, received_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (channel_id, property_id) do nothing returning 1 as one`,
    [channelId, propertyId, ...values(row), at, at],
  );
  return inserted.length === 1;
}

/** Replaces the report; `updatedAt` moves only when the caller says the state changed. */
export async function updateReport(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  row: ReportRow,
  at: Date,
  changed: boolean,
): Promise<void> {
  await tx.execute(
    `update listing_report set status = ?, public_url = ?, promoted = ?, promoted_until = ?, rejection_reason = ?, rejection_text = ?,
            received_at = ?${changed ? ', updated_at = ?' : ''}
      where channel_id = ? and property_id = ?`,
    [...values(row), at, ...(changed ? [at] : []), channelId, propertyId],
  );
}

export async function appendReportChange(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  row: ReportRow,
  at: Date,
): Promise<void> {
  await tx.execute(
    `insert into listing_report_change (channel_id, property_id, ${REPORT_COLUMNS}, received_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [channelId, propertyId, ...values(row), at],
  );
}

export interface StatRow {
  propertyId: string;
  day: string;
  views: number;
  clicks: number;
}

/** Writes each day; a day already reported by the channel is replaced. */
export async function upsertStats(
  tx: EntityManager,
  channelId: string,
  rows: readonly StatRow[],
  at: Date,
): Promise<void> {
  if (rows.length === 0) return;
  await tx.execute(
    `insert into listing_stat (channel_id, property_id, day, views, clicks_to_booking, received_at)
     select ?, p, d::date, v, c, ? from unnest(?::uuid[], ?::text[], ?::int[], ?::int[]) as t(p, d, v, c)
     on conflict (channel_id, property_id, day) do update
        set views = excluded.views, clicks_to_booking = excluded.clicks_to_booking, received_at = excluded.received_at`,
    [
      channelId,
      at,
      pgArray(rows.map((r) => r.propertyId)),
      pgArray(rows.map((r) => r.day)),
      `{${rows.map((r) => r.views).join(',')}}`,
      `{${rows.map((r) => r.clicks).join(',')}}`,
    ],
  );
}

/** Every channel's current report on a property, with the channel's name and the id it knows the property by. */
export async function reportsOfProperty(
  em: EntityManager,
  propertyId: string,
): Promise<(StoredReport & { channel: string; channel_id: string; external_id: string | null })[]> {
  return em.execute(
    `select c.name as channel, c.id as channel_id, cr.external_id, r.status, r.public_url, r.promoted, r.promoted_until, r.rejection_reason, r.rejection_text, r.updated_at, r.received_at
       from listing_report r
       join channel c on c.id = r.channel_id
       left join channel_resource cr on cr.channel_id = r.channel_id and cr.kind = 'property' and cr.internal_id = r.property_id
      where r.property_id = ? order by c.name`,
    [propertyId],
  );
}

/** The changes of every channel's report on a property, newest first, at most `perChannel` per channel. */
export async function reportChangesOfProperty(
  em: EntityManager,
  propertyId: string,
  perChannel: number,
): Promise<(ReportRow & { channel_id: string; received_at: Date })[]> {
  return em.execute(
    `select channel_id, ${REPORT_COLUMNS}, received_at from (
       select h.*, row_number() over (partition by channel_id order by seq desc) as n from listing_report_change h where property_id = ?
     ) ranked where n <= ? order by channel_id, seq desc`,
    [propertyId, perChannel],
  );
}

/** Each channel's days of a property from `from` up to `to` (exclusive), in date order. */
export async function statsOfProperty(
  em: EntityManager,
  propertyId: string,
  from: string,
  to: string,
): Promise<{ channel: string; day: string; views: number; clicks_to_booking: number }[]> {
  return em.execute(
    `select c.name as channel, to_char(s.day, 'YYYY-MM-DD') as day, s.views, s.clicks_to_booking
       from listing_stat s join channel c on c.id = s.channel_id
      where s.property_id = ? and s.day >= ?::date and s.day < ?::date
      order by c.name, s.day`,
    [propertyId, from, to],
  );
}

/** The properties a channel sees now (active or inactive), with the platform's reference, in reference order. */
export async function propertiesSeenBy(
  em: EntityManager,
  channelId: string,
): Promise<{ external_id: string; internal_id: string; ref: string }[]> {
  return em.execute(
    `select cr.external_id, cr.internal_id, p.ref from channel_resource cr join property p on p.id = cr.internal_id
      where cr.channel_id = ? and cr.kind = 'property' and cr.status in ('active', 'inactive') order by p.ref`,
    [channelId],
  );
}
