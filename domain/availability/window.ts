import { addDays } from '../time.ts';
import { daysBetween, MAX_WINDOW_NIGHTS } from './nights.ts';

/** The nights a query asks of one property: `from` inclusive, `to` exclusive. */
export interface NightWindow {
  from: string;
  to: string;
}

/**
 * One property's window for a query's `from` and `to` (either may be absent), given its today and
 * `horizon_end`. Nights before its today are not kept, so the window starts there at the
 * earliest. Without `to` it ends 365 nights after its start, or at `horizon_end` if sooner. With
 * `to` alone it is the (at most) 365 nights before `to`: the query window never passes 365
 * nights, and `to=horizon_end` reaches the horizon's last night, which a window from today
 * (366 nights before `horizon_end` once the day's roll ran) leaves out.
 */
export function propertyWindow(
  query: { from?: string | undefined; to?: string | undefined },
  today: string,
  horizonEnd: string,
): NightWindow {
  if (query.to !== undefined && query.from === undefined) {
    const earliest = addDays(query.to, -MAX_WINDOW_NIGHTS);
    return { from: earliest > today ? earliest : today, to: query.to };
  }
  const from = query.from !== undefined && query.from > today ? query.from : today;
  if (query.to !== undefined) return { from, to: query.to };
  return {
    from,
    to: daysBetween(from, horizonEnd) > MAX_WINDOW_NIGHTS ? addDays(from, MAX_WINDOW_NIGHTS) : horizonEnd,
  };
}

/** Nights of a window; none when it ends before it starts. */
export function windowNights(window: NightWindow): number {
  return Math.max(0, daysBetween(window.from, window.to));
}
