import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Fixed one-minute windows counted in Postgres, so every API process sharing the database sees
 * the same count: per channel for the rate limit, per client address for failed authentications.
 * The table is UNLOGGED (set by a migration; the schema diff does not see it): a count is written
 * on every request without waiting for a WAL flush, and a crash forgives the current minute.
 */
export const RequestCounterSchema = defineEntity({
  name: 'RequestCounter',
  tableName: 'request_counter',
  properties: {
    bucket: p.string().length(120).primary(),
    windowStart: p.datetime().primary(),
    count: p.integer(),
  },
  primaryKeys: ['bucket', 'windowStart'],
});

export type RequestCounter = InferEntity<typeof RequestCounterSchema>;
