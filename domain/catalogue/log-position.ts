/**
 * Whether the event log being read is the log an event cursor was issued from.
 *
 * A channel's log positions are taken one after the other under the channel's lock (no gaps), and
 * events are dropped only by retention, oldest first (their stamps grow with their positions). A
 * restore from a backup makes the log end earlier and hands the positions after its end out again
 * to new events: a cursor from the log before the restore would then silently skip every new
 * event up to its old position. So a cursor carries the id of the event at its position, and the
 * log is asked, in the same statement as the page, what it holds there.
 */

/** What the log holds at and before a cursor's position, read together with the page. */
export interface LogAtPosition {
  /** Position of the channel's last event; 0 for a log never written. */
  end: number;
  /** The kept event with the largest position not past the cursor's; null when none is kept. */
  atOrBefore: { position: number; id: string } | null;
}

/** A cursor's place in the log: its position and, from cursors that carry it, the id of the event there. */
export interface LogPlace {
  position: number;
  eventId?: string | undefined;
}

/**
 * False when the log cannot be the one the cursor read: it ends before the cursor's position; the
 * event there is gone while earlier ones are kept (retention drops the oldest first, so only
 * another log leaves that hole); or another event stands there. True when the event there is the
 * cursor's, for position 0, and when nothing up to the position is kept: retention dropped it. A
 * restore cannot pass for that: its log ends before the position, or events written after the
 * restore fill it, and those are younger than any cursor from before the restore, so they are
 * still kept while that cursor is young enough to be read at all (35 days, checked first).
 * A cursor without an id is checked only for the first two: once new events fill its position
 * again it cannot be told apart.
 */
export function logHoldsPlace(place: LogPlace, log: LogAtPosition): boolean {
  if (place.position > log.end) return false;
  const found = log.atOrBefore;
  if (found === null) return true;
  if (found.position !== place.position) return false;
  return place.eventId === undefined || place.eventId === found.id;
}
