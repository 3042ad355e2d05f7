import { z } from 'zod';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/pages.ts';
import { ProblemError, type ParameterError } from '../../domain/problems.ts';
import { MAX_EVENT_PATTERNS } from '../../domain/events.ts';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/deliveries.ts';
import { MAX_ENDPOINTS, SECRET_OVERLAP_HOURS } from '../../domain/webhooks/endpoints.ts';
import { checkWebhookUrl } from '../../domain/webhooks/url-safety.ts';
import { getDelivery, listDeliveries } from '../../services/webhook-deliveries.ts';
import {
  createEndpoint,
  deleteEndpoint,
  enableEndpoint,
  findChannelEndpoint,
  listChannelEndpoints,
  pingEndpoint,
  rotateEndpointSecret,
} from '../../services/webhooks.ts';
import { deliveryErrorTable } from '../../domain/webhooks/delivery-errors.ts';
import type { AppDeps } from '../context.ts';
import { defineOperation } from '../operations.ts';
import { wellFormedFields } from '../validation.ts';
import { attemptRecord, deliveryRecord, endpointRecord, pingOutcomeRecord } from './webhook-records.ts';
import {
  WebhookId,
  IdParams,
  EndpointRecord,
  DeliveryRecord,
  DeliveryDetail,
  PingOutcome,
  CreateBody,
  RotateBody,
} from './webhook-schemas.ts';

const tags = ['Webhooks'];
const scopes = ['manage:webhooks' as const];

/** Whether the address is public is checked here, beyond the schema's pattern (`url_not_allowed`). */
function webhookUrl(url: string, deps: AppDeps): { url: string; errors: ParameterError[] } {
  const checked = checkWebhookUrl(url, { allowLoopback: deps.config.webhooks.allowLocal });
  if (checked.ok) return { url: checked.url.href, errors: [] };
  return { url, errors: [{ detail: checked.reason, code: 'url_not_allowed', pointer: '/url' }] };
}

export const createWebhook = defineOperation({
  operationId: 'createWebhook',
  method: 'post',
  path: '/webhooks',
  summary: 'Register a webhook endpoint',
  description:
    `The answer carries the signing \`secret\`, shown only here. At most ${MAX_ENDPOINTS} endpoints per channel; no two with the same URL. \`url\` is a public HTTPS address on port 443 ` +
    '(private, loopback, link-local, CGNAT, multicast, reserved and unspecified addresses are refused in every spelling with `url_not_allowed`; the address is checked again at every delivery). ' +
    `\`events\` holds 1 to ${MAX_EVENT_PATTERNS} distinct types or patterns (\`*\`, \`<kind>.*\`, exact types, types v1 has not added yet included), each covered by the key's scopes. An endpoint receives the events of changes made after it was registered.`,
  tags,
  scopes,
  body: CreateBody,
  responses: { 201: { description: 'The endpoint, with its secret', schema: EndpointRecord } },
  problems: [
    'invalid_parameters',
    'webhook_endpoint_exists',
    'webhook_endpoint_limit_reached',
    'webhooks_suspended_by_platform',
    'insufficient_scope',
  ],
  laterRules: ({ body, deps }) => {
    const { url } = wellFormedFields(CreateBody, body);
    return Promise.resolve(url === undefined ? [] : webhookUrl(url, deps).errors);
  },
  handler: async ({ body, caller, deps }) => {
    const { url, errors } = webhookUrl(body.url, deps);
    if (errors.length > 0) throw new ProblemError('invalid_parameters', { errors });
    const { endpoint, secret } = await createEndpoint(deps, caller, {
      url,
      events: body.events,
      description: body.description ?? null,
    });
    return { status: 201, body: endpointRecord(endpoint, deps.clock.now(), caller.channel, secret) };
  },
});

export const listWebhooks = defineOperation({
  operationId: 'listWebhooks',
  method: 'get',
  path: '/webhooks',
  summary: "The channel's webhook endpoints",
  description: 'At most 5, oldest first, in one page shaped like the other lists (`next_cursor` is always null).',
  tags,
  scopes,
  responses: {
    200: { description: 'The endpoints', schema: z.object({ data: z.array(EndpointRecord), next_cursor: z.null() }) },
  },
  problems: [],
  handler: async ({ caller, deps }) => {
    const now = deps.clock.now();
    return {
      body: {
        data: (await listChannelEndpoints(deps, caller.channel)).map((e) => endpointRecord(e, now, caller.channel)),
        next_cursor: null,
      },
    };
  },
});

