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
 * and the age of the first of them (0 when none waits). The first is found on the event table's
 * primary key (channel, position).
 */
export async function dispatchLag(em: EntityManager, now: Date): Promise<ChannelDispatchLag[]> {
  const rows = await em.execute<{ channel: string; undispatched: string; oldest: string | null }[]>(
    `select c.name as channel,
            greatest(l.last_position - d.position, 0) as undispatched,
            (select e.occurred_at from event e where e.channel_id = d.channel_id and e.position > d.position order by e.position limit 1) as oldest
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
