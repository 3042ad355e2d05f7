/** RFC 3339 UTC with whole seconds and `Z`, as the contract writes every instant. */
export function toInstant(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

/** A timestamptz as PostgreSQL writes it in UTC: `YYYY-MM-DD HH:MM:SS`, maybe a fraction, `+00`. */
const POSTGRES_UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?\+00$/;

/**
 * `toInstant` of a timestamptz read as text: sliced when PostgreSQL wrote it in UTC, with no Date
 * parsed on the way (a list page presents a hundred); any other text goes through a Date.
 */
export function instantOfTimestamp(text: string): string {
  return POSTGRES_UTC.test(text) ? `${text.slice(0, 10)}T${text.slice(11, 19)}Z` : toInstant(new Date(text));
}

/** The calendar date (`YYYY-MM-DD`) of an instant in an IANA time zone. */
export function localDate(instant: Date, timeZone: string): string {
  let format = DATE_FORMATS.get(timeZone);
  if (!format) {
    // en-CA formats dates as YYYY-MM-DD.
    format = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    DATE_FORMATS.set(timeZone, format);
  }
  return format.format(instant);
}

/** Building a formatter costs far more than using one. */
const DATE_FORMATS = new Map<string, Intl.DateTimeFormat>();

/** The instant truncated to whole seconds: the resolution of every instant the contract writes. */
export function wholeSeconds(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / 1000) * 1000);
}

/** The calendar date `days` after `date` (`YYYY-MM-DD`; negative goes back). */
export function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}
