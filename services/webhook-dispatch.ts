import * as deliveryStore from '../db/webhook-deliveries.ts';
import * as endpointStore from '../db/webhook-endpoints.ts';
import * as dispatchStore from '../db/webhook-dispatch.ts';
import { newExternalId } from '../domain/catalogue/ids.ts';
import { endpointHost } from '../domain/webhooks/endpoints.ts';
import { channelReceivesWebhooks, endpointReceivesEvent, webhookBody } from '../domain/webhooks/sending.ts';
import { inStoredTrace } from '../infra/tracing.ts';
import { CURRENT_DELIVERY } from '../workflows/definitions.ts';
import type { DeliveryInput } from '../workflows/webhook-delivery.ts';
import type { ServiceDeps } from './deps.ts';

/** Events turned into deliveries per channel and call; the dispatcher calls again while there are more. */
const DISPATCH_BATCH = 200;
/** Deliveries inserted per statement (6 parameters each, far below PostgreSQL's 65,535). */
const INSERT_CHUNK = 500;
/** Delivery workflows being started at once by one dispatch. */
const START_CONCURRENCY = 16;

/** Runs `work` on every item, at most `limit` at a time; fails with the first failure once all have settled. */
async function eachConcurrently<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const failures: unknown[] = [];
  const lane = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      try {
        await work(item);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failures.length > 0) throw failures[0];
}

function dispatchAttributes(input: DeliveryInput) {
  return {
    'webhook.delivery_id': input.deliveryId,
    'webhook.endpoint_id': input.endpointId,
    'webhook.event_id': input.eventId,
    'webhook.event_type': input.eventType,
    'webhook.channel': input.channel,
  };
}

/**
 * The dispatcher's work (its `dispatchEvents` activity): turns each channel's new events, in log
 * order, into one delivery per active endpoint whose patterns match, and starts its workflow.
 * Progress is stored after the deliveries exist, and delivery rows and workflow ids are unique per
 * (endpoint, event), so a retried or replayed call starts nothing twice.
 */
export async function dispatchEvents(
  deps: Pick<ServiceDeps, 'orm' | 'clock' | 'workflows'>,
): Promise<{ started: number; more: boolean }> {
  const { orm, clock } = deps;
  const em = orm.em.fork();
  let started = 0;
  let more = false;
  for (const { channel, position, stamp } of await dispatchStore.dispatchPositions(em)) {
    const events = await dispatchStore.eventsAfter(em, channel.id, position, DISPATCH_BATCH, stamp);
    if (events.length === 0) continue;
    if (events.length === DISPATCH_BATCH) more = true;
    // A channel that may not receive webhooks is sent nothing; it reads the event log when reinstated.
    const endpoints = channelReceivesWebhooks(channel) ? await endpointStore.activeEndpoints(em, channel.id) : [];
    const planned: (Omit<DeliveryInput, 'deliveryId'> & {
      id: string;
      payload: string;
      host: string;
      traceparent: string | null;
    })[] = [];
    for (const event of events) {
      const body = webhookBody({
        id: event.id,
        type: event.type,
        occurredAt: event.occurredAt,
        channel: channel.name,
        data: event.data,
      });
      for (const endpoint of endpoints) {
        if (!endpointReceivesEvent(endpoint, event)) continue;
        planned.push({
          id: '',
          endpointId: endpoint.id,
          eventId: event.id,
          eventType: event.type,
          channel: channel.name,
          payload: body,
          host: endpointHost(endpoint.url),
          ...CURRENT_DELIVERY,
          // Sandbox fast retries (set only there, services/sandbox-time.ts): the schedule runs faster.
          ...(endpoint.timeFactor === 1 ? {} : { timeFactor: endpoint.timeFactor }),
          traceparent: event.traceparent,
        });
      }
    }
    // Deliveries are listed by (created_at, id): the batch shares one instant, and its ids,
    // sorted, are handed out in log order.
    const ids = planned.map(() => newExternalId('delivery', clock.now().getTime())).sort();
    planned.forEach((delivery, i) => (delivery.id = ids[i]!));
    const createdAt = clock.now();
    // The deliveries exist (one statement per chunk) before any workflow starts; the starts
    // then run side by side, a few at a time.
    const starts: { input: DeliveryInput; host: string; traceparent: string | null }[] = [];
    for (let from = 0; from < planned.length; from += INSERT_CHUNK) {
      const chunk = planned.slice(from, from + INSERT_CHUNK);
      const ids = await deliveryStore.upsertDeliveries(em, chunk, createdAt, events[0]!.occurredAt);
      chunk.forEach(({ id: _id, payload: _payload, host, traceparent, ...input }, i) =>
        starts.push({ input: { ...input, deliveryId: ids[i]! }, host, traceparent }),
      );
    }
    // With tracing on, each start joins the trace of the write that committed its event (the
    // delivery workflow and its attempts follow it there); off, it is the bare start.
    await eachConcurrently(starts, START_CONCURRENCY, ({ input, host, traceparent }) =>
      inStoredTrace(traceparent, 'webhook dispatch', dispatchAttributes(input), () =>
        deps.workflows.startWebhookDelivery(input, host),
      ),
    );
    started += starts.length;
    await dispatchStore.advanceDispatch(em, channel.id, events.at(-1)!.position, events.at(-1)!.occurredAt);
  }
  return { started, more };
}