export const getWebhook = defineOperation({
  operationId: 'getWebhook',
  method: 'get',
  path: '/webhooks/{webhook_id}',
  summary: 'One webhook endpoint',
  tags,
  scopes,
  params: IdParams,
  responses: { 200: { description: 'The endpoint', schema: EndpointRecord } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => ({
    body: endpointRecord(
      await findChannelEndpoint(deps, caller.channel, params.webhook_id),
      deps.clock.now(),
      caller.channel,
    ),
  }),
});

export const deleteWebhook = defineOperation({
  operationId: 'deleteWebhook',
  method: 'delete',
  path: '/webhooks/{webhook_id}',
  summary: 'Delete a webhook endpoint, its pending deliveries and its secrets',
  tags,
  scopes,
  params: IdParams,
  responses: { 204: { description: 'Deleted' } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    await deleteEndpoint(deps, caller.channel, params.webhook_id);
    return { status: 204 };
  },
});

export const testWebhook = defineOperation({
  operationId: 'testWebhook',
  method: 'post',
  path: '/webhooks/{webhook_id}/test',
  summary: 'Send a signed ping',
  description:
    'Sends one signed `webhook.ping` event (not in the event log) to the endpoint, whatever its status, and answers its outcome; `error` is one of the fixed reasons of a delivery attempt, never an address or TLS detail. At most 2 pings of a channel are in flight at once; a third is refused with 429 `rate_limited` and `Retry-After: 10`, not queued.',
  tags,
  scopes,
  params: IdParams,
  responses: { 200: { description: 'The outcome', schema: PingOutcome } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => ({
    body: pingOutcomeRecord(await pingEndpoint(deps, caller.channel, params.webhook_id)),
  }),
});

export const enableWebhook = defineOperation({
  operationId: 'enableWebhook',
  method: 'post',
  path: '/webhooks/{webhook_id}/enable',
  summary: 'Re-enable an inactive endpoint after a successful ping',
  description:
    'Sends a signed ping; only a 2xx answer makes the endpoint `active` again. Nothing missed while it was inactive is replayed: read `GET /events`. An active endpoint is answered as it is.',
  tags,
  scopes,
  params: IdParams,
  responses: { 200: { description: 'The endpoint, active', schema: EndpointRecord } },
  problems: ['not_found', 'webhook_endpoint_still_failing', 'webhooks_suspended_by_platform'],
  handler: async ({ params, caller, deps }) => ({
    body: endpointRecord(
      await enableEndpoint(deps, caller.channel, params.webhook_id),
      deps.clock.now(),
      caller.channel,
    ),
  }),
});

export const rotateWebhookSecret = defineOperation({
  operationId: 'rotateWebhookSecret',
  method: 'post',
  path: '/webhooks/{webhook_id}/rotate-secret',
  summary: 'Issue a new signing secret',
  description: `The new secret is shown only in this answer. The previous one keeps signing beside it for ${SECRET_OVERLAP_HOURS} hours (\`previous_secret_expires_at\`), unless \`expire_immediately\` is true.`,
  tags,
  scopes,
  params: IdParams,
  body: RotateBody,
  responses: { 200: { description: 'The endpoint, with its new secret', schema: EndpointRecord } },
  problems: ['not_found'],
  handler: async ({ params, body, caller, deps }) => {
    const { endpoint, secret } = await rotateEndpointSecret(deps, caller.channel, params.webhook_id, {
      expireImmediately: body.expire_immediately === true,
    });
    return { body: endpointRecord(endpoint, deps.clock.now(), caller.channel, secret) };
  },
});

const DeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional().meta({
      pattern: CURSOR_PATTERN,
      description: 'The `next_cursor` of the previous page; any other value: 400 `invalid_cursor`.',
    }),
  })
  .strict();

export const listWebhookDeliveries = defineOperation({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/webhooks/{webhook_id}/deliveries',
  summary: 'Deliveries of an endpoint, newest first',
  description: `Deliveries of the last ${DELIVERY_RETENTION_DAYS} days, newest first, paged with \`limit\` and \`cursor\`.`,
  tags,
  scopes,
  paged: true,
  params: IdParams,
  query: DeliveriesQuery,
  responses: {
    200: {
      description: 'A page of deliveries',
      schema: z.object({ data: z.array(DeliveryRecord), next_cursor: z.string().nullable() }),
    },
  },
  problems: ['not_found', 'invalid_cursor'],
  handler: async ({ params, query, caller, deps }) => {
    const page = await listDeliveries(deps, caller.channel, params.webhook_id, query);
    return {
      body: { data: page.deliveries.map(deliveryRecord), next_cursor: page.nextCursor },
      nextCursor: page.nextCursor,
    };
  },
});

export const getWebhookDelivery = defineOperation({
  operationId: 'getWebhookDelivery',
  method: 'get',
  path: '/webhooks/{webhook_id}/deliveries/{delivery_id}',
  summary: 'Every attempt of one delivery',
  tags,
  scopes,
  description: `Each attempt's \`error\` is one of a fixed set of reasons, never an address, host name or TLS detail (those stay in the service's logs): ${deliveryErrorTable()}.`,
  params: z.object({ webhook_id: WebhookId, delivery_id: z.string() }),
  responses: { 200: { description: 'The delivery and its attempts', schema: DeliveryDetail } },
  problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    const { delivery, attempts } = await getDelivery(deps, caller.channel, params.webhook_id, params.delivery_id);
    return { body: { ...deliveryRecord(delivery), attempts_detail: attempts.map(attemptRecord) } };
  },
});

export const webhookOperations = [
  createWebhook,
  listWebhooks,
  getWebhook,
  deleteWebhook,
  testWebhook,
  enableWebhook,
  rotateWebhookSecret,
  listWebhookDeliveries,
  getWebhookDelivery,
];
