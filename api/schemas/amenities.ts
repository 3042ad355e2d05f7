import { z } from 'zod';
import { AMENITY_CODE_PATTERN } from '../../domain/catalogue/amenities.ts';
import { Status, TextMap, Tombstone, UpdatedAt, Version, page } from './records.ts';

/** The amenity list's records, for the OpenAPI description only. */

const OtaCode = z.object({
  list: z.string().meta({
    description:
      'OpenTravel code list: `HAC` (Hotel Amenity Code) or `RMA` (Room Amenity Type). Open enum: unknown values must be accepted.',
    examples: ['HAC', 'RMA'],
  }),
  code: z.int().meta({ description: 'Code in that list.' }),
});

export const Amenity = z
  .object({
    id: z.string().regex(AMENITY_CODE_PATTERN).meta({ description: 'Equal to `code`.' }),
    status: Status,
    version: Version,
    updated_at: UpdatedAt,
    code: z
      .string()
      .regex(AMENITY_CODE_PATTERN)
      .meta({ description: 'Lowercase word; never renamed or reused.', example: 'wifi' }),
    category: z.string().meta({
      description: 'For example `internet`, `kitchen`, `outdoor`.',
      examples: ['general', 'internet', 'parking', 'kitchen'],
    }),
    name: TextMap,
    ota_code: OtaCode.nullable().meta({
      description: 'First of `ota_codes` (HAC preferred); null when there is no exact OpenTravel equivalent.',
    }),
    ota_codes: z.array(OtaCode).meta({ description: 'Exact OpenTravel equivalents only.' }),
  })
  .meta({
    id: 'Amenity',
    description:
      'An amenity of the catalogue. A release that changes its name, category or OTA codes gives it a higher `version` and `updated_at` (`amenity.updated`); a retired one appears as a `deleted` Tombstone in a change listing (`amenity.deleted`).',
  });

export const AmenityPage = page(
  z.union([Amenity, Tombstone]),
  'AmenityPage',
  'A page of amenities; tombstones appear only with `updated_since`.',
);
