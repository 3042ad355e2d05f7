import { defineEntity, p } from '@mikro-orm/core';
import { PropertySchema } from './catalogue.ts';

/** A property's availability as a whole: its version, horizon and the zone its nights follow. */
export const AriPropertySchema = defineEntity({
  name: 'AriProperty',
  tableName: 'ari_property',
  properties: {
    property: () => p.oneToOne(PropertySchema).primary().deleteRule('cascade'),
    currency: p.string().length(3),
    version: p.bigint('number'),
    updatedAt: p.datetime(),
    /** Exclusive: nights from the property's today up to here are kept. */
    horizonEnd: p.date(),
    /** The property's IANA zone, so the roll of a zone finds its properties. */
    timezone: p.string().length(64),
  },
  indexes: [
    // The order availability is listed in (db/availability-candidates.ts).
    { name: 'ari_property_change_order', properties: ['updatedAt', 'property'] },
    // A zone's properties in the order its daily roll takes them, batch after batch (db/availability.ts).
    { name: 'ari_property_zone_order', properties: ['timezone', 'property'] },
  ],
  // Keeps a deleted property's last version (`ari_property_gone`; the function is the migration AvailabilityTombstones').
  triggers: [
    {
      name: 'ari_property_gone',
      timing: 'after' as const,
      events: ['delete' as const],
      forEach: 'row' as const,
      expression: `create trigger "ari_property_gone" after delete on "ari_property" for each row execute function "ari_property_gone_fn"()`,
    },
  ],
});

/**
 * The last availability version of each property deleted for good, whose `ari_property` row went
 * with it: a channel's `deleted` tombstone in the availability change listing is numbered past
 * every version it could have read (db/availability-candidates.ts). Written by a trigger on
 * `ari_property`, so every way a property is deleted keeps it.
 */
export const AriPropertyGoneSchema = defineEntity({
  name: 'AriPropertyGone',
  tableName: 'ari_property_gone',
  properties: {
    propertyId: p.uuid().primary(),
    version: p.bigint('number'),
  },
});

/**
 * One night of one property, stored as the JSON a channel reads, with rate plans named by
 * placeholders (domain/availability/nights.ts). Not `json`: it is spliced into pages as text.
 */
export const AriNightSchema = defineEntity({
  name: 'AriNight',
  tableName: 'ari_night',
  properties: {
    property: () => p.manyToOne(PropertySchema).primary().deleteRule('cascade'),
    night: p.date().primary(),
    body: p.text(),
  },
  primaryKeys: ['property', 'night'],
});

/**
 * One rate of a country's VAT schedule, in force from `validFrom` until the next one. The
 * platform replaces a country's schedule whole (`PUT /internal/v1/vat-rates/{country}`).
 */
export const VatRateSchema = defineEntity({
  name: 'VatRate',
  tableName: 'vat_rate',
  properties: {
    country: p.string().length(2).primary(),
    appliesTo: p.string().length(32).primary(),
    validFrom: p.date().primary(),
    rateBp: p.integer(),
  },
  primaryKeys: ['country', 'appliesTo', 'validFrom'],
});
