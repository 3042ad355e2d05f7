import { z } from 'zod';
import { trimmedText } from '../trimmed-text.ts';
import { isAmenityCode } from './amenities.ts';
import { PRECISION_RADII } from './geo.ts';
import { priceListErrors } from '../pricing/price-lists.ts';
import {
  custom,
  Ref,
  CountryCode,
  LanguageTag,
  TimeOfDay,
  HttpsUrl,
  Word,
  Name,
  TextMapInput,
  TimeZone,
} from './source-fields.ts';
import {
  Photo,
  RatePlan,
  Fee,
  Classification,
  Identifier,
  PROPERTY_TYPES,
  FromUntil,
} from './property-source-parts.ts';

export { Ref, MAX_TEXT_LANGUAGES } from './source-fields.ts';

/**
 * What the property-management platform writes through `/internal/v1`: the source model the
 * channels' views are projected from. Shapes are checked here; rules that need another record
 * (the source language of a location's country, references) are checked by the writer.
 *
 * Every resource is addressed by the platform's own reference (`ref`), so a write is an
 * idempotent PUT and a repeated seed changes nothing.
 */

export const OrganizationInput = z.object({ name: Name, country: CountryCode }).strict();
export type OrganizationInput = z.infer<typeof OrganizationInput>;

export const OwnerInput = z
  .object({
    organization: Ref,
    type: Word.meta({ description: '`company` or `individual`; other values are treated as an individual.' }),
    display_name: Name,
    legal_form: trimmedText(100).nullable().default(null),
    company: z
      .object({
        legal_name: Name,
        tax_id: trimmedText(40),
        trade_register_no: trimmedText(40).nullable().default(null),
        registered_office: z
          .object({
            street: Name,
            number: trimmedText(20).optional(),
            building: trimmedText(40).optional(),
            city: Name,
            county: trimmedText(100).optional(),
            postal_code: trimmedText(20).optional(),
            country: CountryCode,
          })
          .strict(),
      })
      .strict()
      .nullable()
      .default(null),
    languages: z.array(LanguageTag).max(20).default([]),
    logo: z
      .object({
        url: HttpsUrl,
        content_type: z.enum(['image/png', 'image/jpeg', 'image/webp', 'image/svg+xml']),
        checksum: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex digits>'),
        width: z.int().min(1).max(10_000),
        height: z.int().min(1).max(10_000),
      })
      .strict()
      .nullable()
      .default(null),
  })
  .strict()
  .superRefine((owner, ctx) => {
    if (owner.type === 'company' && owner.company === null) {
      ctx.addIssue({
        code: 'custom',
        path: ['company'],
        message: 'a company owner names its company',
        params: { code: 'required' },
      });
    }
  });
export type OwnerInput = z.infer<typeof OwnerInput>;

export const LocationInput = z
  .object({
    organization: Ref,
    /** Whose location this is; its type sets the default address visibility. */
    owner: Ref,
    name: Name,
    category: Word.meta({ description: 'For example `building`, `guesthouse`, `house`, `resort`.' }),
    address: z
      .object({
        country: CountryCode,
        region: trimmedText(100).optional(),
        city: Name,
        street: trimmedText(200).optional(),
        number: trimmedText(20).optional(),
        building: trimmedText(40).optional(),
        postal_code: trimmedText(20).optional(),
      })
      .strict(),
    geo: z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).strict(),
    /** Absent: `approximate` for an individual owner, `exact` for a company. */
    address_visibility: z.enum(['exact', 'approximate']).optional(),
    precision_m: z.union(PRECISION_RADII.map((r) => z.literal(r))).optional(),
    timezone: TimeZone,
  })
  .strict();
export type LocationInput = z.infer<typeof LocationInput>;

