import { parseArgs } from 'node:util';
import { z } from 'zod';
import type { AttemptWindow, OperatorDelivery } from '../db/webhook-operator-reads.ts';
import { externalIdKind, isExternalId } from '../domain/catalogue/ids.ts';
import { toInstant } from '../domain/time.ts';
import { endpointHost } from '../domain/webhooks/endpoints.ts';
import { DELIVERY_WORKFLOW_STATES } from '../domain/webhooks/states.ts';
import * as operations from '../services/webhook-operations.ts';
import { workflowIds } from '../workflows/ids.ts';
import { onePositional } from './cli-channel.ts';
import type { AdminContext } from './context.ts';
import { AdminError } from './errors.ts';

// `delivery list`, `delivery retry`, `endpoint health`: stuck deliveries across channels.

const instantOrNull = (date: Date | null) => (date ? toInstant(date) : null);

/** A delivery as the CLI prints it: its endpoint by host only (a URL's path may hold the receiver's token). */
export function deliveryDocument(delivery: OperatorDelivery) {
  return {
    id: delivery.id,
    state: delivery.state,
    channel: delivery.channel,
    endpoint_id: delivery.endpointId,
    endpoint_host: endpointHost(delivery.endpointUrl),
    event_id: delivery.eventId,
    event_type: delivery.eventType,
    attempts: delivery.attempts,
    created_at: toInstant(delivery.createdAt),
    last_attempt_at: instantOrNull(delivery.lastAttemptAt),
    next_attempt_at: instantOrNull(delivery.nextAttemptAt),
    completed_at: instantOrNull(delivery.completedAt),
    last_attempt: delivery.lastAttempt
      ? { status_code: delivery.lastAttempt.statusCode, error: delivery.lastAttempt.error }
      : null,
    workflow_id: workflowIds.webhookDelivery(delivery.endpointId, delivery.eventId),
  };
}

function windowDocument(window: AttemptWindow) {
  return {
    attempts: window.attempts,
    delivered: window.delivered,
    success_ratio: window.attempts === 0 ? null : Math.round((window.delivered / window.attempts) * 1000) / 1000,
    last_success_at: instantOrNull(window.lastDeliveredAt),
  };
}

const ListInput = z.object({
  channel: z.string().min(1).optional(),
  endpoint: z
    .string()
    .refine((id) => isExternalId('webhook', id), 'endpoint: a webhook endpoint id (whk_…)')
    .optional(),
  state: z
    .string()
    .transform((list) => list.split(',').map((word) => word.trim()))
    .pipe(
      z.array(
        z.enum(DELIVERY_WORKFLOW_STATES, { message: `state: one or more of ${DELIVERY_WORKFLOW_STATES.join(', ')}` }),
      ),
    )
    .optional(),
  since: z.iso
    .datetime({ offset: true, message: 'since: an RFC 3339 instant, e.g. 2026-11-21T00:00:00Z' })
    .transform((text) => new Date(text))
    .optional(),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(operations.LIST_LIMIT_MAX, `limit: at most ${operations.LIST_LIMIT_MAX}`)
    .optional(),
});

function parsed<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input);
  if (!result.success) throw new AdminError(result.error.issues.map((issue) => issue.message).join('; '));
  return result.data;
}

function deliveryId(args: string[]): string {
  const id = onePositional(args, 'delivery id');
  if (externalIdKind(id) !== 'delivery') throw new AdminError(`"${id}" is not a delivery id (dlv_…)`);
  return id;
}

export const deliveryCommands = {
  /** `delivery list [--channel C] [--endpoint E] [--state S[,S…]] [--since T] [--limit N]` */
  list: async (args: string[], ctx: AdminContext) => {
    const { values } = parseArgs({
      args,
      strict: true,
      options: {
        channel: { type: 'string' },
        endpoint: { type: 'string' },
        state: { type: 'string' },
        since: { type: 'string' },
        limit: { type: 'string' },
      },
    });
    const query = parsed(ListInput, values);
    const found = await operations.listOperatorDeliveries(ctx, {
      channel: query.channel,
      endpointId: query.endpoint,
      states: query.state,
      since: query.since,
      limit: query.limit,
    });
    return {
      since: toInstant(found.since),
      limit: found.limit,
      more: found.more,
      data: found.deliveries.map(deliveryDocument),
    };
  },

  /**
   * `delivery retry <delivery-id>`: a delivery waiting for its next attempt makes it now, and the
   * command prints what it did and the delivery as it is after it; one whose workflow run ended
   * without it (terminated, lost) is driven again by a new run.
   */
  retry: async (args: string[], ctx: AdminContext) => {
    const askedAt = ctx.clock.now();
    const { delivery, retry } = await operations.retryDeliveryNow(ctx, deliveryId(args));
    const { result } = retry;
    return {
      ...deliveryDocument(delivery),
      retry: {
        attempt: retry.attempt,
        was_due_at: retry.dueAt === null ? null : toInstant(new Date(retry.dueAt)),
        asked_at: toInstant(askedAt),
        driven_again: retry.drivenAgain,
        result: result && {
          outcome: result.outcome,
          status_code: result.statusCode,
          error: result.error,
          state: result.state,
          next_attempt_at: result.nextAttemptAt === null ? null : toInstant(new Date(result.nextAttemptAt)),
        },
      },
    };
  },
};

export const endpointCommands = {
  /** `endpoint health <endpoint-id>`: attempts, success ratio and last success over the last hour and day. */
  health: async (args: string[], ctx: AdminContext) => {
    const id = onePositional(args, 'endpoint id');
    if (externalIdKind(id) !== 'webhook') throw new AdminError(`"${id}" is not a webhook endpoint id (whk_…)`);
    const { endpoint, at, lastHour, lastDay } = await operations.endpointHealth(ctx, id);
    return {
      endpoint: {
        id: endpoint.id,
        channel: endpoint.channel,
        host: endpointHost(endpoint.url),
        status: endpoint.status,
        suspended_reason: endpoint.suspendedReason,
      },
      at: toInstant(at),
      last_hour: windowDocument(lastHour),
      last_day: windowDocument(lastDay),
    };
  },
};
