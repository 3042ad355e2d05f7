import { z } from 'zod';
import { pgArray, writeTransaction } from '../../db/sql.ts';
import { findEndpoint, listEndpoints, type DeliveryRow, type EndpointRow } from '../../db/webhooks.ts';
import { isExternalId, newExternalId } from '../../domain/catalogue/ids.ts';
import { decodeCursor, encodeCursor, hashQuery, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { isValidEventPattern, MAX_EVENT_PATTERNS, PING_EVENT_TYPE, scopesForPatterns } from '../../domain/events.ts';
import { missingScopes } from '../../domain/scopes.ts';
import { toInstant } from '../../domain/time.ts';
import { generateWebhookSecret } from '../../domain/webhooks/signing.ts';
import { checkWebhookUrl } from '../../domain/webhooks/url-safety.ts';
import { webhookSecretBox, webhookSecretContext } from '../../infra/secret-box.ts';
import { createWebhookSender, outcomeOf, type WebhookSender } from '../../infra/webhook-sender.ts';
import type { AppDeps, Caller } from '../context.ts';
import { defineOperation, type Operation } from '../operations.ts';
import { ProblemError } from '../../domain/problems.ts';
import { Instant } from '../schemas/common.ts';
import { deliveryRecord, endpointRecord } from './webhook-records.ts';

export const MAX_ENDPOINTS = 5;
/** The previous secret signs beside the new one this long after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 3600 * 1000;

const WebhookId = z.string().meta({ description: 'A `whk_` id of this channel; any other value is answered `not_found`.' });
const IdParams = z.object({ webhook_id: WebhookId });

const EndpointRecord = z
  .object({
    id: z.string().meta({ description: '`whk_` id' }),
    url: z.string(),
    events: z.array(z.string()),
    description: z.string().nullable(),
    status: z.string().meta({ description: '`active`, or `inactive` while suspended (open enum).' }),
    suspended_reason: z.string().nullable().meta({ description: '`failing` (every retry over 3 days failed) or `gone` (the endpoint answered 410); null while active.' }),
    secret: z.string().optional().meta({ description: '`whsec_` + base64; only in the answer of creation and rotation.' }),
    previous_secret_expires_at: Instant.nullable().meta({ description: 'While a rotated-out secret still signs beside the new one.' }),
    created_at: Instant,
    updated_at: Instant,
  })
  .meta({ id: 'WebhookEndpoint', description: 'A webhook endpoint of the channel.' });

const DeliveryRecord = z
  .object({
    id: z.string().meta({ description: '`dlv_` id' }),
    event_id: z.string(),
    event_type: z.string(),
    state: z.string().meta({ description: '`pending` (retrying), `delivered`, `failed` (retries over or 410), `cancelled` (endpoint deleted or suspended).' }),
    attempts: z.int(),
    created_at: Instant,
    last_attempt_at: Instant.nullable(),
    next_attempt_at: Instant.nullable(),
    completed_at: Instant.nullable(),
  })
  .meta({ id: 'WebhookDelivery', description: 'One event sent to one endpoint, with its retries. Kept 35 days.' });

const Attempt = z.object({
  number: z.int(),
  attempted_at: Instant,
  status_code: z.int().nullable().meta({ description: 'null when no HTTP answer came (refused address, timeout, TLS or connection failure).' }),
  duration_ms: z.int(),
  error: z.string().nullable(),
  response_excerpt: z.string().nullable().meta({ description: 'The first 512 characters of the answer body.' }),
});

const DeliveryDetail = DeliveryRecord.extend({ attempts_detail: z.array(Attempt) }).meta({ id: 'WebhookDeliveryDetail', description: 'A delivery with every attempt.' });

const PingOutcome = z
  .object({
    delivered: z.boolean(),
    status_code: z.int().nullable(),
    duration_ms: z.int(),
    error: z.string().nullable(),
    event_id: z.string().meta({ description: 'The `webhook-id` of the ping.' }),
  })
  .meta({ id: 'WebhookPingOutcome', description: 'Outcome of one signed `webhook.ping`.' });

const CreateBody = z
  .object({
    url: z.string().max(2048),
    events: z.array(z.string().max(100)).min(1).max(MAX_EVENT_PATTERNS),
    description: z.string().max(500).nullable().optional(),
  })
  .strict();

const RotateBody = z.object({ expire_immediately: z.boolean().optional() }).strict();

/** One sender per app: it reads the optional extra CA file once, not on every ping. */
const senders = new WeakMap<AppDeps, WebhookSender>();
function sender(deps: AppDeps): WebhookSender {
  let found = senders.get(deps);
  if (!found) {
    found = createWebhookSender({ secrets: deps.secrets, clock: deps.clock, settings: deps.config.webhooks });
    senders.set(deps, found);
  }
  return found;
}

async function endpointOf(deps: AppDeps, caller: Caller, id: string, lock = false) {
  const found = isExternalId('webhook', id) ? await findEndpoint(deps.orm.em.fork(), caller.channel.id, id, { lock }) : null;
  if (!found) throw new ProblemError('not_found');
  return found;
}

function refuseIfSuspended(caller: Caller): void {
  if (caller.channel.webhooksSuspendedAt) throw new ProblemError('webhooks_suspended_by_platform');
}

/** A signed `webhook.ping` to one endpoint, whatever its status; not in the event log. */
async function ping(deps: AppDeps, caller: Caller, endpoint: EndpointRow) {
  const eventId = newExternalId('event', deps.clock.now().getTime());
  const body = JSON.stringify({ id: eventId, type: PING_EVENT_TYPE, occurred_at: toInstant(deps.clock.now()), channel: caller.channel.name, data: { object: 'webhook', id: endpoint.id } });
  const response = await sender(deps).send(endpoint, { id: eventId, body });
  return { delivered: outcomeOf(response) === 'delivered', status_code: response.statusCode, duration_ms: response.durationMs, error: response.error, event_id: eventId };
}

const tags = ['Webhooks'];
const scopes = ['manage:webhooks' as const];

export const createWebhook = defineOperation({
  operationId: 'createWebhook',
  method: 'post',
  path: '/webhooks',
  summary: 'Register a webhook endpoint',
  description:
    'The answer carries the signing `secret`, shown only here. At most 5 endpoints per channel; no two with the same URL. `url` is a public HTTPS address on port 443 ' +
    '(private, loopback, link-local, CGNAT, multicast, reserved and unspecified addresses are refused in every spelling with `url_not_allowed`; the address is checked again at every delivery). ' +
    '`events` holds 1 to 20 types or patterns (`*`, `property.*`, exact types), each covered by the key\'s scopes. An endpoint receives the events of changes made after it was registered.',
  tags,
  scopes,
  body: CreateBody,
  responses: { 201: { description: 'The endpoint, with its secret', schema: EndpointRecord } },
  problems: ['invalid_parameters', 'webhook_endpoint_exists', 'webhook_endpoint_limit_reached', 'webhooks_suspended_by_platform', 'insufficient_scope'],
  handler: async ({ body, caller, deps }) => {
    const checked = checkWebhookUrl(body.url, { allowLoopback: deps.config.webhooks.allowLocal });
    const errors = [
      ...(checked.ok ? [] : [{ detail: checked.reason, code: 'url_not_allowed', pointer: '/url' }]),
      ...body.events.flatMap((pattern, i) => (isValidEventPattern(pattern) ? [] : [{ detail: `unknown event type or pattern "${pattern}"`, code: 'event_pattern', pointer: `/events/${i}` }])),
      ...body.events.flatMap((pattern, i) => (body.events.indexOf(pattern) < i ? [{ detail: 'each pattern appears once', code: 'duplicate', pointer: `/events/${i}` }] : [])),
    ];
    if (errors.length > 0) throw new ProblemError('invalid_parameters', { errors });
    refuseIfSuspended(caller);
    const missing = missingScopes(caller.key.scopes, scopesForPatterns(body.events));
    if (missing.length > 0) throw new ProblemError('insufficient_scope', { required_scopes: missing, detail: 'The key does not cover every subscribed event type' });
    const url = checked.ok ? checked.url.href : body.url;
    const secret = generateWebhookSecret();
    const id = newExternalId('webhook', deps.clock.now().getTime());
    const now = deps.clock.now();
    const row = await writeTransaction(deps.orm.em, async (tx) => {
      // One writer per channel at a time, so two concurrent creations cannot both pass the limit.
      await tx.execute('select id from channel where id = ? for update', [caller.channel.id]);
      const existing = await listEndpoints(tx, caller.channel.id);
      if (existing.some((endpoint) => endpoint.url === url)) throw new ProblemError('webhook_endpoint_exists');
      if (existing.length >= MAX_ENDPOINTS) throw new ProblemError('webhook_endpoint_limit_reached');
      await tx.execute(
        `insert into webhook_endpoint (id, channel_id, url, events, description, status, suspended_reason, secret, previous_secret, previous_secret_expires_at, secret_generation, created_at, updated_at, deleted_at)
         values (?, ?, ?, ?::text[], ?, 'active', null, ?, null, null, 1, ?, ?, null)`,
        [id, caller.channel.id, url, pgArray(body.events), body.description ?? null, webhookSecretBox(deps.secrets.server).seal(secret, webhookSecretContext(id)), now, now],
      );
      // The dispatcher starts this channel at the end of its log: nothing before registration is sent.
      await tx.execute(
        `insert into dispatch_progress (channel_id, position) values (?, coalesce((select last_position from channel_log where channel_id = ?), 0)) on conflict do nothing`,
        [caller.channel.id, caller.channel.id],
      );
      return (await findEndpoint(tx, caller.channel.id, id))!;
    });
    return { status: 201, body: endpointRecord(row, now, secret) };
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
  responses: { 200: { description: 'The endpoints', schema: z.object({ data: z.array(EndpointRecord), next_cursor: z.null() }) } },
  problems: [],
  handler: async ({ caller, deps }) => {
    const now = deps.clock.now();
    return { body: { data: (await listEndpoints(deps.orm.em.fork(), caller.channel.id)).map((e) => endpointRecord(e, now)), next_cursor: null } };
  },
});

export const getWebhook = defineOperation({
  operationId: 'getWebhook', method: 'get', path: '/webhooks/{webhook_id}', summary: 'One webhook endpoint', tags, scopes,
  params: IdParams, responses: { 200: { description: 'The endpoint', schema: EndpointRecord } }, problems: ['not_found'],
  handler: async ({ params, caller, deps }) => ({ body: endpointRecord(await endpointOf(deps, caller, params.webhook_id), deps.clock.now()) }),
});

export const deleteWebhook = defineOperation({
  operationId: 'deleteWebhook', method: 'delete', path: '/webhooks/{webhook_id}', summary: 'Delete a webhook endpoint, its pending deliveries and its secrets', tags, scopes,
  params: IdParams, responses: { 204: { description: 'Deleted' } }, problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    const endpoint = await endpointOf(deps, caller, params.webhook_id);
    const pending = await writeTransaction(deps.orm.em, async (tx) => {
      await tx.execute(
        `update webhook_endpoint set status = 'deleted', secret = null, previous_secret = null, previous_secret_expires_at = null, deleted_at = ?, updated_at = ? where id = ?`,
        [deps.clock.now(), deps.clock.now(), endpoint.id],
      );
      return tx.execute<{ event_id: string }[]>(
        `update webhook_delivery set state = 'cancelled', completed_at = ?, next_attempt_at = null where endpoint_id = ? and state = 'pending' returning event_id`,
        [deps.clock.now(), endpoint.id],
      );
    });
    // Their workflows stop now; one that is mid-attempt finds the endpoint deleted and stops anyway.
    await deps.workflows.cancelWebhookDeliveries(pending.map((d) => ({ endpointId: endpoint.id, eventId: d.event_id })));
    return { status: 204 };
  },
});

export const testWebhook = defineOperation({
  operationId: 'testWebhook', method: 'post', path: '/webhooks/{webhook_id}/test', summary: 'Send a signed ping',
  description: 'Sends one signed `webhook.ping` event (not in the event log) to the endpoint, whatever its status, and answers its outcome.',
  tags, scopes, params: IdParams, responses: { 200: { description: 'The outcome', schema: PingOutcome } }, problems: ['not_found'],
  handler: async ({ params, caller, deps }) => ({ body: await ping(deps, caller, await endpointOf(deps, caller, params.webhook_id)) }),
});

export const enableWebhook = defineOperation({
  operationId: 'enableWebhook', method: 'post', path: '/webhooks/{webhook_id}/enable', summary: 'Re-enable an inactive endpoint after a successful ping',
  description: 'Sends a signed ping; only a 2xx answer makes the endpoint `active` again. Nothing missed while it was inactive is replayed: read `GET /events`. An active endpoint is answered as it is.',
  tags, scopes, params: IdParams, responses: { 200: { description: 'The endpoint, active', schema: EndpointRecord } }, problems: ['not_found', 'webhook_endpoint_still_failing', 'webhooks_suspended_by_platform'],
  handler: async ({ params, caller, deps }) => {
    const endpoint = await endpointOf(deps, caller, params.webhook_id);
    refuseIfSuspended(caller);
    if (endpoint.status === 'active') return { body: endpointRecord(endpoint, deps.clock.now()) };
    const outcome = await ping(deps, caller, endpoint);
    if (!outcome.delivered) throw new ProblemError('webhook_endpoint_still_failing', { detail: `The ping was not accepted: ${outcome.error ?? 'no answer'}` });
    const row = await writeTransaction(deps.orm.em, async (tx) => {
      await tx.execute(`update webhook_endpoint set status = 'active', suspended_reason = null, updated_at = ? where id = ? and status = 'inactive'`, [deps.clock.now(), endpoint.id]);
      // Resume at the end of the log: what happened while inactive is not replayed.
      await tx.execute('update dispatch_progress set position = coalesce((select last_position from channel_log where channel_id = ?), position) where channel_id = ?', [caller.channel.id, caller.channel.id]);
      return (await findEndpoint(tx, caller.channel.id, endpoint.id))!;
    });
    return { body: endpointRecord(row, deps.clock.now()) };
  },
});

export const rotateWebhookSecret = defineOperation({
  operationId: 'rotateWebhookSecret', method: 'post', path: '/webhooks/{webhook_id}/rotate-secret', summary: 'Issue a new signing secret',
  description: 'The new secret is shown only in this answer. The previous one keeps signing beside it for 24 hours (`previous_secret_expires_at`), unless `expire_immediately` is true.',
  tags, scopes, params: IdParams, body: RotateBody, responses: { 200: { description: 'The endpoint, with its new secret', schema: EndpointRecord } }, problems: ['not_found'],
  handler: async ({ params, body, caller, deps }) => {
    const secret = generateWebhookSecret();
    const now = deps.clock.now();
    const expiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
    const box = webhookSecretBox(deps.secrets.server);
    const row = await writeTransaction(deps.orm.em, async (tx) => {
      const endpoint = await findEndpoint(tx, caller.channel.id, params.webhook_id, { lock: true });
      if (!endpoint) throw new ProblemError('not_found');
      const keepPrevious = body.expire_immediately !== true && endpoint.secret !== null;
      await tx.execute(
        `update webhook_endpoint set secret = ?, previous_secret = ?, previous_secret_expires_at = ?, secret_generation = secret_generation + 1, updated_at = ? where id = ?`,
        [box.seal(secret, webhookSecretContext(endpoint.id)), keepPrevious ? endpoint.secret : null, keepPrevious ? expiresAt : null, now, endpoint.id],
      );
      return (await findEndpoint(tx, caller.channel.id, endpoint.id))!;
    });
    if (row.previous_secret !== null) {
      await deps.workflows.startSecretRotation({ endpointId: row.id, generation: row.secret_generation, overlapMs: SECRET_OVERLAP_MS }, caller.channel.name);
    }
    return { body: endpointRecord(row, now, secret) };
  },
});

const DeliveriesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(100),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional(),
  })
  .strict();

