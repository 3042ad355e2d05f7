import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/**
 * Fixed one-minute windows counted in Postgres, so every API process sharing the database sees
 * the same count: per channel for the rate limit, per client address for failed authentications.
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
