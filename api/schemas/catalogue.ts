import { z } from 'zod';
import { DEFAULT_PRECISION_M, PRECISION_RADII } from '../../domain/catalogue/geo.ts';
import { ID_PATTERNS } from '../../domain/catalogue/ids.ts';
import { Instant, openEnum } from './common.ts';
import {
  Checksum,
  CountryCode,
  CurrencyCode,
  LanguageTag,
  LocalDate,
  Money,
  Status,
  TextMap,
  TimeOfDay,
  TimeZone,
  Tombstone,
  UpdatedAt,
  Version,
  page,
} from './records.ts';

/**
 * Response bodies of the catalogue reads of the distribution interface, for the OpenAPI
 * description only. They follow the bodies built in domain/catalogue/projection.ts (stamped by
 * `presentResource`). Every enum is open ("unknown values must be accepted"), so known values are
 * documented, never enforced.
 */

// --- Location -----------------------------------------------------------------------------

export const Location = z
  .object({
    id: z.string().regex(ID_PATTERNS.location).meta({ description: '`loc_` id, specific to the channel.' }),
    status: Status.meta({
      description:
        '`active` or `inactive`: the strongest status among the properties naming the location. Open enum: unknown values must be accepted.',
      examples: ['active', 'inactive'],
    }),
    version: Version,
    updated_at: UpdatedAt,
    name: z.string(),
    category: z.string().meta({
      description: 'For example `building`, `guesthouse`, `house`, `resort`.',
      examples: ['building', 'guesthouse', 'house', 'resort'],
    }),
    address_visibility: openEnum(
      ['exact', 'approximate'],
      'With `approximate` (the default for an individual owner) the address carries no street, number, building or postal code, and `geo` is a displaced point within `geo.precision_m` metres.',
    ),
    address: z
      .object({
        country: CountryCode,
        region: z.string().optional(),
        city: z.string(),
        street: z.string().optional().meta({ description: 'Only when the address is exact.' }),
        number: z.string().optional().meta({ description: 'Only when the address is exact.' }),
        building: z.string().optional().meta({ description: 'Only when the address is exact.' }),
        postal_code: z.string().optional().meta({ description: 'Only when the address is exact.' }),
      })
      .meta({ description: 'The exact address is never sent while the location is approximate.' }),
    geo: z
      .object({
        lat: z.number().min(-90).max(90),
        lng: z.number().min(-180).max(180),
        precision_m: z
          .int()
          .optional()
          .meta({
            description: `Radius in metres, present only when the address is approximate: ${PRECISION_RADII.map((r) =>
              r === DEFAULT_PRECISION_M ? `${r} (default)` : `${r}`,
            )
              .slice(0, -1)
              .join(', ')} or ${PRECISION_RADII.at(-1)}. For a given radius the point is the same on every read.`,
            examples: [...PRECISION_RADII],
          }),
      })
      .meta({ description: 'The exact point, or a displaced one when approximate.' }),
    timezone: TimeZone,
  })
  .meta({
    id: 'Location',
    description: 'A location as the channel sees it; withdrawn or deleted ones come as a Tombstone.',
  });

export const LocationPage = page(
  z.union([Location, Tombstone]),
  'LocationPage',
  'A page of locations; tombstones appear only with `updated_since`.',
);

// --- Owner --------------------------------------------------------------------------------

