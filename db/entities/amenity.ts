import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * The amenity catalogue as this deployment has served it. The catalogue ships with the service
 * (domain/catalogue/amenities.ts); each start applies its release here (db/amenities.ts), so an
 * amenity added, changed or retired gets the version and instant of the start that first served
 * it so. `definition` is the fingerprint of what was served (`amenityFingerprint`); null on rows
 * written before it was kept.
 */
export const AmenityReleaseSchema = defineEntity({
  name: 'AmenityRelease',
  tableName: 'amenity_release',
  properties: {
    code: p.string().length(64).primary(),
    status: p.enum(['active', 'deleted'] as const),
    version: p.integer(),
    updatedAt: p.datetime(),
    definition: p.text().nullable(),
  },
});

export type AmenityRelease = InferEntity<typeof AmenityReleaseSchema>;
