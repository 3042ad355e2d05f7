import { z } from 'zod';
import { CURSOR_PATTERN, MAX_CURSOR_LENGTH } from '../../domain/catalogue/cursor.ts';
import { PAGE_LIMIT_DEFAULT, PAGE_LIMIT_MAX } from '../../domain/pages.ts';
import {
  SANDBOX_REQUEST_RETENTION_HOURS,
  STATUS_FILTER_SOURCE,
  WITHHELD_VALUE,
} from '../../domain/sandbox/request-log.ts';
import { listSandboxRequests } from '../../services/sandbox-requests.ts';
import { SANDBOX_RETIRED_AMENITY, trigger, TRIGGER_TYPES } from '../../services/sandbox-trigger.ts';
import { Instant, InstantInput, matching } from '../schemas/common.ts';
import { defineOperation } from '../operations.ts';
import { toInstant } from '../../domain/time.ts';
import { pingOutcomeRecord } from './webhook-records.ts';
import { PingOutcome } from './webhook-schemas.ts';

/**
 * The sandbox's tools: make an event happen, read one's own requests back. Served only in a
 * sandbox deployment (`servedIn`): in production the paths do not exist (404) and the description
 * leaves them out.
 */

const tags = ['Sandbox'];
const servedIn = ['sandbox'] as const;

const TriggerBody = z
  .object({
    type: z.enum(TRIGGER_TYPES, { error: () => `one of ${TRIGGER_TYPES.join(', ')}` }).meta({
      description: 'The event type to make happen: any type of the event log, or `webhook.ping`.',
    }),
  })
  .strict();

const TriggeredEvent = z.object({
  type: z.string().meta({ description: 'The event type, as `GET /events` and the webhook show it.' }),
  event_id: z
    .string()
    .meta({ description: 'The event id (`evt_…`): `GET /events` and the `webhook-id` header show it.' }),
  object: z.string().meta({ description: '`property`, `location`, `owner` or `amenity`: what `id` names.' }),
  id: z.string().meta({ description: 'The id of the record the event names.' }),
  version: z
    .int()
    .nullable()
    .meta({ description: "The record's version the event announces; null for `availability.updated`." }),
});

const TriggerAnswer = z
  .object({
    type: z.string(),
    events: z.array(TriggeredEvent).meta({
      description:
        'Every event the trigger appended to your log, in log order: the asked one and those its precondition produced.',
    }),
    cursor: z.string().nullable().meta({
      description:
        'A `GET /events` cursor (opaque, like `next_cursor`) at the log position just before the first of these events: a read from it lists them, in order, among whatever else committed meanwhile. Null when no event was answered (`webhook.ping`).',
    }),
    pings: z.array(PingOutcome.extend({ webhook_id: z.string() })).meta({
      description:
        'For `webhook.ping`: one signed ping to each of your active endpoints, and how each answered. Empty otherwise.',
    }),
  })
  .meta({ id: 'SandboxTrigger' });

export const createSandboxTrigger = defineOperation({
  operationId: 'createSandboxTrigger',
  method: 'post',
  path: '/sandbox/triggers',
  summary: 'Make an event happen (sandbox only)',
  description:
    'Makes a real change in your own corner of the sandbox: an owner, a location and a property made on your first trigger, distributed to your channel only, so no other channel sees it move. ' +
    'The change goes through the same services as a platform write: its event is numbered in your log, listed by `GET /events` and delivered to your endpoints like any other. ' +
    'A type that needs a precondition makes it first and answers its events too: `property.distributed` withdraws the property first when it is shown, `property.withdrawn` distributes it first when it is not, ' +
    "`property.deleted` shows you a property and deletes it, `location.deleted` and `owner.deleted` also its location and that location's owner. " +
    `The amenity catalogue is one for every channel and changes only with a release, so \`amenity.updated\` and \`amenity.deleted\` announce to you alone an amenity as it is served now, at its current version (a retired one for \`amenity.deleted\`: in a sandbox that never retired one, \`${SANDBOX_RETIRED_AMENITY}\`, retired once for the whole sandbox, which no property names). ` +
    '`webhook.ping` sends a signed ping to each of your active endpoints, one after the other, as `POST /webhooks/{webhook_id}/test` does; it is not in the log. ' +
    "Needs the scope that reads the type's events (`manage:webhooks` for `webhook.ping`); refused with 403 `insufficient_scope` naming it. Not served in production.",
  tags,
  scopes: [],
  anyOfScopes: ['read:catalog', 'read:ari', 'manage:webhooks'],
  servedIn,
  body: TriggerBody,
  responses: { 200: { description: 'The events the trigger produced', schema: TriggerAnswer } },
  problems: ['invalid_parameters', 'insufficient_scope', 'rate_limited'],
  handler: async ({ body, caller, deps }) => {
    const outcome = await trigger(deps, caller.channel, caller.key.scopes, body.type);
    return {
      body: {
        type: outcome.type,
        events: outcome.events.map((event) => ({
          type: event.type,
          event_id: event.eventId,
          object: event.object,
          id: event.id,
          version: event.version,
        })),
        cursor: outcome.cursor,
        pings: outcome.pings.map((ping) => ({ webhook_id: ping.webhookId, ...pingOutcomeRecord(ping) })),
      },
    };
  },
});

const RequestsQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(PAGE_LIMIT_MAX).default(PAGE_LIMIT_DEFAULT),
    cursor: z.string().min(1).max(MAX_CURSOR_LENGTH).optional().meta({
      pattern: CURSOR_PATTERN,
      description: 'The `next_cursor` of the previous page; any other value: 400 `invalid_cursor`.',
    }),
    status: matching(new RegExp(STATUS_FILTER_SOURCE), 'status_filter', 'a status (`429`) or a class (`4xx`)')
      .optional()
      .meta({ description: 'Only answers of this status (`429`) or class (`4xx`).' }),
    code: z.string().max(60).optional().meta({
      description: 'Only refusals with this problem `code` (`rate_limited`, `insufficient_scope`, …).',
    }),
    since: InstantInput.optional().meta({
      description: `Only requests received at or after this instant; the log keeps ${SANDBOX_REQUEST_RETENTION_HOURS} hours, an earlier one reads them all.`,
    }),
  })
  .strict();

const LoggedRequest = z
  .object({
    request_id: z
      .string()
      .meta({ description: "The answer's `Request-Id` header, as a refusal's `request_id` shows it." }),
    received_at: Instant,
    method: z.string(),
    path: z.string().meta({
      description: `The path and query as sent, each query value the operation does not declare shown as \`${WITHHELD_VALUE}\`; never a header or a body.`,
    }),
    status: z.int(),
    code: z
      .string()
      .nullable()
      .meta({ description: "The refusal's problem `code`; null for an answer that is not a problem." }),
    units: z.int().meta({ description: 'Units charged to your per-minute limit.' }),
    duration_ms: z.int(),
    key_id: z.string().meta({
      description: "The key's public handle (`key_…`), the one the service's team revokes it by; never the key.",
    }),
  })
  .meta({ id: 'SandboxRequest' });

export const listSandboxRequestsOperation = defineOperation({
  operationId: 'listSandboxRequests',
  method: 'get',
  path: '/sandbox/requests',
  summary: 'Your own requests of the last day (sandbox only)',
  description:
    `Every request your channel's sandbox keys made in the last ${SANDBOX_REQUEST_RETENTION_HOURS} hours, newest first, once its answer finished: so a refused request explains itself. ` +
    'A request refused before its key was found (malformed, unknown, revoked or expired key) names no channel and is not listed. ' +
    'Recorded after the answer and best effort: a request appears within a moment of its answer. Not served in production.',
  tags,
  scopes: [],
  servedIn,
  paged: true,
  query: RequestsQuery,
  responses: {
    200: {
      description: 'A page of requests',
      schema: z.object({ data: z.array(LoggedRequest), next_cursor: z.string().nullable() }),
    },
  },
  problems: ['invalid_parameters', 'invalid_cursor'],
  handler: async ({ query, caller, deps }) => {
    const page = await listSandboxRequests(deps, caller.channel, query);
    return {
      body: {
        data: page.requests.map((request) => ({
          request_id: request.requestId,
          received_at: toInstant(request.receivedAt),
          method: request.method,
          path: request.path,
          status: request.status,
          code: request.code,
          units: request.units,
          duration_ms: request.durationMs,
          key_id: request.keyId,
        })),
        next_cursor: page.nextCursor,
      },
      nextCursor: page.nextCursor,
    };
  },
});

export const sandboxOperations = [createSandboxTrigger, listSandboxRequestsOperation];
