import type { EventRow } from '../db/catalogue/reads.ts';
import { endpointById, type EndpointRow } from '../db/webhook-endpoints.ts';
import type { DeliveryRow } from '../db/webhooks.ts';
import { newExternalId } from '../domain/catalogue/ids.ts';
import { matchesAnyEventPattern } from '../domain/events.ts';
import { toInstant } from '../domain/time.ts';
import { suspensionMail } from '../infra/mailer.ts';
import { outcomeOf } from '../infra/webhook-sender.ts';
import type { ActivityDeps } from './deps.ts';

/** Events turned into deliveries per channel and call; the dispatcher calls again while there are more. */
const DISPATCH_BATCH = 200;

export type AttemptOutcome = 'delivered' | 'gone' | 'failed' | 'cancelled';

export interface DeliveryInput {
  deliveryId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  channel: string;
}


export function webhookActivities(deps: ActivityDeps) {
  const { orm, clock, log } = deps;

  /** Cancels the delivery workflows of an endpoint's pending deliveries and marks them cancelled. */
  async function cancelPending(endpointId: string, except: string | null): Promise<number> {
    const em = orm.em.fork();
    const pending = await em.execute<{ id: string; event_id: string }[]>(
      `update webhook_delivery set state = 'cancelled', completed_at = ?, next_attempt_at = null
        where endpoint_id = ? and state = 'pending' and id <> ? returning id, event_id`,
      [clock.now(), endpointId, except ?? ''],
    );
    await deps.workflows.cancelWebhookDeliveries(pending.map((delivery) => ({ endpointId, eventId: delivery.event_id })));
    return pending.length;
  }

  return {
    /**
     * Turns each channel's new events, in log order, into one delivery per active endpoint whose
     * patterns match, and starts its workflow. Progress is stored after the deliveries exist, and
     * delivery rows and workflow ids are unique per (endpoint, event), so a retried or replayed
     * call starts nothing twice.
     */
    async dispatchEvents(): Promise<{ started: number; more: boolean }> {
      const em = orm.em.fork();
      const channels = await em.execute<{ channel_id: string; position: string; name: string; status: string }[]>(
        `select p.channel_id, p.position, c.name, case when c.webhooks_suspended_at is null then c.status else 'webhooks_suspended' end as status
           from dispatch_progress p join channel c on c.id = p.channel_id order by p.channel_id`,
      );
      let started = 0;
      let more = false;
      for (const channel of channels) {
        const events = await em.execute<EventRow[]>(
          'select position, id, type, occurred_at, data from event where channel_id = ? and position > ? order by position limit ?',
          [channel.channel_id, channel.position, DISPATCH_BATCH],
        );
        if (events.length === 0) continue;
        if (events.length === DISPATCH_BATCH) more = true;
        // A suspended channel, or one whose webhooks operators suspended, is sent nothing; it
        // reads the event log when reinstated.
        const endpoints = channel.status === 'active'
          ? await em.execute<EndpointRow[]>(`select id, events, created_at from webhook_endpoint where channel_id = ? and status = 'active'`, [channel.channel_id])
          : [];
        for (const event of events) {
          const occurredAt = Date.parse(event.occurred_at);
          const body = JSON.stringify({ id: event.id, type: event.type, occurred_at: toInstant(new Date(occurredAt)), channel: channel.name, data: event.data });
          for (const endpoint of endpoints) {
            // An endpoint gets the events of changes made after it was registered.
            if (occurredAt < Math.floor(Date.parse(endpoint.created_at) / 1000) * 1000) continue;
            if (!matchesAnyEventPattern(endpoint.events, event.type)) continue;
            // A retried dispatch finds the delivery it made before and gets its id back.
            const [delivery] = await em.execute<{ id: string }[]>(
              `insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at)
               values (?, ?, ?, ?, ?, 'pending', 0, ?)
               on conflict (endpoint_id, event_id) do update set event_id = excluded.event_id returning id`,
              [newExternalId('delivery', clock.now().getTime()), endpoint.id, event.id, event.type, body, clock.now()],
            );
            const input: DeliveryInput = { deliveryId: delivery!.id, endpointId: endpoint.id, eventId: event.id, eventType: event.type, channel: channel.name };
            await deps.workflows.startWebhookDelivery(input);
            started += 1;
          }
        }
        await em.execute('update dispatch_progress set position = ? where channel_id = ?', [events.at(-1)!.position, channel.channel_id]);
      }
      return { started, more };
    },

    /** One attempt: signs with every live secret, POSTs, records the attempt. */
    async attemptDelivery(deliveryId: string): Promise<{ outcome: AttemptOutcome; statusCode: number | null; attempt: number }> {
      const em = orm.em.fork();
      const [delivery] = await em.execute<DeliveryRow[]>('select * from webhook_delivery where id = ?', [deliveryId]);
      if (!delivery) return { outcome: 'cancelled', statusCode: null, attempt: 0 };
      if (delivery.state !== 'pending') return { outcome: delivery.state === 'delivered' ? 'delivered' : 'cancelled', statusCode: null, attempt: delivery.attempts };
      const endpoint = await endpointById(em, delivery.endpoint_id);
      const [channel] = endpoint ? await em.execute<{ sendable: boolean }[]>(`select status = 'active' and webhooks_suspended_at is null as sendable from channel where id = ?`, [endpoint.channel_id]) : [];
      if (!endpoint || endpoint.status !== 'active' || !channel?.sendable) {
        await em.execute(`update webhook_delivery set state = 'cancelled', completed_at = ?, next_attempt_at = null where id = ?`, [clock.now(), deliveryId]);
        return { outcome: 'cancelled', statusCode: null, attempt: delivery.attempts };
      }
      const attemptedAt = clock.now();
      const response = await deps.webhookSender.send(endpoint, { id: delivery.event_id, body: delivery.payload });
      const outcome = outcomeOf(response);
      const number = delivery.attempts + 1;
      await em.execute(
        `insert into webhook_attempt (delivery_id, number, attempted_at, status_code, duration_ms, error, response_excerpt)
         values (?, ?, ?, ?, ?, ?, ?) on conflict do nothing`,
        [deliveryId, number, attemptedAt, response.statusCode, response.durationMs, response.error?.slice(0, 500) ?? null, response.excerpt?.slice(0, 1024) ?? null],
      );
      await em.execute(
        `update webhook_delivery set attempts = ?, last_attempt_at = ?, next_attempt_at = null,
           state = ?, completed_at = ? where id = ?`,
        [number, attemptedAt, outcome === 'delivered' ? 'delivered' : 'pending', outcome === 'delivered' ? clock.now() : null, deliveryId],
      );
      return { outcome, statusCode: response.statusCode, attempt: number };
    },

    async recordNextAttempt(deliveryId: string, at: string): Promise<void> {
      await orm.em.fork().execute(`update webhook_delivery set next_attempt_at = ? where id = ? and state = 'pending'`, [new Date(at), deliveryId]);
    },

    async finishDelivery(deliveryId: string, state: 'failed' | 'cancelled'): Promise<void> {
      await orm.em.fork().execute(`update webhook_delivery set state = ?, completed_at = ?, next_attempt_at = null where id = ? and state = 'pending'`, [state, clock.now(), deliveryId]);
    },

    /**
     * Makes an active endpoint inactive for `reason` and stops its other pending deliveries.
     * True when this call suspended it (so only one delivery e-mails the contact).
     */
    async suspendEndpoint(endpointId: string, reason: 'failing' | 'gone', exceptDeliveryId: string): Promise<boolean> {
      const changed = await orm.em.fork().execute<{ id: string }[]>(
        `update webhook_endpoint set status = 'inactive', suspended_reason = ?, updated_at = ? where id = ? and status = 'active' returning id`,
        [reason, clock.now(), endpointId],
      );
      await cancelPending(endpointId, exceptDeliveryId);
      if (changed.length > 0) log.warn('webhook endpoint suspended', { endpointId, reason });
      return changed.length > 0;
    },

    async cancelPendingDeliveries(endpointId: string): Promise<number> {
      return cancelPending(endpointId, null);
    },

    /** E-mails the channel's technical contact; without a contact or SMTP it is logged for operators. */
    async notifyTechnicalContact(endpointId: string, reason: 'failing' | 'gone'): Promise<{ sent: boolean }> {
      const em = orm.em.fork();
      const [row] = await em.execute<{ url: string; name: string; technical_contact_email: string | null }[]>(
        'select e.url, c.name, c.technical_contact_email from webhook_endpoint e join channel c on c.id = e.channel_id where e.id = ?',
        [endpointId],
      );
      if (!row?.technical_contact_email) {
        log.warn('webhook endpoint suspended; the channel has no technical contact to tell', { endpointId, reason });
        return { sent: false };
      }
      const mail = suspensionMail({ to: row.technical_contact_email, channel: row.name, endpointId, url: row.url, reason, suspendedAt: toInstant(clock.now()) });
      const result = await deps.mailer.send(mail);
      if (!result.sent) log.warn('webhook endpoint suspended; no SMTP configured to tell the technical contact', { endpointId, reason });
      return { sent: result.sent };
    },

    /** Ends a rotation's overlap: destroys the previous secret unless a later rotation replaced it. */
    async destroyPreviousSecret(endpointId: string, generation: number): Promise<boolean> {
      const changed = await orm.em.fork().execute<{ id: string }[]>(
        `update webhook_endpoint set previous_secret = null, previous_secret_expires_at = null
          where id = ? and secret_generation = ? and previous_secret is not null returning id`,
        [endpointId, generation],
      );
      return changed.length > 0;
    },

  };
}
