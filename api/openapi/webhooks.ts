import { z } from 'zod';
import { ID_PATTERNS, ID_PREFIXES } from '../../domain/catalogue/ids.ts';
import { EVENT_MEANINGS, EVENT_TYPES, eventKind, PING_EVENT_TYPE } from '../../domain/events.ts';
import { describeJitter, describeRetrySpan, describeSchedule } from '../../domain/webhooks/retry-schedule.ts';
import { RECEIVER_ANSWER_MS } from '../../domain/webhooks/sending.ts';
import { SIGNATURE_TOLERANCE_SECONDS, WEBHOOK_SECRET_PREFIX } from '../../domain/webhooks/signing.ts';
import { Instant } from '../schemas/common.ts';
import type { SchemaComponents } from './schemas.ts';
import type { OperationObject, ParameterObject } from './types.ts';

/**
 * The description's OpenAPI 3.1 `webhooks` section: one entry per event type the service POSTs to
 * a channel's endpoints (`domain/events.ts`, and the test ping), each with the three Standard
 * Webhooks headers and the body `domain/webhooks/sending.ts` `webhookBody` writes. Generated
 * clients type a receiver from it; nothing here changes what is sent.
 */

export const WEBHOOK_TAG = 'Webhook events';
export const WEBHOOK_TAG_DESCRIPTION = `What the service POSTs to a channel's webhook endpoints: one thin notification per event, signed the Standard Webhooks way. Verify the signature over the raw body before parsing it, answer any 2xx within ${RECEIVER_ANSWER_MS / 1000} seconds, deduplicate on \`webhook-id\`, then read the resource it names. Event types are added within v1: accept and ignore one you do not know.`;

/** Every type a channel's endpoint can receive, in the order the description lists them. */
export const WEBHOOK_EVENT_TYPES: readonly string[] = [...EVENT_TYPES, PING_EVENT_TYPE];

/** `PropertyUpdatedEvent` for `property.updated`. */
export function webhookSchemaName(type: string): string {
  const words = type.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${words.join('')}Event`;
}

/** The resource's id: its pattern for a kind with prefixed ids, else (an amenity) its code. */
function idOf(kind: string): z.ZodString {
  if (!(kind in ID_PREFIXES)) return z.string().meta({ description: `The ${kind}'s code.` });
  const known = kind as keyof typeof ID_PREFIXES;
  return z
    .string()
    .regex(ID_PATTERNS[known])
    .meta({ description: `The ${kind}'s \`${ID_PREFIXES[known]}\` id.` });
}

function dataOf(type: string): z.ZodType {
  const kind = eventKind(type);
  if (type === PING_EVENT_TYPE)
    return z
      .object({ object: z.literal('webhook'), id: idOf('webhook') })
      .meta({ description: 'The endpoint pinged.' });
  if (type === 'availability.updated')
    return z
      .object({
        object: z.literal('property'),
        id: idOf('property'),
        from: z.iso.date().meta({ description: 'First changed night.' }),
        to: z.iso.date().meta({ description: 'End of the changed nights (exclusive).' }),
      })
      .meta({ description: 'The property and the nights that changed; no version.' });
  return z
    .object({
      object: z.literal(kind),
      id: idOf(kind),
      version: z
        .int()
        .min(1)
        .meta({ description: 'The version this change gave the resource; apply only a higher one than held.' }),
    })
    .meta({ description: 'The resource that changed.' });
}

function payloadOf(type: string): z.ZodType {
  return z
    .object({
      id: z.string().regex(ID_PATTERNS.event).meta({ description: 'The `evt_` id, equal to the `webhook-id` header.' }),
      type: z.literal(type),
      occurred_at: Instant,
      channel: z.string().meta({ description: "The channel's name." }),
      data: dataOf(type),
    })
    .meta({
      id: webhookSchemaName(type),
      description: `\`${type}\`: ${EVENT_MEANINGS[type as keyof typeof EVENT_MEANINGS]}`,
    });
}

const WEBHOOK_HEADERS: ParameterObject[] = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: "The event's id (`evt_…`), the same on every retry of the event: deduplicate on it.",
    schema: { type: 'string', pattern: ID_PATTERNS.event.source },
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: `When this attempt was signed, in Unix seconds. Refuse one more than ${SIGNATURE_TOLERANCE_SECONDS / 60} minutes from your clock.`,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description: `One or more space-separated \`v1,<base64>\` entries: the HMAC-SHA256 of \`<webhook-id>.<webhook-timestamp>.<raw body>\`, keyed with the base64-decoded part of the endpoint's secret after \`${WEBHOOK_SECRET_PREFIX}\`. While a secret rotates, the new and the previous secret each sign: accept when any entry matches (constant-time comparison).`,
    schema: { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$' },
  },
];

/** The `webhooks` section, its payload schemas hoisted into `components.schemas` through `schemas`. */
export function webhookEntries(schemas: SchemaComponents): Record<string, { post: OperationObject }> {
  const entries: Record<string, { post: OperationObject }> = {};
  for (const type of WEBHOOK_EVENT_TYPES) {
    const payload = schemas.convert(payloadOf(type), 'output', webhookSchemaName(type));
    entries[type] = {
      post: {
        operationId: `${webhookSchemaName(type)
          .replace(/^./, (c) => c.toLowerCase())
          .replace(/Event$/, '')}Webhook`,
        summary: `\`${type}\``,
        description: `${EVENT_MEANINGS[type as keyof typeof EVENT_MEANINGS]}\n\n${type === PING_EVENT_TYPE ? 'POSTed to the one endpoint tested or enabled' : `POSTed to each active endpoint whose \`events\` match \`${type}\``}, signed with the endpoint's secret. Delivery is at least once and in no particular order.`,
        tags: [WEBHOOK_TAG],
        security: [],
        parameters: WEBHOOK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: payload } } },
        // One answer object: the receiver's status is all the service reads (2xx, 410, anything else),
        // and a receiver's answer carries none of the headers the interface's own answers promise.
        responses: {
          default: {
            description:
              `Any 2xx within ${RECEIVER_ANSWER_MS / 1000} seconds: delivered (answer first, do the work afterwards). A 410: the endpoint is suspended at once (\`gone\`). Anything else, a redirect, or no answer within ${RECEIVER_ANSWER_MS / 1000} seconds: not delivered, ` +
              `retried after ${describeSchedule('long')} (each ${describeJitter()}) for ${describeRetrySpan()}, then the endpoint is suspended (\`failing\`).`,
          },
        },
      },
    };
  }
  return entries;
}
