import * as endpointStore from '../db/webhook-endpoints.ts';
import * as deliveryStore from '../db/webhook-deliveries.ts';
import * as dispatchStore from '../db/webhook-dispatch.ts';
import { newExternalId } from '../domain/catalogue/ids.ts';
import { toInstant } from '../domain/time.ts';
import { attemptStart, outcomeOf } from '../domain/webhooks/deliveries.ts';
import { channelReceivesWebhooks, endpointReceivesEvent, webhookBody } from '../domain/webhooks/sending.ts';
import type { DeliveryOutcome, SuspensionReason, UndeliveredState } from '../domain/webhooks/states.ts';
import { suspensionMail } from '../infra/mailer.ts';
import { cancelPendingDeliveries } from '../services/webhooks.ts';
import type { DeliveryInput } from '../workflows/webhook-delivery.ts';
import type { ActivityDeps } from './deps.ts';

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

export function webhookActivities(deps: ActivityDeps) {
  const { orm, clock, log } = deps;

  return {
    /**
     * Turns each channel's new events, in log order, into one delivery per active endpoint whose
     * patterns match, and starts its workflow. Progress is stored after the deliveries exist, and
     * delivery rows and workflow ids are unique per (endpoint, event), so a retried or replayed
     * call starts nothing twice.
     */
    async dispatchEvents(): Promise<{ started: number; more: boolean }> {
      const em = orm.em.fork();
      let started = 0;
      let more = false;
      for (const { channel, position } of await dispatchStore.dispatchPositions(em)) {
        const events = await dispatchStore.eventsAfter(em, channel.id, position, DISPATCH_BATCH);
        if (events.length === 0) continue;
        if (events.length === DISPATCH_BATCH) more = true;
        // A channel that may not receive webhooks is sent nothing; it reads the event log when reinstated.
        const endpoints = channelReceivesWebhooks(channel) ? await endpointStore.activeEndpoints(em, channel.id) : [];
        const planned: (Omit<DeliveryInput, 'deliveryId'> & { id: string; payload: string })[] = [];
        for (const event of events) {
          const occurredAt = Date.parse(event.occurred_at);
          const body = webhookBody({
            id: event.id,
            type: event.type,
            occurredAt: new Date(occurredAt),
            channel: channel.name,
            data: event.data,
          });
          for (const endpoint of endpoints) {
            if (!endpointReceivesEvent(endpoint, { position: Number(event.position), type: event.type })) continue;
            planned.push({
              id: '',
              endpointId: endpoint.id,
              eventId: event.id,
              eventType: event.type,
              channel: channel.name,
              payload: body,
              attempts: 'local',
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
        const inputs: DeliveryInput[] = [];
        for (let from = 0; from < planned.length; from += INSERT_CHUNK) {
          const chunk = planned.slice(from, from + INSERT_CHUNK);
          const ids = await deliveryStore.upsertDeliveries(em, chunk, createdAt);
          chunk.forEach(({ id: _id, payload: _payload, ...input }, i) =>
            inputs.push({ ...input, deliveryId: ids[i]! }),
          );
        }
        await eachConcurrently(inputs, START_CONCURRENCY, (input) => deps.workflows.startWebhookDelivery(input));
        started += inputs.length;
        await dispatchStore.advanceDispatch(em, channel.id, Number(events.at(-1)!.position));
      }
      return { started, more };
    },

    /** One attempt: signs with every live secret, POSTs, records the attempt (one read, one write). */
    async attemptDelivery(
      deliveryId: string,
    ): Promise<{ outcome: DeliveryOutcome; statusCode: number | null; attempt: number }> {
      const em = orm.em.fork();
      const context = await deliveryStore.attemptContext(em, deliveryId);
      if (!context) return { outcome: 'cancelled', statusCode: null, attempt: 0 };
      const { delivery, endpoint, channel } = context;
      const start = attemptStart(delivery, endpoint, channel);
      if (start === 'delivered' || start === 'ended')
        return {
          outcome: start === 'delivered' ? 'delivered' : 'cancelled',
          statusCode: null,
          attempt: delivery.attempts,
        };
      if (start !== 'send' || !endpoint) {
        await deliveryStore.finishDelivery(em, deliveryId, 'cancelled', clock.now());
        return { outcome: 'cancelled', statusCode: null, attempt: delivery.attempts };
      }
      const attemptedAt = clock.now();
      const response = await deps.webhookSender.send(endpoint, { id: delivery.event_id, body: delivery.payload });
      const outcome = outcomeOf(response);
      const number = delivery.attempts + 1;
      // The channel is shown only the reason; the detail (addresses, codes) is for the operator.
      if (response.error !== null)
        log.info('webhook attempt failed', {
          deliveryId,
          endpointId: endpoint.id,
          attempt: number,
          reason: response.error,
          statusCode: response.statusCode,
          detail: response.detail,
        });
      await deliveryStore.recordAttempt(em, {
        deliveryId,
        number,
        attemptedAt,
        statusCode: response.statusCode,
        durationMs: response.durationMs,
        error: response.error,
        excerpt: response.excerpt,
        deliveredAt: outcome === 'delivered' ? clock.now() : null,
      });
      return { outcome, statusCode: response.statusCode, attempt: number };
    },

    async recordNextAttempt(deliveryId: string, at: string): Promise<void> {
      await deliveryStore.recordNextAttempt(orm.em.fork(), deliveryId, new Date(at));
    },

    async finishDelivery(deliveryId: string, state: UndeliveredState): Promise<void> {
      await deliveryStore.finishDelivery(orm.em.fork(), deliveryId, state, clock.now());
    },

    /**
     * Makes an active endpoint inactive for `reason` and stops its other pending deliveries.
     * True when this call suspended it (so only one delivery e-mails the contact).
     */
    async suspendEndpoint(endpointId: string, reason: SuspensionReason, exceptDeliveryId: string): Promise<boolean> {
      const suspended = await endpointStore.suspendEndpoint(orm.em.fork(), endpointId, reason, clock.now());
      await cancelPendingDeliveries(deps, { endpointId, except: exceptDeliveryId });
      if (suspended) log.warn('webhook endpoint suspended', { endpointId, reason });
      return suspended;
    },

    async cancelPendingDeliveries(endpointId: string): Promise<number> {
      return cancelPendingDeliveries(deps, { endpointId });
    },

    /** E-mails the channel's technical contact; without a contact or SMTP it is logged for operators. */
    async notifyTechnicalContact(endpointId: string, reason: SuspensionReason): Promise<{ sent: boolean }> {
      const contact = await endpointStore.endpointContact(orm.em.fork(), endpointId);
      if (!contact?.email) {
        log.warn('webhook endpoint suspended; the channel has no technical contact to tell', { endpointId, reason });
        return { sent: false };
      }
      const mail = suspensionMail({
        to: contact.email,
        channel: contact.channel,
        endpointId,
        url: contact.url,
        reason,
        suspendedAt: toInstant(clock.now()),
      });
      const result = await deps.mailer.send(mail);
      if (!result.sent)
        log.warn('webhook endpoint suspended; no SMTP configured to tell the technical contact', {
          endpointId,
          reason,
        });
      return { sent: result.sent };
    },

    /** Ends a rotation's overlap: destroys the previous secret unless a later rotation replaced it. */
    async destroyPreviousSecret(endpointId: string, generation: number): Promise<boolean> {
      return endpointStore.destroyPreviousSecret(orm.em.fork(), endpointId, generation);
    },
  };
}
