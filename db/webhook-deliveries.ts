import type { InferEntity } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryState, UndeliveredState } from '../domain/webhooks/states.ts';
import { endpointFromRow, type EndpointRow, type StoredEndpoint } from './webhook-endpoints.ts';
import { WebhookAttemptSchema, WebhookDeliverySchema } from './entities/index.ts';

// Deliveries and their attempts. Endpoints are in webhook-endpoints.ts, how far the dispatcher has
// read each channel's event log in webhook-dispatch.ts.

/** A delivery, as the repositories answer it. */
export interface StoredDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  /** The exact body sent on every attempt. */
  payload: string;
  state: DeliveryState;
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
}

/** The row as raw queries return it (instants as text). */
interface DeliveryRow {
  id: string;
  endpoint_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  state: DeliveryState;
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  completed_at: string | null;
}

const instantOrNull = (value: string | null) => (value === null ? null : new Date(value));

function deliveryFromRow(row: DeliveryRow): StoredDelivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: row.payload,
    state: row.state,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
    lastAttemptAt: instantOrNull(row.last_attempt_at),
    nextAttemptAt: instantOrNull(row.next_attempt_at),
    completedAt: instantOrNull(row.completed_at),
  };
}

/** A delivery; with `endpointId`, only when it belongs to that endpoint. */
export async function findDelivery(em: EntityManager, id: string, endpointId?: string): Promise<StoredDelivery | null> {
  const [row] =
    endpointId === undefined
      ? await em.execute<DeliveryRow[]>('select * from webhook_delivery where id = ?', [id])
      : await em.execute<DeliveryRow[]>('select * from webhook_delivery where endpoint_id = ? and id = ?', [
          endpointId,
          id,
        ]);
  return row ? deliveryFromRow(row) : null;
}

/**
 * Up to `limit` deliveries of an endpoint, newest first, after the (created_at, id) position
 * `after`: the rest of the position's instant (one day's partition, by id) and the instants
 * before it (the days back from there, in order), each an index range of its own. One row
 * comparison over both would leave the planner to estimate it by `created_at < ?` alone, which
 * inside a dispatch's group (thousands of deliveries sharing one instant) says none and has it
 * sort the group instead of walking the index.
 */
export async function deliveriesPage(
  em: EntityManager,
  endpointId: string,
  after: { createdAt: Date; id: string } | null,
  limit: number,
): Promise<StoredDelivery[]> {
  const rows = after
    ? await em.execute<DeliveryRow[]>(
        `select * from (
           (select * from webhook_delivery where endpoint_id = ? and created_at = ? and id < ? order by id desc limit ?)
           union all
           (select * from webhook_delivery where endpoint_id = ? and created_at < ? order by created_at desc, id desc limit ?)
         ) page order by created_at desc, id desc limit ?`,
        [endpointId, after.createdAt, after.id, limit, endpointId, after.createdAt, limit, limit],
      )
    : await em.execute<DeliveryRow[]>(
        'select * from webhook_delivery where endpoint_id = ? order by created_at desc, id desc limit ?',
        [endpointId, limit],
      );
  return rows.map(deliveryFromRow);
}

export type WebhookAttempt = InferEntity<typeof WebhookAttemptSchema>;

export async function deliveryAttempts(em: EntityManager, deliveryId: string): Promise<WebhookAttempt[]> {
  return em.find(WebhookAttemptSchema, { delivery: deliveryId }, { orderBy: { number: 'asc' } });
}

/**
 * Many deliveries in one statement, made pending; answers each one's id (the existing one's for a
 * delivery made before, so a retried dispatch delivers nothing twice), in the order given.
 * `eventsSince` is the oldest of the deliveries' events' stamps: a delivery is made after its
 * event, so the ones made before are looked for in the days from then on (a day earlier for the
 * clocks of two processes), each day's `(endpoint_id, event_id)` unique index once.
 */
