import { defineEntity, p } from '@mikro-orm/core';
import { PropertySchema } from './catalogue.ts';
import { ChannelSchema } from './channel.ts';

// What channels report about a property on their side (PUT /properties/{id}/listing,
// POST /listing-stats). Keyed by the internal property id, so a report follows the property
// whatever id the channel knows it by; a deleted property takes its reports with it.

/** The channel's current report: `updatedAt` is when the reported state last changed, `receivedAt` the last receipt. */
export const ListingReportSchema = defineEntity({
  name: 'ListingReport',
  tableName: 'listing_report',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    property: () => p.manyToOne(PropertySchema).primary().deleteRule('cascade').index(),
    status: p.string().length(40),
    publicUrl: p.string().length(2048).nullable(),
    promoted: p.boolean(),
    promotedUntil: p.datetime().nullable(),
    rejectionReason: p.string().length(40).nullable(),
    rejectionText: p.text().nullable(),
    updatedAt: p.datetime(),
    receivedAt: p.datetime(),
  },
  primaryKeys: ['channel', 'property'],
  indexes: [
    // The few listings a channel rejected, for the host's "to act on" (migration ListingReportRejected).
    {
      name: 'listing_report_rejected',
      expression: `create index "listing_report_rejected" on "listing_report" ("property_id", "channel_id") where "status" = 'rejected'`,
    },
  ],
});

/**
 * One row per change of a channel's reported state (an identical re-sent report adds none), so
 * the host sees when a listing went live, was rejected or was taken down.
 */
export const ListingReportChangeSchema = defineEntity({
  name: 'ListingReportChange',
  tableName: 'listing_report_change',
  properties: {
    seq: p.bigint('number').autoincrement().primary(),
    channel: () => p.manyToOne(ChannelSchema),
    property: () => p.manyToOne(PropertySchema).deleteRule('cascade'),
    status: p.string().length(40),
    publicUrl: p.string().length(2048).nullable(),
    promoted: p.boolean(),
    promotedUntil: p.datetime().nullable(),
    rejectionReason: p.string().length(40).nullable(),
    rejectionText: p.text().nullable(),
    /** The receipt that made the change: the report's `updated_at` from then on. */
    receivedAt: p.datetime(),
  },
  indexes: [{ name: 'listing_report_change_by_property', properties: ['property', 'channel', 'seq'] }],
});

/** One day of a listing's statistics, the property's local date; a later report of the day replaces it. */
export const ListingStatSchema = defineEntity({
  name: 'ListingStat',
  tableName: 'listing_stat',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    property: () => p.manyToOne(PropertySchema).primary().deleteRule('cascade'),
    day: p.date().primary(),
    views: p.integer(),
    clicksToBooking: p.integer(),
    receivedAt: p.datetime(),
  },
  primaryKeys: ['channel', 'property', 'day'],
  indexes: [{ name: 'listing_stat_by_property', properties: ['property', 'day'] }],
});
