import { z } from 'zod';

export const Instant = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/)
  .meta({ description: 'RFC 3339 UTC instant, whole seconds, ending in Z', example: '2026-11-22T09:30:00Z' });

/**
 * An instant a channel sends (a query or body value), as the catalogue's `updated_since` takes
 * one: any RFC 3339 instant, a fraction or an offset accepted, and one the calendar has (no
 * month 33, no 25:00). `Instant` above describes what the service answers and checks only the
 * shape; a value that only looks like an instant would reach `new Date()` as an Invalid Date.
 * Refused as `invalid_parameters` with the rule code `date_format`.
 */
export const InstantInput = z.iso.datetime({
  offset: true,
  message: 'an RFC 3339 instant such as 2026-11-22T09:30:00Z (a fraction of a second is accepted)',
});

/**
 * A string that must match `pattern`, refused with the rule `code`: the description's `pattern` is
 * the very expression the validator tests, so the two cannot say different things.
 */
export const matching = (pattern: RegExp, code: string, message: string) =>
  z
    .string()
    .refine((text) => pattern.test(text), { message, params: { code } })
    .meta({ pattern: pattern.source });

/**
 * Text a channel sends for people to read (a rejection's explanation, an endpoint's description):
 * no control characters but tab, line feed and carriage return. A NUL cannot even be stored.
 */
export const PlainText = matching(
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /^[^\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]*$/,
  'control_character',
  'plain text without control characters (tab and line breaks allowed)',
);

/**
 * A string a channel reads whose known values are listed, never enforced: every enum is open
 * ("unknown values must be accepted"), so a value added within v1 breaks no client that
 * validates answers against this description.
 */
export const openEnum = (known: readonly string[], description: string) =>
  z.string().meta({
    description: `${description} Open enum: unknown values must be accepted. Known values: ${known.map((value) => `\`${value}\``).join(', ')}.`,
    examples: [...known],
  });
