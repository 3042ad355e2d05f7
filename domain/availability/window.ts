import { daysBetween, MAX_WINDOW_NIGHTS } from './nights.ts';

/** The nights a query asks of one property: `from` inclusive, `to` exclusive. */
export interface NightWindow {
  from: string;
  to: string;
}

/** A query's `from` and `to`, either of which may be absent. */
export interface WindowQuery {
  from?: string | undefined;
  to?: string | undefined;
}

const clamp = (date: string, min: string, max: string) => (date < min ? min : date > max ? max : date);

/**
 * One property's window for a query, given its today and its published `horizon_end`: from its
 * today (earlier nights are not kept) or `from` when later, up to `horizon_end` or `to` when
 * sooner. The published horizon is 365 nights, so a window holds at most 365. A property with no
 * night in the query's range has an empty window (`from` equal to `to`), within its horizon.
 */
export function propertyWindow(query: WindowQuery, today: string, horizonEnd: string): NightWindow {
  const to = clamp(query.to ?? horizonEnd, today, horizonEnd);
  return { from: clamp(query.from ?? today, today, to), to };
}

/**
 * Why a window is refused against a horizon (`today` up to `horizonEnd`), or null:
 * `max_nights` when `to` is more than 365 nights after the window's first night (`from`, or
 * `today` when later: nights before it are not kept), else `window_beyond_horizon` when `to` is
 * past `horizonEnd` or `from` at or past it. One property is held to its own today and
 * `horizon_end`; a listing to the latest of its zones (horizon.ts, `listingHorizon`).
 */
export function windowRefusal(
  query: WindowQuery,
  today: string,
  horizonEnd: string,
): 'max_nights' | 'window_beyond_horizon' | null {
  const first = query.from !== undefined && query.from > today ? query.from : today;
  if (query.to !== undefined && daysBetween(first, query.to) > MAX_WINDOW_NIGHTS) return 'max_nights';
  if ((query.to !== undefined && query.to > horizonEnd) || first >= horizonEnd) return 'window_beyond_horizon';
  return null;
}

/** Nights of a window; none when it ends before it starts. */
export function windowNights(window: NightWindow): number {
  return Math.max(0, daysBetween(window.from, window.to));
}
