import { z } from 'zod';
import { CONFIRMATION_WINDOW_SECONDS } from '../../domain/owner-connect.ts';
import { toInstant } from '../../domain/time.ts';
import { describeTimeFactor, SANDBOX_TIME_FACTOR } from '../../domain/webhooks/time-factor.ts';
import {
  ATTEMPT_NOW_LIMIT,
  attemptWaitingNow,
  endOwnerConnectWindow,
  fastRetries,
  setFastRetries,
  type FastRetries,
} from '../../services/sandbox-time.ts';
import { defineOperation } from '../operations.ts';
import { Instant } from '../schemas/common.ts';
import { IdParams, WebhookId } from './webhook-schemas.ts';

/**
 * The sandbox's clocks: a channel's waiting deliveries attempted now, an endpoint's retry schedule
 * run in minutes, an owner-connect token's window ended now, so every timed path of the contract
 * can be seen in one sitting. Served only in a sandbox deployment (`servedIn`): in production the
 * paths do not exist (404) and the description leaves them out.
 */

const tags = ['Sandbox'];
const servedIn = ['sandbox'] as const;
const caller = (channel: { id: string; name: string }) => ({ channelId: channel.id, channelName: channel.name });

const AttemptNowBody = z
  .object({
    webhook_id: WebhookId.optional().meta({
      description: 'Only the deliveries to this endpoint; all of them without it.',
    }),
  })
  .strict();

const HurriedDelivery = z.object({
  delivery_id: z
    .string()
    .meta({ description: 'The delivery (`dlv_…`), as `GET /webhooks/{webhook_id}/deliveries` lists it.' }),
  webhook_id: z.string(),
  attempt: z.int().meta({ description: 'The number of the attempt being made now.' }),
  was_due_at: Instant.nullable().meta({ description: 'When the retry schedule had this attempt due.' }),
});

export const attemptSandboxDeliveriesNow = defineOperation({
  operationId: 'attemptSandboxDeliveriesNow',
  method: 'post',
  path: '/sandbox/deliveries/attempt-now',
  summary: 'Attempt your waiting deliveries now (sandbox only)',
  description:
    `Every delivery of yours waiting for its next attempt after a failed one (of one endpoint, given \`webhook_id\`) makes that attempt now, soonest due first, at most ${ATTEMPT_NOW_LIMIT} a call (\`more\` is true when others still wait: call again). ` +
    "Each goes the way the service's own operators hurry a delivery: the same `webhook-id`, the attempt numbered as the schedule would have, and the schedule going on from it. " +
    'The answer lists the deliveries whose attempt is now being made; it does not wait for them (read the deliveries, or your receiver, for what they did). A delivery whose attempt is already under way is not listed. Not served in production.',
  tags,
  scopes: ['manage:webhooks'],
  servedIn,
  body: AttemptNowBody,
  responses: {
    200: {
      description: 'The deliveries hurried',
      schema: z.object({ hurried: z.array(HurriedDelivery), more: z.boolean() }).meta({ id: 'SandboxAttemptNow' }),
    },
  },
  problems: ['invalid_parameters', 'not_found'],
  handler: async ({ body, caller: who, deps }) => {
    const { hurried, more } = await attemptWaitingNow(deps, caller(who.channel), body.webhook_id);
    return {
      body: {
        hurried: hurried.map((delivery) => ({
          delivery_id: delivery.deliveryId,
          webhook_id: delivery.webhookId,
          attempt: delivery.attempt,
          was_due_at: delivery.wasDueAt === null ? null : toInstant(delivery.wasDueAt),
        })),
        more,
      },
    };
  },
});

const FastRetriesRecord = z
  .object({
    webhook_id: z.string(),
    enabled: z.boolean(),
    time_factor: z.int().meta({
      description: `How many times faster the retry schedule runs for deliveries to this endpoint: ${SANDBOX_TIME_FACTOR} when enabled, 1 when not.`,
    }),
  })
  .meta({ id: 'SandboxFastRetries' });

const fastRetriesRecord = (setting: FastRetries) => ({
  webhook_id: setting.webhookId,
  enabled: setting.timeFactor !== 1,
  time_factor: setting.timeFactor,
});