export async function upsertDeliveries(
  em: EntityManager,
  deliveries: readonly { id: string; endpointId: string; eventId: string; eventType: string; payload: string }[],
  now: Date,
  eventsSince: Date = now,
): Promise<string[]> {
  if (deliveries.length === 0) return [];
  const since = new Date(Math.min(eventsSince.getTime(), now.getTime()) - 24 * 3600 * 1000);
  const ids = new Map<string, string>();
  const key = (row: { endpoint_id: string; event_id: string }) => `${row.endpoint_id} ${row.event_id}`;
  const rows = await em.execute<{ id: string; endpoint_id: string; event_id: string }[]>(
    `with wanted (id, endpoint_id, event_id, event_type, payload) as (values ${deliveries.map(() => '(?, ?, ?, ?, ?)').join(', ')}),
     made as (select d.id, d.endpoint_id, d.event_id from webhook_delivery d join wanted w using (endpoint_id, event_id)
               where d.created_at >= ?),
     added as (
       insert into webhook_delivery (id, endpoint_id, event_id, event_type, payload, state, attempts, created_at)
       select w.id, w.endpoint_id, w.event_id, w.event_type, w.payload, 'pending', 0, ? from wanted w
        where not exists (select 1 from made m where m.endpoint_id = w.endpoint_id and m.event_id = w.event_id)
       on conflict do nothing returning id, endpoint_id, event_id)
     select * from made union all select * from added`,
    [...deliveries.flatMap((d) => [d.id, d.endpointId, d.eventId, d.eventType, d.payload]), since, now],
  );
  for (const row of rows) ids.set(key(row), row.id);
  // One another dispatcher inserted meanwhile (its row was not there to see) is read back.
  const missing = deliveries.filter((d) => !ids.has(`${d.endpointId} ${d.eventId}`));
  if (missing.length > 0) {
    const found = await em.execute<{ id: string; endpoint_id: string; event_id: string }[]>(
      `select id, endpoint_id, event_id from webhook_delivery
        where created_at >= ? and (endpoint_id, event_id) in (${missing.map(() => '(?, ?)').join(', ')})`,
      [since, ...missing.flatMap((d) => [d.endpointId, d.eventId])],
    );
    for (const row of found) ids.set(key(row), row.id);
  }
  return deliveries.map((d) => ids.get(`${d.endpointId} ${d.eventId}`)!);
}

/** What one attempt needs, read in one statement: the delivery, its endpoint and its channel's state. */
export interface AttemptContext {
  delivery: StoredDelivery;
  endpoint: StoredEndpoint | null;
  channel: { name: string; status: string; webhooksSuspendedAt: Date | null } | null;
  /** When the delivered event was committed (its log row's `occurred_at`); null once the log dropped it. */
  eventOccurredAt: Date | null;
}

export async function attemptContext(em: EntityManager, deliveryId: string): Promise<AttemptContext | null> {
  const [row] = await em.execute<
    (DeliveryRow & {
      endpoint: EndpointRow | null;
      channel_name: string | null;
      channel_status: string | null;
      channel_suspended_at: Date | string | null;
      event_occurred_at: Date | string | null;
    })[]
  >(
    `select d.*, case when e.id is null then null else jsonb_build_object(
              'id', e.id, 'channel_id', e.channel_id, 'url', e.url, 'events', e.events, 'description', e.description,
              'status', e.status, 'suspended_reason', e.suspended_reason, 'secret', e.secret, 'previous_secret', e.previous_secret,
              'previous_secret_expires_at', e.previous_secret_expires_at, 'secret_generation', e.secret_generation,
              'created_at', e.created_at, 'updated_at', e.updated_at) end as endpoint,
            c.name as channel_name, c.status as channel_status, c.webhooks_suspended_at as channel_suspended_at,
            ev.occurred_at as event_occurred_at
       from webhook_delivery d
       left join webhook_endpoint e on e.id = d.endpoint_id
       left join channel c on c.id = e.channel_id
       left join event ev on ev.id = d.event_id
      where d.id = ?`,
    [deliveryId],
  );
  if (!row) return null;
  const {
    endpoint,
    channel_name: name,
    channel_status: status,
    channel_suspended_at: suspendedAt,
    event_occurred_at: occurredAt,
    ...delivery
  } = row;
  const channel =
    status === null || name === null
      ? null
      : { name, status, webhooksSuspendedAt: suspendedAt === null ? null : new Date(suspendedAt) };
  return {
    delivery: deliveryFromRow(delivery),
    endpoint: endpoint === null ? null : endpointFromRow(endpoint),
    channel,
    eventOccurredAt: occurredAt === null ? null : new Date(occurredAt),
  };
}

export interface AttemptRecord {
  deliveryId: string;
  number: number;
  attemptedAt: Date;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  excerpt: string | null;
  /** Set when the attempt delivered: the delivery is complete; otherwise it stays pending. */
  deliveredAt: Date | null;
}

/**
 * Records an attempt (once: a retried activity does not record it twice) and its delivery's new
 * state, in one statement.
 */
