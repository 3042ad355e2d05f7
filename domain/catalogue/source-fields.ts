import { z } from 'zod';
import { trimmedText } from '../trimmed-text.ts';
import { isLanguageTag } from './text.ts';

/** The fields the platform's source records share: references, codes, money, names, text maps, time zones. */

export const custom = (code: string, message: string) => ({ message, params: { code } });

export const Ref = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/,
    'a reference is 1-64 characters: letters, digits, `.`, `_`, `:` and `-`, starting with a letter or digit',
  )
  .meta({ description: "The platform's own reference for a record; the path segment of its PUT." });

export const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code in capitals');
export const LanguageTag = z
  .string()
  .refine(isLanguageTag, custom('language_tag', 'a BCP 47 language tag such as `ro` or `en-GB`'));
export const LocalDate = z.iso.date();
export const TimeOfDay = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, custom('time_format', 'a time of day `HH:MM`'));
export const HttpsUrl = z.url({ protocol: /^https$/, hostname: z.regexes.domain }).max(2048);
export const Currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code');
export const Money = z.object({ amount: z.int().min(0).max(100_000_000_00), currency: Currency }).strict();
export const Word = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a lowercase word (letters, digits, underscores)');
export const Name = trimmedText(200);

/**
 * At most this many languages in one text map: with each text at most 10,000 characters, a page of
 * a list is then bounded in bytes, not only in items.
 */
export const MAX_TEXT_LANGUAGES = 30;

/** Shape only; the source language and the text rules are checked against the location's country. */
export const TextMapInput = z
  .record(z.string(), z.string().max(10_000))
  .refine(
    (map) => Object.keys(map).length <= MAX_TEXT_LANGUAGES,
    custom('too_many_languages', `at most ${MAX_TEXT_LANGUAGES} languages`),
  );

export const TimeZone = z.string().refine(
  (zone) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: zone });
      return zone.includes('/') || zone === 'UTC';
    } catch {
      return false;
    }
  },
  custom('time_zone', 'an IANA time zone name such as `Europe/Bucharest`'),
);