const FAST_RETRIES_RULE =
  `With fast retries, a delivery to the endpoint runs the contract's retry schedule unchanged (the same delays, jitter, span and number of attempts; suspension \`failing\` and the e-mail to your technical contact at its end) on a clock ${describeTimeFactor()}. ` +
  'The waits between attempts are divided by the factor; an attempt itself takes the time your receiver takes and counts towards the span at that length, as in production. ' +
  'It applies to the deliveries made after it is turned on; a delivery keeps the clock it started with.';

export const putSandboxFastRetries = defineOperation({
  operationId: 'putSandboxFastRetries',
  method: 'put',
  path: '/sandbox/webhooks/{webhook_id}/fast-retries',
  summary: "Run an endpoint's retry schedule in minutes (sandbox only)",
  description: `${FAST_RETRIES_RULE} Not served in production.`,
  tags,
  scopes: ['manage:webhooks'],
  servedIn,
  params: IdParams,
  body: z.object({ enabled: z.boolean() }).strict(),
  responses: { 200: { description: "The endpoint's setting", schema: FastRetriesRecord } },
  problems: ['invalid_parameters', 'not_found'],
  handler: async ({ params, body, caller: who, deps }) => ({
    body: fastRetriesRecord(await setFastRetries(deps, caller(who.channel), params.webhook_id, body.enabled)),
  }),
});

export const getSandboxFastRetries = defineOperation({
  operationId: 'getSandboxFastRetries',
  method: 'get',
  path: '/sandbox/webhooks/{webhook_id}/fast-retries',
  summary: "Whether an endpoint's retry schedule runs in minutes (sandbox only)",
  description: `${FAST_RETRIES_RULE} Not served in production.`,
  tags,
  scopes: ['manage:webhooks'],
  servedIn,
  params: IdParams,
  responses: { 200: { description: "The endpoint's setting", schema: FastRetriesRecord } },
  problems: ['not_found'],
  handler: async ({ params, caller: who, deps }) => ({
    body: fastRetriesRecord(await fastRetries(deps, caller(who.channel), params.webhook_id)),
  }),
});

const ExpireBody = z
  .object({
    token: z
      .string()
      .min(1)
      .max(4096)
      .meta({ description: 'An owner-connect token your redirect URL received, as received.' }),
  })
  .strict();

export const expireSandboxOwnerConnectToken = defineOperation({
  operationId: 'expireSandboxOwnerConnectToken',
  method: 'post',
  path: '/sandbox/owner-connect/expire',
  summary: "End an owner-connect token's confirmation window now (sandbox only)",
  description:
    'Checks the token as `PUT /owners/{owner_id}/connection` does (signature, `iss`, `aud` your channel, `iat`; any owner of yours as `sub`; any failure is `invalid_owner_connect_token`), then ends its confirmation window now instead of ' +
    `${CONFIRMATION_WINDOW_SECONDS} seconds after \`iat\`: a later confirmation is refused \`owner_connect_token_expired\`, as after a real expiry. ` +
    'A token already expired answers when its window ended; one already confirmed has no window left to end (`owner_connect_token_used`). Not served in production.',
  tags,
  scopes: ['read:catalog'],
  servedIn,
  body: ExpireBody,
  responses: {
    200: {
      description: "The token's window, ended",
      schema: z
        .object({
          token_id: z.string().meta({ description: "The token's `jti`." }),
          owner_id: z.string().meta({ description: "The token's `sub`." }),
          expired_at: Instant.meta({ description: 'When its confirmation window ended.' }),
        })
        .meta({ id: 'SandboxOwnerConnectExpiry' }),
    },
  },
  problems: ['invalid_parameters', 'invalid_owner_connect_token', 'owner_connect_token_used'],
  handler: async ({ body, caller: who, deps }) => {
    const ended = await endOwnerConnectWindow(deps, caller(who.channel), body.token);
    return { body: { token_id: ended.tokenId, owner_id: ended.ownerId, expired_at: toInstant(ended.expiredAt) } };
  },
});

export const sandboxTimeOperations = [
  attemptSandboxDeliveriesNow,
  putSandboxFastRetries,
  getSandboxFastRetries,
  expireSandboxOwnerConnectToken,
];