export async function recordAttempt(em: EntityManager, attempt: AttemptRecord): Promise<void> {
  await em.execute(
    `with recorded as (
       insert into webhook_attempt (delivery_id, number, attempted_at, status_code, duration_ms, error, response_excerpt)
       select ?, ?, ?, ?, ?, ?, ?
        where not exists (select 1 from webhook_attempt where delivery_id = ? and number = ? and attempted_at >= ?)
       on conflict do nothing
     )
     update webhook_delivery set attempts = ?, last_attempt_at = ?, next_attempt_at = null, state = ?, completed_at = ? where id = ?`,
    [
      attempt.deliveryId,
      attempt.number,
      attempt.attemptedAt,
      attempt.statusCode,
      attempt.durationMs,
      attempt.error?.slice(0, 500) ?? null,
      attempt.excerpt?.slice(0, 1024) ?? null,
      // A retried activity records its attempt again within minutes, perhaps on the next day.
      attempt.deliveryId,
      attempt.number,
      new Date(attempt.attemptedAt.getTime() - 24 * 3600 * 1000),
      attempt.number,
      attempt.attemptedAt,
      attempt.deliveredAt ? 'delivered' : 'pending',
      attempt.deliveredAt,
      attempt.deliveryId,
    ],
  );
}

export async function recordNextAttempt(em: EntityManager, deliveryId: string, at: Date): Promise<void> {
  await em.nativeUpdate(WebhookDeliverySchema, { id: deliveryId, state: 'pending' }, { nextAttemptAt: at });
}

/** Ends a pending delivery; one that has already ended is left as it is. */
export async function finishDelivery(
  em: EntityManager,
  deliveryId: string,
  state: UndeliveredState,
  now: Date,
): Promise<void> {
  await em.nativeUpdate(
    WebhookDeliverySchema,
    { id: deliveryId, state: 'pending' },
    { state, completedAt: now, nextAttemptAt: null },
  );
}

/** The pending deliveries of one endpoint (but `except`), or of every endpoint of a channel. */
export type PendingDeliveries = { endpointId: string; except?: string } | { channelId: string };

/** Cancels pending deliveries; answers which, so that their workflows can be stopped. */
export async function cancelPendingDeliveryRows(
  em: EntityManager,
  pending: PendingDeliveries,
  now: Date,
): Promise<{ endpointId: string; eventId: string }[]> {
  const [filter, values] =
    'channelId' in pending
      ? ['endpoint_id in (select id from webhook_endpoint where channel_id = ?)', [pending.channelId]]
      : ['endpoint_id = ? and id <> ?', [pending.endpointId, pending.except ?? '']];
  const rows = await em.execute<{ endpoint_id: string; event_id: string }[]>(
    `update webhook_delivery set state = 'cancelled', completed_at = ?, next_attempt_at = null
      where state = 'pending' and ${filter} returning endpoint_id, event_id`,
    [now, ...values],
  );
  return rows.map((row) => ({ endpointId: row.endpoint_id, eventId: row.event_id }));
}

/** A delivery waiting for its next attempt after a failed one, as the sandbox's attempt-now hurries it. */
export interface WaitingDelivery {
  id: string;
  endpointId: string;
  eventId: string;
  attempts: number;
  nextAttemptAt: Date | null;
}

/**
 * Up to `limit` deliveries of the channel's active endpoints (one, given `endpointId`) that failed
 * an attempt and wait for the next, soonest due first: the pending-due index of each endpoint,
 * within the days from `since` (the retry span's).
 */
export async function waitingDeliveries(
  em: EntityManager,
  filter: { channelId: string; endpointId?: string | undefined; since: Date; limit: number },
): Promise<WaitingDelivery[]> {
  const rows = await em.execute<
    { id: string; endpoint_id: string; event_id: string; attempts: number; next_attempt_at: string | null }[]
  >(
    `select d.id, d.endpoint_id, d.event_id, d.attempts, d.next_attempt_at
       from webhook_endpoint e
       join webhook_delivery d on d.endpoint_id = e.id and d.state = 'pending'
      where e.channel_id = ? ${filter.endpointId === undefined ? '' : 'and e.id = ?'} and e.status = 'active'
        and d.attempts > 0 and d.created_at >= ?
      order by coalesce(d.next_attempt_at, d.last_attempt_at, d.created_at), d.id
      limit ?`,
    [filter.channelId, ...(filter.endpointId === undefined ? [] : [filter.endpointId]), filter.since, filter.limit],
  );
  return rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at === null ? null : new Date(row.next_attempt_at),
  }));
}
