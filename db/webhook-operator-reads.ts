import type { EntityManager } from '@mikro-orm/postgresql';
import type { DeliveryWorkflowState, EndpointStatus, SuspensionReason } from '../domain/webhooks/states.ts';

// The operator CLI's reads of deliveries and attempts (`delivery list`, `endpoint health`), across
// channels. The channel's own reads are in webhook-deliveries.ts.

/**
 * A delivery's state in the words of its workflow's `SvcState`, from its row: `pending` before
 * its first attempt, `retrying` after a failed one, `gone` when it failed on a 410 (its last
 * attempt's status), else its stored state. `d` is the delivery, `a` its last attempt.
 */
const STATE_WORD = `case
    when d.state = 'pending' and d.attempts = 0 then 'pending'
    when d.state = 'pending' then 'retrying'
    when d.state = 'failed' and a.status_code = 410 then 'gone'
    else d.state::text end`;

/** An attempt that delivered: a 2xx answer (`outcomeOf`, domain/webhooks/deliveries.ts). */
const DELIVERED = 'a.status_code between 200 and 299';

/** A delivery as an operator lists it. */
export interface OperatorDelivery {
  id: string;
  state: DeliveryWorkflowState;
  channel: string;
  endpointId: string;
  endpointUrl: string;
  eventId: string;
  eventType: string;
  attempts: number;
  createdAt: Date;
  lastAttemptAt: Date | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  /** The last attempt's status code (null: no answer) and failure reason (null: delivered). */
  lastAttempt: { statusCode: number | null; error: string | null } | null;
}

interface OperatorDeliveryRow {
  id: string;
  state: DeliveryWorkflowState;
  channel: string;
  endpoint_id: string;
  url: string;
  event_id: string;
  event_type: string;
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  next_attempt_at: string | null;
  completed_at: string | null;
  last_number: number | null;
  last_status_code: number | null;
  last_error: string | null;
}

const instantOrNull = (value: string | null) => (value === null ? null : new Date(value));

export interface OperatorDeliveryFilter {
  /** Created at or after this instant. */
  since: Date;
  /** At least one word. */
  states: readonly DeliveryWorkflowState[];
  channelName?: string | undefined;
  endpointId?: string | undefined;
  limit: number;
}

const SELECT_DELIVERIES = `select d.id, ${STATE_WORD} as state, c.name as channel, d.endpoint_id, e.url, d.event_id,
         d.event_type, d.attempts, d.created_at, d.last_attempt_at, d.next_attempt_at, d.completed_at,
         a.number as last_number, a.status_code as last_status_code, a.error as last_error
    from webhook_delivery d
    join webhook_endpoint e on e.id = d.endpoint_id
    join channel c on c.id = e.channel_id
    left join webhook_attempt a on a.delivery_id = d.id and a.number = d.attempts`;

function deliveryFromRow(row: OperatorDeliveryRow): OperatorDelivery {
  return {
    id: row.id,
    state: row.state,
    channel: row.channel,
    endpointId: row.endpoint_id,
    endpointUrl: row.url,
    eventId: row.event_id,
    eventType: row.event_type,
    attempts: row.attempts,
    createdAt: new Date(row.created_at),
    lastAttemptAt: instantOrNull(row.last_attempt_at),
    nextAttemptAt: instantOrNull(row.next_attempt_at),
    completedAt: instantOrNull(row.completed_at),
    lastAttempt: row.last_number === null ? null : { statusCode: row.last_status_code, error: row.last_error },
  };
}

/**
 * Up to `limit` deliveries matching the filter, newest first. Bounded: the `created_at` index (or
 * `(endpoint_id, created_at)` with an endpoint) is walked back from now to `since` at most, each
 * delivery's last attempt found by its primary key.
 */
export async function operatorDeliveries(
  em: EntityManager,
  filter: OperatorDeliveryFilter,
): Promise<OperatorDelivery[]> {
  const rows = await em.execute<OperatorDeliveryRow[]>(
    `${SELECT_DELIVERIES}
      where d.created_at >= ?
        ${filter.channelName === undefined ? '' : 'and c.name = ?'}
        ${filter.endpointId === undefined ? '' : 'and d.endpoint_id = ?'}
        and ${STATE_WORD} in (${filter.states.map(() => '?').join(', ')})
      order by d.created_at desc, d.id desc
      limit ?`,
    [
      filter.since,
      ...(filter.channelName === undefined ? [] : [filter.channelName]),
      ...(filter.endpointId === undefined ? [] : [filter.endpointId]),
      ...filter.states,
      filter.limit,
    ],
  );
  return rows.map(deliveryFromRow);
}

/** One delivery as an operator lists it, for `delivery retry`. */
export async function operatorDelivery(em: EntityManager, id: string): Promise<OperatorDelivery | null> {
  const [row] = await em.execute<OperatorDeliveryRow[]>(`${SELECT_DELIVERIES} where d.id = ?`, [id]);
  return row ? deliveryFromRow(row) : null;
}

/** An endpoint as `endpoint health` names it. */
export interface OperatorEndpoint {
  id: string;
  channel: string;
  url: string;
  status: EndpointStatus;
  suspendedReason: SuspensionReason | null;
}

export async function operatorEndpoint(em: EntityManager, id: string): Promise<OperatorEndpoint | null> {
  const [row] = await em.execute<
    { id: string; channel: string; url: string; status: EndpointStatus; suspended_reason: SuspensionReason | null }[]
  >(
    `select e.id, c.name as channel, e.url, e.status, e.suspended_reason
       from webhook_endpoint e join channel c on c.id = e.channel_id where e.id = ?`,
    [id],
  );
  return row
    ? { id: row.id, channel: row.channel, url: row.url, status: row.status, suspendedReason: row.suspended_reason }
    : null;
}

/** Attempts in a window: how many, how many delivered (a 2xx answer, as `outcomeOf`), and the last that did. */
export interface AttemptWindow {
  attempts: number;
  delivered: number;
  lastDeliveredAt: Date | null;
}

/**
 * An endpoint's attempts since each of the instants `since` (one window each). Attempts are found
 * through the endpoint's deliveries created since `createdSince` (the `(endpoint_id, created_at)`
 * index), each delivery's attempts by its primary key: the caller bounds the walk by how long
 * after its creation a delivery can still be attempted.
 */
export async function attemptWindows(
  em: EntityManager,
  endpointId: string,
  createdSince: Date,
  since: readonly Date[],
): Promise<AttemptWindow[]> {
  const earliest = new Date(Math.min(...since.map((d) => d.getTime())));
  const columns = since
    .map(
      (_, i) => `count(*) filter (where a.attempted_at >= ?) as attempts_${i},
         count(*) filter (where a.attempted_at >= ? and ${DELIVERED}) as delivered_${i},
         max(a.attempted_at) filter (where a.attempted_at >= ? and ${DELIVERED}) as last_${i}`,
    )
    .join(', ');
  const [row] = await em.execute<Record<string, string | null>[]>(
    `select ${columns}
       from webhook_delivery d join webhook_attempt a on a.delivery_id = d.id
      where d.endpoint_id = ? and d.created_at >= ? and a.attempted_at >= ?`,
    [...since.flatMap((at) => [at, at, at]), endpointId, createdSince, earliest],
  );
  return since.map((_, i) => ({
    attempts: Number(row?.[`attempts_${i}`] ?? 0),
    delivered: Number(row?.[`delivered_${i}`] ?? 0),
    lastDeliveredAt: instantOrNull(row?.[`last_${i}`] ?? null),
  }));
}
