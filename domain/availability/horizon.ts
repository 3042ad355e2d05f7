import { addDays, localDate } from '../time.ts';
import { HORIZON_NIGHTS } from './nights.ts';

/**
 * The horizon channels read. A roll stores 366 nights (nights.ts, `horizonEnd`); channels are
 * shown exactly 365 of them from the property's today, computed on each read, so the horizon is
 * one query window long: every range the service announces, and the whole horizon, is read with
 * one request (docs/decisions.md, "The published horizon").
 */

/**
 * The `horizon_end` channels read for a property whose local date is `today`: 365 nights after it
 * (the contract's least, and the most one query window spans), never past the nights stored. It
 * moves at the property's local midnight, before the day's roll runs: the night it then adds was
 * stored by the roll the day before (the spare night).
 */
export function publishedHorizonEnd(storedEnd: string, today: string): string {
  const end = addDays(today, HORIZON_NIGHTS);
  return storedEnd < end ? storedEnd : end;
}

/**
 * The parts of `ranges` before `end`: what is announced of nights that changed, the nights from
 * `end` on being stored but not published yet (the roll announces each once it is).
 */
export function rangesBefore(
  ranges: readonly { from: string; to: string }[],
  end: string,
): { from: string; to: string }[] {
  return ranges.flatMap((range) =>
    range.from >= end ? [] : [{ from: range.from, to: range.to < end ? range.to : end }],
  );
}

/**
 * The range a roll for `today` announces to a property whose stored horizon ended at `storedEnd`:
 * the nights published since the previous roll announced its own (that roll's published end is
 * its stored end less the spare night), from the property's today at the earliest, up to today's
 * published end. Null when the property is already rolled for `today`.
 */
export function rolledRange(storedEnd: string, today: string): { from: string; to: string } | null {
  const to = addDays(today, HORIZON_NIGHTS);
  const announced = addDays(storedEnd, -1);
  if (announced >= to) return null;
  return { from: announced > today ? announced : today, to };
}

/**
 * The horizon a listing's window is held to, properties being in zones whose dates differ: the
 * latest today among `zones` and its published `horizon_end` (the latest any property has). A
 * window may end there; each property's own nights stop at its own `horizon_end`. Null without zones.
 */
export function listingHorizon(now: Date, zones: readonly string[]): { today: string; horizonEnd: string } | null {
  let today: string | null = null;
  for (const zone of zones) {
    const date = localDate(now, zone);
    if (today === null || date > today) today = date;
  }
  return today === null ? null : { today, horizonEnd: addDays(today, HORIZON_NIGHTS) };
}