export const listWebhookDeliveries = defineOperation({
  operationId: 'listWebhookDeliveries', method: 'get', path: '/webhooks/{webhook_id}/deliveries', summary: 'Deliveries of an endpoint, newest first',
  description: 'Deliveries of the last 35 days, newest first, paged with `limit` and `cursor`.',
  tags, scopes, params: IdParams, query: DeliveriesQuery,
  responses: { 200: { description: 'A page of deliveries', schema: z.object({ data: z.array(DeliveryRecord), next_cursor: z.string().nullable() }) } },
  problems: ['not_found', 'invalid_cursor'],
  handler: async ({ params, query, caller, deps }) => {
    const endpoint = await endpointOf(deps, caller, params.webhook_id);
    const hash = hashQuery({ kind: 'deliveries', endpoint: endpoint.id });
    let after: { t: number; i: string } | null = null;
    if (query.cursor !== undefined) {
      const decoded = await decodeCursor(query.cursor, hash, deps.secrets.server);
      if (!decoded || typeof decoded.t !== 'number' || typeof decoded.i !== 'string') throw new ProblemError('invalid_cursor');
      after = { t: decoded.t, i: decoded.i };
    }
    const rows = await deps.orm.em.fork().execute<DeliveryRow[]>(
      `select * from webhook_delivery where endpoint_id = ? ${after ? 'and (created_at, id) < (?, ?)' : ''} order by created_at desc, id desc limit ?`,
      after ? [endpoint.id, new Date(after.t), after.i, query.limit + 1] : [endpoint.id, query.limit + 1],
    );
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    const next = rows.length > query.limit && last ? await encodeCursor({ t: Date.parse(last.created_at), i: last.id }, hash, deps.secrets.server) : null;
    return { body: { data: page.map(deliveryRecord), next_cursor: next } };
  },
});

