import type { EntityManager } from '@mikro-orm/postgresql';
import { pgArray } from './sql.ts';

/**
 * Listing reports and statistics (db/entities/listings.ts). Reads for the channel go through its
 * view (`channel_resource`), so a property the channel does not see, or sees as a tombstone, is
 * never matched; the platform's reads go by the property's reference.
 */

/** A property of the channel's view, with the zone its local dates follow. */
export interface ListingSubject {
  externalId: string;
  internalId: string;
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
  const rows = await em.execute<{ external_id: string; internal_id: string; status: string; timezone: string }[]>(
    `select cr.external_id, cr.internal_id, cr.status, l.content->>'timezone' as timezone
       from channel_resource cr
       join property p on p.id = cr.internal_id
       join location l on l.id = p.location_id
      where cr.channel_id = ? and cr.kind = 'property' and cr.external_id = any(?::text[])`,
    [channelId, pgArray(externalIds)],
  );
  return rows.map((row) => ({
    externalId: row.external_id,
    internalId: row.internal_id,
    status: row.status,
    timezone: row.timezone,
  }));
}

/** A report's state as stored: what the channel said, instants as Date. */
export interface ListingReportState {
  status: string;
  publicUrl: string | null;
  promoted: boolean;
  promotedUntil: Date | null;
  rejectionReason: string | null;
  rejectionText: string | null;
}

/** The channel's current report on a property: its state, when it last changed and when it was last received. */
export interface ListingReport extends ListingReportState {
  updatedAt: Date;
  receivedAt: Date;
}

/** A report's state as raw queries return it (instants as text). */
interface ReportStateRow {
  status: string;
  public_url: string | null;
  promoted: boolean;
  promoted_until: string | null;
  rejection_reason: string | null;
  rejection_text: string | null;
}

interface ReportRow extends ReportStateRow {
  updated_at: string;
  received_at: string;
}

function reportStateOf(row: ReportStateRow): ListingReportState {
  return {
    status: row.status,
    publicUrl: row.public_url,
    promoted: row.promoted,
    promotedUntil: row.promoted_until === null ? null : new Date(row.promoted_until),
    rejectionReason: row.rejection_reason,
    rejectionText: row.rejection_text,
  };
}

function reportOf(row: ReportRow): ListingReport {
  return { ...reportStateOf(row), updatedAt: new Date(row.updated_at), receivedAt: new Date(row.received_at) };
}

const REPORT_COLUMNS = 'status, public_url, promoted, promoted_until, rejection_reason, rejection_text';
const values = (state: ListingReportState) => [
  state.status,
  state.publicUrl,
  state.promoted,
  state.promotedUntil,
  state.rejectionReason,
  state.rejectionText,
];

export async function findReport(
  em: EntityManager,
  channelId: string,
  propertyId: string,
  options: { lock?: boolean } = {},
): Promise<ListingReport | null> {
  const [row] = await em.execute<ReportRow[]>(
    `select ${REPORT_COLUMNS}, updated_at, received_at from listing_report where channel_id = ? and property_id = ?${options.lock ? ' for update' : ''}`,
    [channelId, propertyId],
  );
  return row ? reportOf(row) : null;
}

/** Inserts the first report of (channel, property); false when one exists (possibly just committed by another writer). */
export async function insertReport(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  state: ListingReportState,
  at: Date,
): Promise<boolean> {
  const inserted = await tx.execute<{ one: number }[]>(
    `insert into listing_report (channel_id, property_id, ${REPORT_COLUMNS}, updated_at, received_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) on conflict (channel_id, property_id) do nothing returning 1 as one`,
    [channelId, propertyId, ...values(state), at, at],
  );
  return inserted.length === 1;
}

/** Replaces the report; `updatedAt` moves only when the caller says the state changed. */
export async function updateReport(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  state: ListingReportState,
  at: Date,
  changed: boolean,
): Promise<void> {
  await tx.execute(
    `update listing_report set status = ?, public_url = ?, promoted = ?, promoted_until = ?, rejection_reason = ?, rejection_text = ?,
            received_at = ?${changed ? ', updated_at = ?' : ''}
      where channel_id = ? and property_id = ?`,
    [...values(state), at, ...(changed ? [at] : []), channelId, propertyId],
  );
}

