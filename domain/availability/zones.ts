import { addDays, localDate } from '../time.ts';

/**
 * Local dates and midnights in IANA zones, with Intl only (no Node built-ins), so the horizon
 * roll's workflow can compute when to wake.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's wall-clock time of an instant, read as if it were UTC, in ms. */
function wallClockMs(instant: number, zone: string): number {
  const parts = Object.fromEntries(
    formatter(zone)
      .formatToParts(new Date(instant))
      .map((p) => [p.type, p.value]),
  );
  return Date.UTC(
    Number(parts.year),
    Number(parts.month) - 1,
    Number(parts.day),
    Number(parts.hour),
    Number(parts.minute),
    Number(parts.second),
  );
}

export function zonedDate(instant: number, zone: string): string {
  return localDate(new Date(instant), zone);
}

/** Offset of the zone from UTC at an instant, in ms (east positive). */
function offsetAt(instant: number, zone: string): number {
  return wallClockMs(instant, zone) - Math.floor(instant / 1000) * 1000;
}

/**
 * The first instant of the local date `date` in `zone`: local midnight, or the first instant after
 * it where a daylight-saving jump skips midnight.
 */
export function startOfLocalDay(date: string, zone: string): number {
  const wall = Date.parse(`${date}T00:00:00Z`);
  let candidate = wall - offsetAt(wall, zone);
  candidate = wall - offsetAt(candidate, zone);
  // A zone whose clocks jump over midnight: the day starts at the jump.
  while (zonedDate(candidate, zone) < date) candidate += 15 * 60_000;
  while (zonedDate(candidate - 60_000, zone) === date) candidate -= 60_000;
  return candidate;
}

/** The next local midnight strictly after `instant`. */
export function nextLocalMidnight(instant: number, zone: string): number {
  return startOfLocalDay(addDays(zonedDate(instant, zone), 1), zone);
}