export const getWebhookDelivery = defineOperation({
  operationId: 'getWebhookDelivery', method: 'get', path: '/webhooks/{webhook_id}/deliveries/{delivery_id}', summary: 'Every attempt of one delivery', tags, scopes,
  params: z.object({ webhook_id: WebhookId, delivery_id: z.string() }),
  responses: { 200: { description: 'The delivery and its attempts', schema: DeliveryDetail } }, problems: ['not_found'],
  handler: async ({ params, caller, deps }) => {
    const endpoint = await endpointOf(deps, caller, params.webhook_id);
    const em = deps.orm.em.fork();
    const [delivery] = await em.execute<DeliveryRow[]>('select * from webhook_delivery where endpoint_id = ? and id = ?', [endpoint.id, params.delivery_id]);
    if (!delivery) throw new ProblemError('not_found');
    const attempts = await em.execute<{ number: number; attempted_at: string; status_code: number | null; duration_ms: number; error: string | null; response_excerpt: string | null }[]>(
      'select number, attempted_at, status_code, duration_ms, error, response_excerpt from webhook_attempt where delivery_id = ? order by number',
      [delivery.id],
    );
    return { body: { ...deliveryRecord(delivery), attempts_detail: attempts.map((a) => ({ ...a, attempted_at: toInstant(new Date(a.attempted_at)) })) } };
  },
});

export const webhookOperations = [
  createWebhook, listWebhooks, getWebhook, deleteWebhook, testWebhook, enableWebhook, rotateWebhookSecret, listWebhookDeliveries, getWebhookDelivery,
] as Operation[];
