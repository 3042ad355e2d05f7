import { z } from 'zod';
import {
  EVENT_PATTERN_SOURCE,
  MAX_EVENT_PATTERN_LENGTH,
  MAX_EVENT_PATTERNS,
  EVENT_TYPES,
} from '../../domain/events.ts';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/deliveries.ts';
import { describeRetrySpan } from '../../domain/webhooks/retry-schedule.ts';
import { SHOWN_SUSPENSION_REASONS } from '../../domain/webhooks/states.ts';
import { Instant, matching, PlainText } from '../schemas/common.ts';

/** The bodies the webhook operations take and answer, as validated and described. */

export const WebhookId = z
  .string()
  .meta({ description: 'A `whk_` id of this channel; any other value is answered `not_found`.' });
export const IdParams = z.object({ webhook_id: WebhookId });

export const EndpointRecord = z
  .object({
    id: z.string().meta({ description: '`whk_` id' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.string().meta({
      description:
        "`active`, or `inactive` while nothing is delivered to it: suspended, or every webhook of the channel held by the service's operators (open enum).",
      examples: ['active', 'inactive'],
    }),
    suspended_reason: z
      .string()
      .nullable()
      .meta({
        description:
          `Why the endpoint is \`inactive\`; null while active. \`failing\` (every retry over ${describeRetrySpan()} failed) or \`gone\` (the endpoint answered 410): enable it after fixing the receiver. ` +
          "`platform`: the service's operators hold every webhook of the channel; nothing is delivered, registering and enabling answer 409 `webhooks_suspended_by_platform`, and once they resume each endpoint reads its own status again (an endpoint that was `active` receives the events of changes made from then on; nothing held is replayed: read `GET /events`). Open enum.",
        examples: [...SHOWN_SUSPENSION_REASONS],
      }),
    secret: z
      .string()
      .optional()
      .meta({ description: '`whsec_` + base64; only in the answer of creation and rotation.' }),
    previous_secret_expires_at: Instant.nullable().meta({
      description: 'While a rotated-out secret still signs beside the new one.',
    }),
    created_at: Instant,
    updated_at: Instant,
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint of the channel.' });

export const DeliveryRecord = z
  .object({
    id: z.string().meta({ description: '`dlv_` id' }),
    event_id: z.string(),
    event_type: z.string(),
    state: z.string().meta({
      description:
        '`pending` (retrying), `delivered`, `failed` (retries over or 410), `cancelled` (endpoint deleted or suspended).',
    }),
    attempts: z.int(),
    created_at: Instant,
    last_attempt_at: Instant.nullable(),
    next_attempt_at: Instant.nullable(),
    completed_at: Instant.nullable(),
  })
  .meta({
    id: 'WebhookDelivery',
    description: `One event sent to one endpoint, with its retries. Kept ${DELIVERY_RETENTION_DAYS} days.`,
  });

export const Attempt = z.object({
  number: z.int(),
  attempted_at: Instant,
  status_code: z
    .int()
    .nullable()
    .meta({ description: 'null when no HTTP answer came (refused address, timeout, TLS or connection failure).' }),
  duration_ms: z.int(),
  error: z.string().nullable().meta({
    description:
      'Why the attempt failed, null when it was delivered: one of the fixed reasons listed in `getWebhookDelivery` (open set).',
  }),
  response_excerpt: z.string().nullable().meta({ description: 'The first 512 characters of the answer body.' }),
});

export const DeliveryDetail = DeliveryRecord.extend({ attempts_detail: z.array(Attempt) }).meta({
  id: 'WebhookDeliveryDetail',
  description: 'A delivery with every attempt.',
});

export const PingOutcome = z
  .object({
    delivered: z.boolean(),
    status_code: z.int().nullable(),
    duration_ms: z.int(),
    error: z.string().nullable().meta({
      description:
        'Why the ping failed, null when it was delivered; the reasons of a delivery attempt (`WebhookDeliveryDetail`).',
    }),
    event_id: z.string().meta({ description: 'The `webhook-id` of the ping.' }),
  })
  .meta({ id: 'WebhookPingOutcome', description: 'Outcome of one signed `webhook.ping`.' });

const EventPattern = matching(
  new RegExp(EVENT_PATTERN_SOURCE),
  'event_pattern',
  '`*`, `<kind>.*` or an event type `<kind>.<action>`, lowercase',
)
  .max(MAX_EVENT_PATTERN_LENGTH)
  .meta({
    description:
      `\`*\` (every event), \`<kind>.*\` (every event of a kind) or an exact type \`<kind>.<action>\`. Types known in this revision: ${EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}. ` +
      'v1 only grows and adds event types: a kind or type not known yet is accepted, matches nothing until v1 adds it, and is then delivered like any other; subscribing to one needs both `read:catalog` and `read:ari`, since its scope is not known yet.',
    examples: ['*', 'property.*', 'availability.updated'],
  });

const EventPatterns = z
  .array(EventPattern)
  .min(1)
  .max(MAX_EVENT_PATTERNS)
  .superRefine((events, ctx) => {
    events.forEach((pattern, i) => {
      if (events.indexOf(pattern) < i)
        ctx.addIssue({
          code: 'custom',
          path: [i],
          message: 'each pattern appears once',
          params: { code: 'duplicate' },
        });
    });
  })
  .meta({
    uniqueItems: true,
    description: `1 to ${MAX_EVENT_PATTERNS} distinct types or patterns, each covered by the key's scopes.`,
  });

export const CreateBody = z
  .object({
    // Whether the address is public is the handler's check (`url_not_allowed`), beyond a pattern.
    url: matching(/^https:\/\//, 'url_not_allowed', 'an https:// address')
      .max(2048)
      .meta({ format: 'uri' }),
    events: EventPatterns,
    description: PlainText.max(500).nullable().optional(),
  })
  .strict();

export const RotateBody = z.object({ expire_immediately: z.boolean().optional() }).strict();
