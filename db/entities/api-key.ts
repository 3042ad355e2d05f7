import { defineEntity, p, type InferEntity } from '@mikro-orm/core';
import { ChannelSchema } from './channel.ts';

export const ApiKeySchema = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  properties: {
    /** Public handle (`key_<ulid>`) used by operators to revoke; not a secret. */
    id: p.string().length(40).primary(),
    channel: () => p.manyToOne(ChannelSchema).index(),
    environment: p.enum(['sandbox', 'production'] as const),
    /** SHA-256 of the whole key. Keys carry ~285 random bits, so a fast hash cannot be brute-forced. */
    secretHash: p.string().length(64).unique(),
    last4: p.string().length(4),
    scopes: p.array(),
    createdAt: p.datetime(),
    expiresAt: p.datetime().nullable(),
    expiredAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
    lastUsedAt: p.datetime().nullable(),
  },
});

export type ApiKey = InferEntity<typeof ApiKeySchema>;
