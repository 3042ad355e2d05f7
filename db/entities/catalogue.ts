import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ChannelSchema } from './channel.ts';

// The source model: what the platform wrote through /internal/v1. Each record has the
// platform's reference (`ref`, unique among live records) and an internal id minted at creation,
// so a record deleted and created again under the same reference is a new resource with new
// channel ids. `content` is the validated write body (domain/catalogue/source.ts).

export const OrganizationSchema = defineEntity({
  name: 'Organization',
  tableName: 'organization',
  properties: {
    id: p.uuid().primary(),
    ref: p.string().length(64).unique(),
    name: p.string().length(200),
    country: p.string().length(2),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const OwnerSchema = defineEntity({
  name: 'Owner',
  tableName: 'owner',
  properties: {
    id: p.uuid().primary(),
    ref: p.string().length(64).unique(),
    organization: () => p.manyToOne(OrganizationSchema).index(),
    content: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const LocationSchema = defineEntity({
  name: 'Location',
  tableName: 'location',
  properties: {
    id: p.uuid().primary(),
    ref: p.string().length(64).unique(),
    organization: () => p.manyToOne(OrganizationSchema).index(),
    owner: () => p.manyToOne(OwnerSchema).index(),
    content: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});

export const PropertySchema = defineEntity({
  name: 'Property',
  tableName: 'property',
  properties: {
    id: p.uuid().primary(),
    ref: p.string().length(64).unique(),
    location: () => p.manyToOne(LocationSchema).index(),
    owner: () => p.manyToOne(OwnerSchema).index(),
    content: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
  // The legal data's "valid through" dates (db/routines.ts), to find the certificates lapsing soon.
  indexes: [
    {
      name: 'property_legal_valid_until',
      expression: `create index "property_legal_valid_until" on "property" using gin ("legal_valid_until_dates"("content"->'legal')) with (fastupdate = off)`,
    },
  ],
});

/** The host's choice: this property goes to this channel. */
export const DistributionSchema = defineEntity({
  name: 'Distribution',
  tableName: 'distribution',
  properties: {
    property: () => p.manyToOne(PropertySchema).primary().deleteRule('cascade'),
    channel: () => p.manyToOne(ChannelSchema).primary().index(),
    createdAt: p.datetime(),
  },
  primaryKeys: ['property', 'channel'],
});

/**
 * Ids a channel sees, minted once per (channel, kind, internal key) and never reused. The key is
 * the internal id of a property, location or owner, or `<property id>/<key>` for a photo or rate
 * plan.
 */
export const ChannelIdSchema = defineEntity({
  name: 'ChannelId',
  tableName: 'channel_id',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    kind: p.string().length(16).primary(),
    internalKey: p.string().length(120).primary(),
    externalId: p.string().length(40).unique(),
  },
  primaryKeys: ['channel', 'kind', 'internalKey'],
});

/**
 * The channel's view: every property, location and owner it has ever been shown, as last shown.
 * `body` is the record without `version` and `updated_at` (a tombstone keeps only id and status);
 * it is stored as `json`, not `jsonb`, so it is served in the order it was built.
 */
export const ChannelResourceSchema = defineEntity({
  name: 'ChannelResource',
  tableName: 'channel_resource',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    kind: p.string().length(16).primary(),
    internalId: p.uuid().primary(),
    externalId: p.string().length(40).unique(),
    status: p.enum(['active', 'inactive', 'withdrawn', 'deleted'] as const),
    version: p.bigint('number'),
    updatedAt: p.datetime(),
    body: p.json<Record<string, unknown>>().columnType('json'),
    /** For a property: the location and owner it named when last projected, so their status can be derived after it is gone. */
    locationId: p.uuid().nullable(),
    ownerId: p.uuid().nullable(),
  },
  primaryKeys: ['channel', 'kind', 'internalId'],
  indexes: [
    { properties: ['channel', 'kind', 'updatedAt', 'externalId'] },
    // A property's views by the property, and the few properties withdrawn somewhere.
    {
      name: 'channel_resource_property_view',
      expression: `create index "channel_resource_property_view" on "channel_resource" ("internal_id", "channel_id") include ("status") where "kind" = 'property'`,
    },
    {
      name: 'channel_resource_property_withdrawn',
      expression: `create index "channel_resource_property_withdrawn" on "channel_resource" ("internal_id") where "kind" = 'property' and "status" = 'withdrawn'`,
    },
    // A channel's property tombstones in the availability change listing's order (db/availability-candidates.ts).
    {
      name: 'channel_resource_property_tombstone_order',
      expression: `create index "channel_resource_property_tombstone_order" on "channel_resource" ("channel_id", "updated_at", "internal_id") where "kind" = 'property' and "status" in ('withdrawn', 'deleted')`,
    },
  ],
  // Keep `channel_view_tally` (the function is the migration ChannelViewTally's).
  triggers: (['insert', 'update', 'delete'] as const).map((event) => ({
    name: `channel_resource_tally_${event}`,
    timing: 'after' as const,
    events: [event],
    forEach: 'statement' as const,
    expression: `create trigger "channel_resource_tally_${event}" after ${event} on "channel_resource" referencing ${
      {
        insert: 'new table as added',
        update: 'old table as removed new table as added',
        delete: 'old table as removed',
      }[event]
    } for each statement execute function "channel_view_tally_fn"()`,
  })),
});

/**
 * How many properties each channel was shown under each location and owner, by status: a location's
 * or owner's status follows the strongest among them (db/catalogue/derived-status.ts). Kept by
 * triggers on `channel_resource`; rows that fall to zero stay.
 */
export const ChannelViewTallySchema = defineEntity({
  name: 'ChannelViewTally',
  tableName: 'channel_view_tally',
  properties: {
    channelId: p.uuid().primary(),
    kind: p.string().length(16).primary(),
    internalId: p.uuid().primary(),
    status: p.text().primary(),
    properties: p.integer(),
  },
  primaryKeys: ['channelId', 'kind', 'internalId', 'status'],
});

/**
 * One row per channel, locked by every transaction that changes the channel's view. The lock
 * orders those transactions, so stamps and positions taken under it grow in commit order (see
 * docs/architecture.md "Commit order"). `lastPosition` numbers the channel's events; a resource's
 * `version` is the position of the event that announced it.
 */
export const ChannelLogSchema = defineEntity({
  name: 'ChannelLog',
  tableName: 'channel_log',
  properties: {
    channel: () => p.oneToOne(ChannelSchema).primary(),
    lastStamp: p.datetime(),
    lastPosition: p.bigint('number'),
    /** The transaction that took `lastStamp` (`withChannelLog`). */
    lastXact: p.string().columnType('xid8').nullable(),
  },
});

export const EventSchema = defineEntity({
  name: 'Event',
  tableName: 'event',
  properties: {
    channel: () => p.manyToOne(ChannelSchema).primary(),
    position: p.bigint('number').primary(),
    // Unique per day's partition (db/partitions.ts): ULIDs, never handed out twice.
    id: p.string().length(40),
    type: p.string().length(60),
    occurredAt: p.datetime(),
    data: p.json<Record<string, unknown>>().columnType('json'),
    /** The W3C `traceparent` of the span that committed the event, when tracing is on (docs/operations.md "Tracing"). */
    traceparent: p.text().nullable(),
  },
  primaryKeys: ['channel', 'position'],
  // Partitioned by day of `occurred_at` (db/partitions.ts); the key and `id` are unique in each
  // day. A page of events costs what the log's end costs: the first page starts where the
  // channel's 35 days do; a key with one event scope walks only that scope's side.
  indexes: [
    { name: 'event_channel_time', properties: ['channel', 'occurredAt', 'position'] },
    {
      name: 'event_ari',
      expression: `create index "event_ari" on "event" ("channel_id", "position") where "type" = 'availability.updated'`,
    },
    {
      name: 'event_catalog',
      expression: `create index "event_catalog" on "event" ("channel_id", "position") where "type" <> 'availability.updated'`,
    },
  ],
});

export type Organization = InferEntity<typeof OrganizationSchema>;
export type Owner = InferEntity<typeof OwnerSchema>;
export type Location = InferEntity<typeof LocationSchema>;
export type Property = InferEntity<typeof PropertySchema>;
