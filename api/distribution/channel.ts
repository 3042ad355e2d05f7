import { z } from 'zod';
import { SCOPES } from '../../domain/scopes.ts';
import { toInstant } from '../../domain/time.ts';
import { defineOperation } from '../operations.ts';
import { Instant, openEnum } from '../schemas/common.ts';

export const ChannelRecord = z
  .object({
    channel: z
      .string()
      .meta({ description: "The channel's name in the interface; the `aud` of owner-connect tokens." }),
    environment: openEnum(['sandbox', 'production'], 'The environment this deployment serves.'),
    key: z.object({
      last4: z.string().length(4).meta({ description: 'Last four characters of the key this request used.' }),
      created: Instant,
      expires_at: Instant.nullable(),
      scopes: z.array(openEnum(SCOPES, 'A scope the key holds.')),
    }),
    rate_limit: z.object({ per_minute: z.int().min(600) }),
    owner_connect: z.object({ redirect_url: z.url().nullable() }),
    technical_contact: z.object({ email: z.email().nullable() }).meta({
      description:
        "Whom the service e-mails about the channel's webhook endpoints and keys (a suspended endpoint, a leaked key); null when none is registered. Set by the service's team.",
    }),
  })
  .meta({ id: 'Channel' });

export const getChannel = defineOperation({
  operationId: 'getChannel',
  method: 'get',
  path: '/channel',
  summary: 'The calling channel and the key it used',
  tags: ['Channel'],
  scopes: [],
  responses: { 200: { description: 'The channel record', schema: ChannelRecord } },
  problems: [],
  handler: ({ caller, deps }) => {
    const { channel, key } = caller;
    const body: z.infer<typeof ChannelRecord> = {
      channel: channel.name,
      environment: deps.config.environment,
      key: {
        last4: key.last4,
        created: toInstant(key.createdAt),
        expires_at: key.expiresAt ? toInstant(key.expiresAt) : null,
        scopes: [...key.scopes],
      },
      rate_limit: { per_minute: channel.rateLimitPerMinute },
      owner_connect: { redirect_url: channel.redirectUrl ?? null },
      technical_contact: { email: channel.technicalContactEmail ?? null },
    };
    return Promise.resolve({ body });
  },
});
