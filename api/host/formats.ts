import type { HostLocale } from '../../domain/host-locale.ts';

/**
 * Numbers, dates and instants as a host reads them, by the CLDR rules Node's ICU carries: the
 * grouping of each language (5,947 / 5.947 / 5947), its month names, and plural categories.
 */

/** The Intl locale of each page language (British English: day before month, 24-hour clock). */
const INTL_LOCALE: Record<HostLocale, string> = { en: 'en-GB', ro: 'ro-RO', it: 'it-IT', es: 'es-ES' };

const numberFormats = new Map<HostLocale, Intl.NumberFormat>();
const pluralRules = new Map<HostLocale, Intl.PluralRules>();

export function formatNumber(locale: HostLocale, value: number): string {
  let format = numberFormats.get(locale);
  if (!format) numberFormats.set(locale, (format = new Intl.NumberFormat(INTL_LOCALE[locale])));
  return format.format(value);
}

export function pluralCategory(locale: HostLocale, value: number): Intl.LDMLPluralRule {
  let rules = pluralRules.get(locale);
  if (!rules) pluralRules.set(locale, (rules = new Intl.PluralRules(INTL_LOCALE[locale])));
  return rules.select(value);
}

/**
 * An instant at the place it concerns, its zone named (`22 Nov 2026, 14:05 (Europe/Bucharest)`):
 * a host reads a property's times on the property's clock, whatever zone the browser is in.
 */
/**
 * Building a DateTimeFormat costs far more than formatting with one, and a page formats several
 * instants per property; one is kept per language and zone (a zone ICU does not know is
 * remembered as such).
 */
const instantFormats = new Map<string, Intl.DateTimeFormat | null>();
const dateFormats = new Map<HostLocale, Intl.DateTimeFormat>();

function instantFormat(locale: HostLocale, timeZone: string): Intl.DateTimeFormat | null {
  const key = `${locale} ${timeZone}`;
  let format = instantFormats.get(key);
  if (format === undefined) {
    try {
      format = new Intl.DateTimeFormat(INTL_LOCALE[locale], { dateStyle: 'medium', timeStyle: 'short', timeZone });
    } catch {
      format = null;
    }
    // Zones come from stored locations; the bound only guards against a flood of odd ones.
    if (instantFormats.size >= 1024) instantFormats.clear();
    instantFormats.set(key, format);
  }
  return format;
}

export function formatInstant(locale: HostLocale, instant: string, timeZone: string): string {
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return instant;
  const format = instantFormat(locale, timeZone);
  // A zone this ICU does not know: the instant is still right in UTC, and says so.
  if (format === null) return formatInstant(locale, instant, 'UTC');
  return `${format.format(date)} (${timeZone})`;
}

/** A local date (YYYY-MM-DD) as the host reads it. */
export function formatDate(locale: HostLocale, date: string): string {
  const at = new Date(`${date}T12:00:00Z`);
  if (Number.isNaN(at.getTime())) return date;
  let format = dateFormats.get(locale);
  if (!format)
    dateFormats.set(
      locale,
      (format = new Intl.DateTimeFormat(INTL_LOCALE[locale], { dateStyle: 'medium', timeZone: 'UTC' })),
    );
  return format.format(at);
}
