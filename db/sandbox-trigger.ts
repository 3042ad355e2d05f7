import type { EntityManager } from '@mikro-orm/postgresql';
import type { EventType } from '../domain/events.ts';
import { withChannelLog } from './catalogue/channel-log.ts';
import { pgArray } from './sql.ts';

/**
 * The reads and the one write a sandbox trigger needs beyond the platform's services
 * (services/sandbox-trigger.ts): where a channel's log stands, the events appended after it, the
 * channel's ids of the trigger's records, and an amenity announced to one channel.
 */

/** Where a channel's log stood: its last position and stamp (0 and null for a log never written). */
export interface LogMark {
  position: number;
  stamp: Date | null;
}

export interface LoggedEvent {
  position: number;
  id: string;
  type: string;
  occurredAt: Date;
  data: { object?: string; id?: string; version?: number };
}

/** Events a trigger answers at most: its writes append a handful. */
const MAX_EVENTS = 200;

export async function channelLogMark(em: EntityManager, channelId: string): Promise<LogMark> {
  const [row] = await em.execute<{ last_position: string; last_stamp: string }[]>(
    'select last_position, last_stamp from channel_log where channel_id = ?',
    [channelId],
  );
  return row ? { position: Number(row.last_position), stamp: new Date(row.last_stamp) } : { position: 0, stamp: null };
}

/**
 * The channel's events after `mark`, in order. Each is stamped later than the mark's stamp (the
 * log's stamps grow strictly from one transaction to the next), which keeps the read to the
 * log's last days.
 */
export async function eventsAfter(em: EntityManager, channelId: string, mark: LogMark): Promise<LoggedEvent[]> {
  const rows = await em.execute<
    { position: string; id: string; type: string; occurred_at: string; data: LoggedEvent['data'] }[]
  >(
    `select position, id, type, occurred_at, data from event
      where channel_id = ? and position > ? and occurred_at >= ? order by position limit ?`,
    [channelId, mark.position, mark.stamp ?? new Date(0), MAX_EVENTS],
  );
  return rows.map((row) => ({
    position: Number(row.position),
    id: row.id,
    type: row.type,
    occurredAt: new Date(row.occurred_at),
    data: row.data,
  }));
}

/** The event at the mark's position (the one a cursor from there names), when the log still holds it. */
export async function eventAtMark(
  em: EntityManager,
  channelId: string,
  mark: LogMark,
): Promise<{ id: string; occurredAt: Date } | null> {
  if (mark.position === 0 || mark.stamp === null) return null;
  const [row] = await em.execute<{ id: string; occurred_at: string }[]>(
    'select id, occurred_at from event where channel_id = ? and position = ? and occurred_at <= ?',
    [channelId, mark.position, mark.stamp],
  );
  return row ? { id: row.id, occurredAt: new Date(row.occurred_at) } : null;
}

/** The channel's ids of these source records (property, location, owner), deleted ones included. */
export async function channelIdsOf(em: EntityManager, channelId: string, internalIds: readonly string[]) {
  const rows = await em.execute<{ external_id: string }[]>(
    `select external_id from channel_resource where channel_id = ? and kind in ('property', 'location', 'owner')
        and internal_id = any(?::uuid[])`,
    [channelId, pgArray([...internalIds])],
  );
  return rows.map((row) => row.external_id);
}

/** The first served amenity of this status, by code, with its current version. */
export async function servedAmenityOf(
  em: EntityManager,
  status: 'active' | 'deleted',
): Promise<{ code: string; version: number } | null> {
  const [row] = await em.execute<{ code: string; version: number }[]>(
    'select code, version from amenity_release where status = ? order by code limit 1',
    [status],
  );
  return row ? { code: row.code, version: Number(row.version) } : null;
}

/**
 * A sandbox-only amenity that no release ships and no property names, retired once: a deployment
 * whose releases never retired one still has an `amenity.deleted` to announce. It is listed like
 * any retired amenity (a tombstone, in change listings only), to every channel of the sandbox.
 */
export async function retireSandboxAmenity(em: EntityManager, code: string, now: Date): Promise<void> {
  await em.execute(
    `insert into amenity_release (code, status, version, updated_at, definition) values (?, 'deleted', 2, ?, null)
     on conflict (code) do nothing`,
    [code, now],
  );
}

/**
 * Appends one amenity event to one channel's log, naming the amenity as served now: the channel
 * re-reads `/amenities` and finds that version. The caller commits it and wakes the dispatcher.
 */
export async function announceAmenity(
  tx: EntityManager,
  channelId: string,
  type: Extract<EventType, `amenity.${string}`>,
  amenity: { code: string; version: number },
  now: Date,
): Promise<void> {
  await withChannelLog(tx, channelId, now, (log) =>
    log.append(type, () => ({ object: 'amenity', id: amenity.code, version: amenity.version }), { now: () => now }),
  );
}
