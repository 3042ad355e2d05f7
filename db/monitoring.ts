import type { EntityManager } from '@mikro-orm/postgresql';

// What the metrics read at scrape time. Each statement is bounded: one row per channel that has
// webhooks (at most MAX_CHANNELS), each found by primary key or index.

const MAX_CHANNELS = 1000;

/** How far one channel's webhook dispatch lags behind its log. */
export interface ChannelDispatchLag {
  channel: string;
  undispatched: number;
  oldestSeconds: number;
}

/**
 * Per channel the dispatcher follows: events its log holds past the dispatcher's stored progress,
 * and the age of the first of them (0 when none waits). The first is found on each day's primary
 * key (channel, position), from the day of the last event dispatched.
 */
export async function dispatchLag(em: EntityManager, now: Date): Promise<ChannelDispatchLag[]> {
  const rows = await em.execute<{ channel: string; undispatched: string; oldest: string | null }[]>(
    `select c.name as channel,
            greatest(l.last_position - d.position, 0) as undispatched,
            (select e.occurred_at from event e
              where e.channel_id = d.channel_id and e.position > d.position
                and e.occurred_at >= coalesce(d.stamp, '-infinity')
              order by e.position limit 1) as oldest
       from dispatch_progress d
       join channel c on c.id = d.channel_id
       join channel_log l on l.channel_id = d.channel_id
      order by c.name
      limit ${MAX_CHANNELS}`,
  );
  return rows.map((row) => ({
    channel: row.channel,
    undispatched: Number(row.undispatched),
    oldestSeconds: row.oldest === null ? 0 : Math.max(0, (now.getTime() - new Date(row.oldest).getTime()) / 1000),
  }));
}

/** How many of a channel's endpoints the service suspended for one reason. */
export interface SuspendedEndpointCount {
  channel: string;
  reason: string;
  count: number;
}

/** Endpoints the service suspended (not those a channel disabled), per channel and reason. */
export async function suspendedEndpoints(em: EntityManager): Promise<SuspendedEndpointCount[]> {
  const rows = await em.execute<{ channel: string; reason: string; count: string }[]>(
    `select c.name as channel, e.suspended_reason as reason, count(*) as count
       from webhook_endpoint e
       join channel c on c.id = e.channel_id
      where e.status = 'inactive' and e.suspended_reason is not null
      group by c.name, e.suspended_reason
      order by c.name
      limit ${MAX_CHANNELS * 2}`,
  );
  return rows.map((row) => ({ channel: row.channel, reason: row.reason, count: Number(row.count) }));
}

/** How overdue the most overdue pending delivery of one channel is. */
export interface ChannelOverdueDeliveries {
  channel: string;
  overdueSeconds: number;
}

/**
 * Per channel with endpoints: how long its most overdue pending delivery has waited past its due
 * time, 0 when none is overdue. A delivery is due at its scheduled retry (`next_attempt_at`), else
 * just after its last attempt (a failed one whose retry is being scheduled), else at its creation
 * by the dispatcher (the first attempt follows at once). One probe per endpoint of the partial
 * index `webhook_delivery_pending_due` (at most 5 endpoints a channel).
 */
export async function overdueDeliveries(em: EntityManager, now: Date): Promise<ChannelOverdueDeliveries[]> {
  const rows = await em.execute<{ channel: string; due: string | null }[]>(
    `select c.name as channel, min(x.due) as due
       from channel c
       join webhook_endpoint e on e.channel_id = c.id
       left join lateral (
         select coalesce(d.next_attempt_at, d.last_attempt_at, d.created_at) as due
           from webhook_delivery d
          where d.endpoint_id = e.id and d.state = 'pending'
          order by coalesce(d.next_attempt_at, d.last_attempt_at, d.created_at)
          limit 1
       ) x on true
      group by c.name
      order by c.name
      limit ${MAX_CHANNELS}`,
  );
  return rows.map((row) => ({
    channel: row.channel,
    overdueSeconds: row.due === null ? 0 : Math.max(0, (now.getTime() - new Date(row.due).getTime()) / 1000),
  }));
}
