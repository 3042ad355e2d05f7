import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventRow } from './catalogue/reads.ts';
import { channelRecord, type Channel } from './channels.ts';
import { DispatchProgressSchema } from './entities/index.ts';

// How far the dispatcher has turned each channel's event log into deliveries, and the events it
// reads. The deliveries are in webhook-deliveries.ts.

/**
 * Starts dispatching the channel's events at the end of its log, so nothing that happened before
 * its first endpoint was registered is sent. A channel already dispatched keeps its position.
 */
export async function startDispatch(tx: EntityManager, channelId: string): Promise<void> {
  await tx.execute(
    `insert into dispatch_progress (channel_id, position, stamp)
     select ?, coalesce(max(last_position), 0), max(last_stamp) from channel_log where channel_id = ?
     on conflict do nothing`,
    [channelId, channelId],
  );
}

/** Every channel the dispatcher reads, in a stable order, with the position it has reached. */
export async function dispatchPositions(
  em: EntityManager,
): Promise<{ channel: Channel; position: number; stamp: Date | null }[]> {
  const rows = await em.find(DispatchProgressSchema, {}, { populate: ['channel'], orderBy: { channel: 'asc' } });
  return rows.map((row) => ({ channel: channelRecord(row.channel), position: row.position, stamp: row.stamp ?? null }));
}

/** An event of a channel's log, as the dispatcher reads it. */
export interface LogEvent {
  position: number;
  id: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
  /** The W3C `traceparent` of the write that committed it; null when tracing was off. */
  traceparent: string | null;
}

/**
 * Up to `limit` of the channel's events after `position`, in log order; with `stamp` (the stamp of
 * the event at `position`), read from that day on only: the later events are stamped no earlier.
 */
export async function eventsAfter(
  em: EntityManager,
  channelId: string,
  position: number,
  limit: number,
  stamp?: Date | null,
): Promise<LogEvent[]> {
  const since = stamp ? 'and occurred_at >= ?' : '';
  const rows = await em.execute<(EventRow & { traceparent: string | null })[]>(
    `select position, id, type, occurred_at, data, traceparent from event
      where channel_id = ? and position > ? ${since} order by position limit ?`,
    [channelId, position, ...(stamp ? [stamp] : []), limit],
  );
  // position is a bigint, read as text.
  return rows.map((row) => ({
    position: Number(row.position),
    id: row.id,
    type: row.type,
    occurredAt: new Date(row.occurred_at),
    data: row.data,
    traceparent: row.traceparent,
  }));
}

export async function advanceDispatch(
  em: EntityManager,
  channelId: string,
  position: number,
  stamp: Date,
): Promise<void> {
  await em.nativeUpdate(DispatchProgressSchema, { channel: channelId }, { position, stamp });
}
