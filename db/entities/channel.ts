import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

export const ChannelSchema = defineEntity({
  name: 'Channel',
  tableName: 'channel',
  properties: {
    id: p.uuid().primary(),
    /** The channel's name in the interface (`channel` of GET /channel); also the CLI handle. */
    name: p.string().length(64).unique(),
    status: p.enum(['active', 'suspended'] as const).default('active'),
    rateLimitPerMinute: p.integer(),
    redirectUrl: p.text().nullable(),
    technicalContactEmail: p.string().length(254).nullable(),
    createdAt: p.datetime(),
    suspendedAt: p.datetime().nullable(),
    /** Set by operators: the channel may not register or enable webhook endpoints, and is sent nothing. */
    webhooksSuspendedAt: p.datetime().nullable(),
  },
});

export type Channel = InferEntity<typeof ChannelSchema>;
