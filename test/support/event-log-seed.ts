import type { MikroORM } from '@mikro-orm/postgresql';
import { newExternalId } from '../../domain/catalogue/ids.ts';
import type { EventType } from '../../domain/events.ts';
import { pgArray } from '../../db/sql.ts';
import { availabilityDataSql, catalogueDataSql, externalIdSql, literal, stampSql } from '../../bench/log-rows.ts';

/**
 * Appends many events to a channel's log in one statement, as the service's writers would have
 * written them (db/catalogue/channel-log.ts): the same `event` rows (positions following the
 * channel's last, `evt_` ids from the clock, the JSON a writer gives, in SQL from
 * bench/log-rows.ts, which `bench:scale` loads its logs with), stamps taken the way
 * `withChannelLog` takes them (a transaction's stamp at least a millisecond past the channel's
 * last, every event of one transaction on the same stamp), and the channel's log row moved to
 * the last position and stamp. For logs far larger than a test can write through the platform.
 */
export interface EventBlock {
  type: EventType;
  count: number;
  /**
   * The clock's instant when the block was written (the ids' time, and the stamp unless the log's
   * last is later). `availability.updated` events are the daily roll's, announcing each property's
   * new last night in one transaction (every event on one stamp); any other type's are platform
   * writes, one transaction each (each a millisecond after the last).
   */
  at: Date;
  /** The properties the events name; each event names the next one, round the list. */
  properties: readonly string[];
}

/** Positions of the first and last event appended. */
export interface AppendedRange {
  first: number;
  last: number;
}

const DAY_MS = 86_400_000;
const utcDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export async function appendEvents(orm: MikroORM, channelId: string, block: EventBlock): Promise<AppendedRange> {
  const em = orm.em.fork();
  const range = await em.transactional(async (tx) => {
    const [log] = await tx.execute<{ last_stamp: string; last_position: string }[]>(
      'select last_stamp, last_position from channel_log where channel_id = ? for update',
      [channelId],
    );
    if (!log) throw new Error(`appendEvents: channel ${channelId} has no log yet`);
    const start = Number(log.last_position);
    const at = block.at.getTime();
    const first = Math.max(new Date(log.last_stamp).getTime() + 1, at);
    const oneTransaction = block.type === 'availability.updated';
    const property = `(?::text[])[((i - 1) % ${block.properties.length}) + 1]`;
    const position = `(${start} + i)`;
    // The roll's announcement of a property's new last night: that night alone.
    const data = oneTransaction
      ? availabilityDataSql(property, literal(utcDate(at + 365 * DAY_MS)), literal(utcDate(at + 366 * DAY_MS)))
      : catalogueDataSql('property', property, position);
    const stamp = oneTransaction ? `${first}` : `(${first} + i - 1)`;
    await tx.execute(
      `insert into event (channel_id, position, id, type, occurred_at, data, traceparent)
       select ?, ${position}, ${externalIdSql('event', `${at}`, `? || '/' || ${position}`)}, ?, ${stampSql(stamp)}, (${data})::json, null
         from generate_series(1, ?::int) as i`,
      [channelId, channelId, block.type, pgArray(block.properties), block.count],
    );
    const last = oneTransaction ? first : first + block.count - 1;
    await tx.execute('update channel_log set last_position = ?, last_stamp = ? where channel_id = ?', [
      start + block.count,
      new Date(last),
      channelId,
    ]);
    return { first: start + 1, last: start + block.count };
  });
  // What autovacuum does after a load of this size (more than a tenth of the table): the planner
  // then knows the log's size, as it does in service.
  await em.execute('analyze event');
  return range;
}

/** `count` property ids of the channel's kind, for events naming properties the test did not create one by one. */
export function propertyIds(count: number, at: Date): string[] {
  return Array.from({ length: count }, () => newExternalId('property', at.getTime()));
}