export async function appendReportChange(
  tx: EntityManager,
  channelId: string,
  propertyId: string,
  state: ListingReportState,
  at: Date,
): Promise<void> {
  await tx.execute(
    `insert into listing_report_change (channel_id, property_id, ${REPORT_COLUMNS}, received_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [channelId, propertyId, ...values(state), at],
  );
}

/** One day of a property's statistics as the channel reports it. */
export interface ListingStatDay {
  propertyId: string;
  day: string;
  views: number;
  clicks: number;
}

/** Writes each day; a day already reported by the channel is replaced. */
export async function upsertStats(
  tx: EntityManager,
  channelId: string,
  days: readonly ListingStatDay[],
  at: Date,
): Promise<void> {
  if (days.length === 0) return;
  await tx.execute(
    `insert into listing_stat (channel_id, property_id, day, views, clicks_to_booking, received_at)
     select ?, p, d::date, v, c, ? from unnest(?::uuid[], ?::text[], ?::int[], ?::int[]) as t(p, d, v, c)
     on conflict (channel_id, property_id, day) do update
        set views = excluded.views, clicks_to_booking = excluded.clicks_to_booking, received_at = excluded.received_at`,
    [
      channelId,
      at,
      pgArray(days.map((d) => d.propertyId)),
      pgArray(days.map((d) => d.day)),
      `{${days.map((d) => d.views).join(',')}}`,
      `{${days.map((d) => d.clicks).join(',')}}`,
    ],
  );
}

/** A channel's current report on a property, with the channel's name and the id it knows the property by. */
export interface ChannelReport extends ListingReport {
  channel: string;
  channelId: string;
  /** Null when the channel's view never had the property. */
  externalId: string | null;
}

/** Every channel's current report on a property, by channel name. */
export async function reportsOfProperty(em: EntityManager, propertyId: string): Promise<ChannelReport[]> {
  const rows = await em.execute<(ReportRow & { channel: string; channel_id: string; external_id: string | null })[]>(
    `select c.name as channel, c.id as channel_id, cr.external_id, r.status, r.public_url, r.promoted, r.promoted_until, r.rejection_reason, r.rejection_text, r.updated_at, r.received_at
       from listing_report r
       join channel c on c.id = r.channel_id
       left join channel_resource cr on cr.channel_id = r.channel_id and cr.kind = 'property' and cr.internal_id = r.property_id
      where r.property_id = ? order by c.name`,
    [propertyId],
  );
  return rows.map((row) => ({
    ...reportOf(row),
    channel: row.channel,
    channelId: row.channel_id,
    externalId: row.external_id,
  }));
}

/** A change of a channel's report: the state it took and the receipt that made it. */
export interface ReportChange extends ListingReportState {
  channelId: string;
  receivedAt: Date;
}

/** The changes of every channel's report on a property, newest first, at most `perChannel` per channel. */
export async function reportChangesOfProperty(
  em: EntityManager,
  propertyId: string,
  perChannel: number,
): Promise<ReportChange[]> {
  const rows = await em.execute<(ReportStateRow & { channel_id: string; received_at: string })[]>(
    `select channel_id, ${REPORT_COLUMNS}, received_at from (
       select h.*, row_number() over (partition by channel_id order by seq desc) as n from listing_report_change h where property_id = ?
     ) ranked where n <= ? order by channel_id, seq desc`,
    [propertyId, perChannel],
  );
  return rows.map((row) => ({
    ...reportStateOf(row),
    channelId: row.channel_id,
    receivedAt: new Date(row.received_at),
  }));
}

/** One day of a channel's statistics on a property. */
export interface ChannelStatDay {
  channel: string;
  day: string;
  views: number;
  clicksToBooking: number;
}

/** Each channel's days of a property from `from` up to `to` (exclusive), in date order. */
export async function statsOfProperty(
  em: EntityManager,
  propertyId: string,
  from: string,
  to: string,
): Promise<ChannelStatDay[]> {
  const rows = await em.execute<{ channel: string; day: string; views: number; clicks_to_booking: number }[]>(
    `select c.name as channel, to_char(s.day, 'YYYY-MM-DD') as day, s.views, s.clicks_to_booking
       from listing_stat s join channel c on c.id = s.channel_id
      where s.property_id = ? and s.day >= ?::date and s.day < ?::date
      order by c.name, s.day`,
    [propertyId, from, to],
  );
  return rows.map((row) => ({
    channel: row.channel,
    day: row.day,
    views: row.views,
    clicksToBooking: row.clicks_to_booking,
  }));
}

/** The properties a channel sees now (active or inactive), with the platform's reference, in reference order. */
export async function propertiesSeenBy(
  em: EntityManager,
  channelId: string,
): Promise<{ externalId: string; internalId: string; ref: string }[]> {
  const rows = await em.execute<{ external_id: string; internal_id: string; ref: string }[]>(
    `select cr.external_id, cr.internal_id, p.ref from channel_resource cr join property p on p.id = cr.internal_id
      where cr.channel_id = ? and cr.kind = 'property' and cr.status in ('active', 'inactive') order by p.ref`,
    [channelId],
  );
  return rows.map((row) => ({ externalId: row.external_id, internalId: row.internal_id, ref: row.ref }));
}