export const Owner = z
  .object({
    id: z.string().regex(ID_PATTERNS.owner).meta({ description: '`own_` id, specific to the channel.' }),
    status: Status.meta({
      description:
        '`active` or `inactive`: the strongest status of its published properties. Open enum: unknown values must be accepted.',
      examples: ['active', 'inactive'],
    }),
    version: Version,
    updated_at: UpdatedAt,
    type: openEnum(
      ['company', 'individual'],
      'Owner kind; any value other than `company` is treated as an individual.',
    ),
    display_name: z.string(),
    legal_form: z.string().nullable().meta({ description: 'Legal form; null when not given.' }),
    company: z
      .object({
        legal_name: z.string(),
        tax_id: z.string(),
        trade_register_no: z.string().nullable(),
        registered_office: z.object({
          street: z.string(),
          number: z.string().optional(),
          building: z.string().optional(),
          city: z.string(),
          county: z.string().optional(),
          postal_code: z.string().optional(),
          country: CountryCode,
        }),
      })
      .nullable()
      .meta({ description: 'Company details; null for an owner without them (a company owner always has them).' }),
    languages: z.array(LanguageTag).meta({ description: 'Languages the owner speaks.' }),
    logo: z
      .object({
        url: z.string().meta({ description: 'HTTPS URL.' }),
        content_type: openEnum(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml'], 'Media type.'),
        checksum: Checksum,
        width: z.int().min(1),
        height: z.int().min(1),
      })
      .nullable(),
    connected_at: Instant.nullable().meta({
      description: 'When the owner connected an account on the channel; null when not connected.',
    }),
  })
  .meta({
    id: 'Owner',
    description: 'An owner as the channel sees it; withdrawn or deleted ones come as a Tombstone.',
  });

export const OwnerPage = page(
  z.union([Owner, Tombstone]),
  'OwnerPage',
  'A page of owners; tombstones appear only with `updated_since`.',
);

// --- Property -----------------------------------------------------------------------------

const Photo = z.object({
  id: z.string().regex(ID_PATTERNS.photo).meta({ description: '`pho_` id, specific to the channel.' }),
  url: z.string().meta({ description: 'HTTPS URL.' }),
  content_type: openEnum(['image/jpeg', 'image/png', 'image/webp'], 'Media type.'),
  width: z.int().min(1),
  height: z.int().min(1),
  order: z.int().min(1).meta({ description: 'Position in the gallery, starting at 1.' }),
  checksum: Checksum,
  room: z
    .string()
    .nullable()
    .meta({ description: 'Room label, for example `living`; null when not given.', examples: ['living'] }),
  caption: TextMap.nullable(),
});

const Cancellation = z.object({
  refundable: z.boolean(),
  free_until_days_before: z
    .int()
    .min(0)
    .nullable()
    .meta({ description: 'Free cancellation until this many days before arrival; null for a non-refundable plan.' }),
  penalty: openEnum(['none', 'first_night', 'percent', 'full_stay'], 'Charged after the free period.'),
  penalty_percent: z
    .int()
    .min(1)
    .max(100)
    .nullable()
    .meta({ description: 'Percentage of the stay price with penalty `percent`, otherwise null.', example: 50 }),
  text: TextMap.meta({
    description:
      'Generated by the service in the languages it ships (`en`, `ro`, `it`, `es`, `de`, `fr`); `en` is always present, the source language only when shipped.',
  }),
});

const RatePlan = z.object({
  id: z.string().regex(ID_PATTERNS.rate_plan).meta({ description: '`rpl_` id, specific to the channel.' }),
  name: TextMap,
  meal_plan: z
    .string()
    .meta({ description: 'For example `none`. Open enum: unknown values must be accepted.', examples: ['none'] }),
  currency: CurrencyCode,
  lower_price_reasons: z.array(z.string()).meta({
    description:
      "When the property's own quote may be lower than the channel's sum, for instance because of a promo code.",
  }),
  child_age_bands: z.array(z.object({ age_from: z.int().min(0), age_to: z.int().min(0) })),
  cancellation: Cancellation,
});

const Fee = z.object({
  type: openEnum(
    ['cleaning', 'city_tax'],
    'Each type at most once; `city_tax` is present exactly when `city_tax_status` is `levied`.',
  ),
  basis: openEnum(['fixed', 'percent'], '`null` only for a tourist tax whose charging method is unknown.').nullable(),
  amount: Money.nullable().meta({ description: 'With basis `fixed`; null when not known or not fixed.' }),
  percent_bp: z
    .int()
    .min(1)
    .nullable()
    .meta({ description: 'Basis points (125 is 1.25%) with basis `percent`; null otherwise or when not known.' }),
  percent_of: z.string().nullable().meta({
    description:
      'What the percentage applies to, for example `accommodation_excluding_vat`; null unless basis is `percent`.',
  }),
  per: openEnum(
    ['stay', 'night', 'guest_night'],
    'Unit the fee is charged per; always `stay` for a `cleaning` fee (once per stay in v1).',
  ),
  included_in_price: z.boolean(),
  payable_at: openEnum(['booking', 'property'], 'When the fee is paid; a tourist tax is payable at the property.'),
  max_nights: z.int().min(1).nullable().meta({ description: 'Cap on charged nights, or null.' }),
  exempts_children: z
    .boolean()
    .nullable()
    .meta({ description: 'Whether children are exempt; null for a percentage fee or when not known.' }),
});

const Legal = z
  .object({
    classification: z
      .object({
        certificate_number: z.string(),
        category: z.string(),
        rating_kind: z.string().meta({ description: 'For example `stars`.', examples: ['stars'] }),
        rating: z.number().nullable(),
        valid_until: LocalDate,
        country: CountryCode,
      })
      .nullable()
      .meta({
        description:
          'Classification certificate; required in Romania, null elsewhere unless a jurisdiction rule fills it.',
      }),
    registration_number: z
      .string()
      .nullable()
      .meta({ description: 'In Italy the CIN; null elsewhere unless a jurisdiction rule fills it.' }),
    identifiers: z.array(
      z.object({
        scheme: z.string().meta({
          description:
            'Lowercase, prefixed with the defining jurisdiction (for example `ro.classification`, `it.cin`, `eu.str_registration`, `es.ri`). Ignore a scheme you do not know.',
          examples: ['it.cin', 'es.ri'],
        }),
        value: z.string(),
        valid_until: LocalDate.nullable(),
        issued_by: z.string().nullable(),
      }),
    ),
  })
  .meta({ description: 'Legal data of the property.' });

export const Property = z
  .object({
    id: z.string().regex(ID_PATTERNS.property).meta({ description: '`prp_` id, specific to the channel.' }),
    status: Status.meta({
      description:
        '`active` or `inactive` (`inactive` while the property cannot be sold). Open enum: unknown values must be accepted.',
      examples: ['active', 'inactive'],
    }),
    version: Version,
    updated_at: UpdatedAt,
    location_id: z.string().regex(ID_PATTERNS.location).meta({ description: '`loc_` id of its location.' }),
    owner_id: z.string().regex(ID_PATTERNS.owner).meta({ description: '`own_` id of its owner.' }),
    type: openEnum(
      ['apartment', 'studio', 'room', 'house', 'villa', 'cabin', 'guesthouse_room', 'hotel_room', 'other'],
      'Property type.',
    ),
    units: z.int().min(1).meta({ description: 'Identical units sold under this property.' }),
    name: TextMap,
    description: TextMap,
    capacity: z.object({
      max_guests: z.int().min(1),
      max_adults: z.int().min(1),
      max_children: z.int().min(0),
      max_infants: z.int().min(0),
      bedrooms: z.int().min(0),
      bathrooms: z.number().min(0).meta({ description: 'In steps of 0.5.' }),
      beds: z.array(
        z.object({
          type: z.string().meta({ description: 'For example `single`.', examples: ['single', 'double'] }),
          count: z.int().min(1),
        }),
      ),
    }),
    photos: z.array(Photo),
    check_in: z.object({ from: TimeOfDay, until: TimeOfDay }),
    check_out: z.object({ until: TimeOfDay }),
    rate_plans: z.array(RatePlan),
    fees: z.array(Fee),
    city_tax_status: openEnum(
      ['levied', 'none', 'undeclared'],
      '`levied`: fees carry exactly one `city_tax`; `none`: no tourist tax declared; `undeclared`: not said, one may apply. Read an unknown value as `undeclared`.',
    ),
    legal: Legal,
    booking: z.object({
      method: openEnum(['redirect', 'request'], 'How a guest books.'),
      url: z.string().nullable().meta({ description: 'Booking page with method `redirect`.' }),
      url_template: z.string().nullable().meta({
        description: "Redirect URL to the property's own site carrying the number of adults and of children.",
      }),
      request_email: z.string().nullable().meta({ description: 'Address for booking by request.' }),
    }),
    timezone: TimeZone,
    area_sqm: z.number().nullable(),
    floor: z.int().nullable(),
    elevator: z.boolean().nullable(),
    amenities: z.array(z.string()).meta({ description: 'Amenity codes from `/amenities`.' }),
    house_rules: z.object({
      smoking: z.boolean(),
      pets: z.boolean(),
      parties: z.boolean(),
      quiet_hours: z.object({ from: TimeOfDay, until: TimeOfDay }).nullable(),
      min_age: z.int().min(0).nullable(),
    }),
    extensions: z
      .record(z.string(), z.record(z.string(), z.unknown()))
      .meta({ description: "Per channel name; only the requesting channel's key appears." }),
  })
  .meta({
    id: 'Property',
    description: 'A property as the channel sees it; withdrawn or deleted ones come as a Tombstone.',
  });

export const PropertyOrTombstone = z
  .union([Property, Tombstone])
  .meta({ id: 'PropertyOrTombstone', description: 'The full record, or a Tombstone when `withdrawn` or `deleted`.' });

export const PropertyPage = page(
  PropertyOrTombstone,
  'PropertyPage',
  'A page of properties; tombstones appear only with `updated_since`.',
);
