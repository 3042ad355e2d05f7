import { z } from 'zod';
import { Instant, openEnum } from './common.ts';

/**
 * The pieces every record of the distribution interface's reads shares (status, version, time
 * stamps, money, the tombstone and the page around a list), for the OpenAPI description only.
 */

export const Status = openEnum(
  ['active', 'inactive', 'withdrawn', 'deleted'],
  'Resource status. A full record is `active` or `inactive`; `withdrawn` and `deleted` come only as a tombstone.',
);

export const Version = z.int().min(1).meta({
  description:
    'Grows on every change visible to the channel; not a counter. Apply a resource only when its version is higher than the one held.',
});

export const UpdatedAt = Instant.meta({
  description: 'Instant of the last change visible to the channel.',
  example: '2026-11-22T09:30:00Z',
});

export const TimeOfDay = z
  .string()
  .regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/)
  .meta({ description: 'Local time of day, `HH:MM`.', example: '15:00' });

export const LocalDate = z.iso.date().meta({ description: 'Local date, `YYYY-MM-DD`.' });

export const CountryCode = z.string().meta({ description: 'ISO 3166-1 alpha-2 country code.', example: 'RO' });

export const CurrencyCode = z.string().meta({ description: 'ISO 4217 currency code.', example: 'RON' });

export const TimeZone = z.string().meta({ description: 'IANA time zone name.', example: 'Europe/Bucharest' });

export const Checksum = z.string().meta({ description: '`sha256:` followed by 64 lowercase hex digits.' });

export const LanguageTag = z.string().meta({ description: 'BCP 47 language tag.', example: 'ro' });

export const TextMap = z.record(z.string(), z.string()).meta({
  id: 'TextMap',
  description:
    "BCP 47 language tag → plain text (no HTML, links, e-mail addresses or phone numbers; the service refuses host text that breaks these with a heuristic filter, which also reads look-alike spellings such as full-width or other-script digits and zero-width characters, so a channel that must be certain still checks). Always contains the source language: `ro` in Romania, the property's own language elsewhere; other languages appear once the host has written them.",
  example: { ro: 'Apartament cu vedere la mare', en: 'Apartment with sea view' },
});

export const Money = z
  .object({
    amount: z.int().min(0).meta({ description: 'Integer in ISO 4217 minor units of `currency`.' }),
    currency: CurrencyCode,
  })
  .meta({ id: 'Money', description: 'An amount of money.' });

export const Tombstone = z
  .object({
    id: z.string().meta({ description: "The resource's id (an amenity's code for an amenity)." }),
    status: Status.meta({
      description:
        '`withdrawn` (may come back under the same id with a higher version) or `deleted` (final; the id is never used again). Open enum: unknown values must be accepted.',
      examples: ['withdrawn', 'deleted'],
    }),
    version: Version,
    updated_at: UpdatedAt,
  })
  .strict()
  .meta({
    id: 'Tombstone',
    description:
      'A `withdrawn` or `deleted` resource is exactly `{id, status, version, updated_at}` and nothing else, on every resource.',
  });

export const page = <T extends z.ZodType>(item: T, id: string, description: string) =>
  z
    .object({
      data: z.array(item),
      next_cursor: z
        .string()
        .nullable()
        .meta({ description: 'Cursor of the next page, bound to the query that produced it; null at the end.' }),
    })
    .meta({ id, description });