export const PropertyInput = z
  .object({
    location: Ref,
    owner: Ref,
    /** `inactive` while the property cannot be sold. */
    status: z.enum(['active', 'inactive']).default('active'),
    type: z.enum(PROPERTY_TYPES),
    units: z.int().min(1).max(1000),
    name: TextMapInput,
    description: TextMapInput,
    capacity: z
      .object({
        max_guests: z.int().min(1).max(100),
        max_adults: z.int().min(1).max(100),
        max_children: z.int().min(0).max(100),
        max_infants: z.int().min(0).max(20),
        bedrooms: z.int().min(0).max(100),
        bathrooms: z.number().min(0).max(100).multipleOf(0.5),
        beds: z.array(z.object({ type: Word, count: z.int().min(1).max(100) }).strict()).max(20),
      })
      .strict(),
    photos: z.array(Photo).max(100).default([]),
    check_in: FromUntil,
    check_out: z.object({ until: TimeOfDay }).strict(),
    rate_plans: z.array(RatePlan).min(1).max(20),
    fees: z.array(Fee).max(2).default([]),
    city_tax_status: z.enum(['levied', 'none', 'undeclared']),
    legal: z
      .object({
        classification: Classification.nullable().default(null),
        registration_number: trimmedText(60).nullable().default(null),
        identifiers: z.array(Identifier).max(20).default([]),
      })
      .strict()
      .default({ classification: null, registration_number: null, identifiers: [] }),
    booking: z
      .object({
        method: z.enum(['redirect', 'request']),
        url: HttpsUrl.nullable().default(null),
        url_template: z.string().max(2048).nullable().default(null),
        request_email: z.email().nullable().default(null),
      })
      .strict(),
    area_sqm: z.number().min(1).max(100_000).nullable().default(null),
    floor: z.int().min(-5).max(200).nullable().default(null),
    elevator: z.boolean().nullable().default(null),
    amenities: z
      .array(z.string().refine(isAmenityCode, custom('unknown_amenity', 'an amenity code from /amenities')))
      .max(200)
      .default([]),
    house_rules: z
      .object({
        smoking: z.boolean(),
        pets: z.boolean(),
        parties: z.boolean(),
        quiet_hours: FromUntil.nullable().default(null),
        min_age: z.int().min(0).max(99).nullable().default(null),
      })
      .strict(),
    /** Per channel name; each channel sees only its own entry. */
    extensions: z.record(z.string().regex(/^[a-z][a-z0-9-]{1,62}$/), z.record(z.string(), z.unknown())).default({}),
  })
  .strict()
  .superRefine((property, ctx) => {
    const issue = (path: PropertyKey[], message: string, code: string) =>
      ctx.addIssue({ code: 'custom', path, message, params: { code } });
    const { capacity } = property;
    if (capacity.max_adults > capacity.max_guests)
      issue(['capacity', 'max_adults'], 'max_adults is at most max_guests', 'capacity');
    if (capacity.max_children > capacity.max_guests)
      issue(['capacity', 'max_children'], 'max_children is at most max_guests', 'capacity');
    duplicates(property.photos.map((p) => p.key)).forEach((i) =>
      issue(['photos', i, 'key'], 'photo keys are unique within a property', 'duplicate'),
    );
    duplicates(property.rate_plans.map((p) => p.key)).forEach((i) =>
      issue(['rate_plans', i, 'key'], 'rate plan keys are unique within a property', 'duplicate'),
    );
    duplicates(property.fees.map((f) => f.type)).forEach((i) =>
      issue(['fees', i, 'type'], 'each fee type appears at most once', 'duplicate'),
    );
    duplicates(property.amenities).forEach((i) => issue(['amenities', i], 'each amenity appears once', 'duplicate'));
    const cityTax = property.fees.findIndex((f) => f.type === 'city_tax');
    if (property.city_tax_status === 'levied' && cityTax === -1)
      issue(['fees'], 'a levied tourist tax is described by one `city_tax` fee', 'city_tax_fee');
    if (property.city_tax_status !== 'levied' && cityTax !== -1)
      issue(['fees', cityTax], 'a `city_tax` fee goes only with city_tax_status `levied`', 'city_tax_fee');
    property.fees.forEach((fee, i) => {
      if (fee.type === 'city_tax' && fee.payable_at !== 'property')
        issue(['fees', i, 'payable_at'], 'a tourist tax is payable at the property', 'fee_payable_at');
      if (fee.type === 'city_tax' && fee.basis === 'fixed' && fee.per !== 'guest_night')
        issue(['fees', i, 'per'], 'a fixed tourist tax is per guest and night', 'fee_per');
      if (fee.type === 'city_tax' && fee.basis === 'percent' && fee.per !== 'stay')
        issue(['fees', i, 'per'], 'a percentage tourist tax is for the whole stay', 'fee_per');
    });
    property.rate_plans.forEach((plan, i) => {
      if (plan.currency !== property.rate_plans[0]?.currency)
        issue(['rate_plans', i, 'currency'], 'every rate plan of a property uses one currency', 'currency_mismatch');
      if (!plan.default_rates) return;
      for (const error of priceListErrors(plan.default_rates, {
        maxAdults: capacity.max_adults,
        bands: plan.child_age_bands,
      })) {
        issue(['rate_plans', i, 'default_rates', ...error.path], error.detail, error.code);
      }
    });
    if (property.booking.method === 'redirect' && property.booking.url === null)
      issue(['booking', 'url'], 'a redirect booking names its url', 'required');
    if (property.booking.method === 'request' && property.booking.request_email === null)
      issue(['booking', 'request_email'], 'a booking by request names its e-mail', 'required');
  });
export type PropertyInput = z.infer<typeof PropertyInput>;

export const DistributionInput = z
  .object({
    channels: z
      .array(z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, 'a channel name'))
      .max(100)
      .meta({ uniqueItems: true, description: 'Each channel once.' }),
  })
  .strict()
  .superRefine((input, ctx) => {
    duplicates(input.channels).forEach((i) =>
      ctx.addIssue({
        code: 'custom',
        path: ['channels', i],
        message: 'each channel appears once',
        params: { code: 'duplicate' },
      }),
    );
  });
export type DistributionInput = z.infer<typeof DistributionInput>;

/** Indexes of the entries that repeat an earlier one. */
function duplicates(values: readonly string[]): number[] {
  const seen = new Set<string>();
  return values.flatMap((value, index) => {
    if (seen.has(value)) return [index];
    seen.add(value);
    return [];
  });
}
