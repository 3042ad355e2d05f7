import type { EntityManager } from '@mikro-orm/postgresql';
import { context, trace } from '@opentelemetry/api';
import type { Clock } from '../../domain/clock.ts';
import { newExternalId } from '../../domain/catalogue/ids.ts';
import type { EventType } from '../../domain/events.ts';
import { formatTraceparent } from '../../domain/traceparent.ts';
import { EventSchema } from '../entities/index.ts';
import { pgArray } from '../sql.ts';

/**
 * A channel's log row, locked by the current transaction. The lock orders every writer of the
 * channel's view or events, so the stamp and the positions taken under it grow in commit order
 * (test/db/commit-order.test.ts proves it). The stamp grows strictly from one transaction to the
 * next (by a millisecond at least): two writers of one channel never share a stamp, so a change
 * committed after a reader passed a position in `(updated_at, id)` order always sorts after it,
 * whatever its id. The contract writes instants in whole seconds; the milliseconds order rows
 * and cursors and are never served.
 */
export class LockedChannelLog {
  readonly channelId: string;
  /** The stamp of this transaction's changes: later than any earlier transaction's for the channel. */
  readonly stamp: Date;
  readonly #tx: EntityManager;
  #position: number;

  constructor(tx: EntityManager, channelId: string, stamp: Date, position: number) {
    this.#tx = tx;
    this.channelId = channelId;
    this.stamp = stamp;
    this.#position = position;
  }

  /** The position of the channel's last event, counting those appended under this lock. */
  get position(): number {
    return this.#position;
  }

  /**
   * Appends one event at the channel's next position, stamped with the lock's stamp, and returns
   * that position. `data` is given the position (a catalogue event carries it as `version`). The
   * span the write runs in, when tracing is on, is kept as its `traceparent`: the dispatcher
   * continues that trace into the event's deliveries.
   */
  async append(type: EventType, data: (position: number) => Record<string, unknown>, clock: Clock): Promise<number> {
    const position = this.#position + 1;
    await this.#tx.execute(
      'insert into event (channel_id, position, id, type, occurred_at, data, traceparent) values (?, ?, ?, ?, ?, ?::json, ?)',
      [
        this.channelId,
        position,
        newExternalId('event', clock.now().getTime()),
        type,
        this.stamp,
        JSON.stringify(data(position)),
        activeTraceparent(),
      ],
    );
    this.#position = position;
    return position;
  }
}

/** The active span's `traceparent`; null without one (always, when tracing is off: no SDK, no span). */
function activeTraceparent(): string | null {
  const span = trace.getSpanContext(context.active());
  return span && trace.isSpanContextValid(span) ? formatTraceparent(span) : null;
}

/**
 * Takes the channel's log row lock for the rest of the transaction, then runs `work` with it and
 * records the last position of the events it appended. Every writer of a channel's view or events
 * goes through here before reading what it will change; `now` is the stamp it would like, raised
 * to the channel's last one.
 */
export async function withChannelLog<T>(
  tx: EntityManager,
  channelId: string,
  now: Date,
  work: (log: LockedChannelLog) => Promise<T>,
): Promise<T> {
  // A transaction's first lock of the channel stamps at least a millisecond past the channel's
  // last stamp; its later locks (one per property a roll announces, say) keep the stamp, so a big
  // transaction does not run the stamps ahead of the clock.
  const [row] = await tx.execute<{ last_stamp: string; last_position: string }[]>(
    `insert into channel_log (channel_id, last_stamp, last_position, last_xact) values (?, ?, 0, pg_current_xact_id())
     on conflict (channel_id) do update set
       last_stamp = greatest(
         case when channel_log.last_xact = pg_current_xact_id() then channel_log.last_stamp
              else channel_log.last_stamp + interval '1 millisecond' end,
         excluded.last_stamp),
       last_xact = pg_current_xact_id()
     returning last_stamp, last_position`,
    [channelId, now],
  );
  const start = Number(row!.last_position);
  const log = new LockedChannelLog(tx, channelId, new Date(row!.last_stamp), start);
  const result = await work(log);
  if (log.position !== start)
    await tx.execute('update channel_log set last_position = ? where channel_id = ?', [log.position, channelId]);
  return result;
}

/** Moves the channels' last stamps up to `stamp`; only for channels whose log this transaction holds locked. */
export async function raiseLogStamps(tx: EntityManager, channelIds: readonly string[], stamp: Date): Promise<void> {
  if (channelIds.length === 0) return;
  await tx.execute('update channel_log set last_stamp = greatest(last_stamp, ?) where channel_id = any(?::uuid[])', [
    stamp,
    pgArray(channelIds),
  ]);
}

/** Events of every channel (the demo seed reports how many a run wrote). */
export function countEvents(em: EntityManager): Promise<number> {
  return em.count(EventSchema);
}
