import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * One re-projection of the catalogue for a projection revision, the digest that names how the code
 * projects (domain/catalogue/projection-digest.ts; services/catalogue-reprojection.ts):
 * the last property it re-projected (its cursor, by id), how many it visited and how many channel
 * records it changed, when it began and when it finished. The cursor is written in the same
 * transaction as the records of its batch, so a pass stopped anywhere goes on after its last
 * committed batch and never repeats one.
 */
export const CatalogueReprojectionSchema = defineEntity({
  name: 'CatalogueReprojection',
  tableName: 'catalogue_reprojection',
  properties: {
    revision: p.string().length(64).primary(),
    after: p.uuid().nullable(),
    visited: p.integer(),
    written: p.integer(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});

export type CatalogueReprojection = InferEntity<typeof CatalogueReprojectionSchema>;
