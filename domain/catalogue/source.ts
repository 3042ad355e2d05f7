import { z } from 'zod';
import { trimmedText } from '../trimmed-text.ts';
import { cancellationViolations } from './cancellation.ts';
import { isAmenityCode } from './amenities.ts';
import { PRECISION_RADII } from './geo.ts';
import { isIdentifierScheme } from './legal.ts';
import { isLanguageTag } from './text.ts';
import { priceListErrors } from '../pricing/price-lists.ts';

/**
 * What the property-management platform writes through `/internal/v1`: the source model the
 * channels' views are projected from. Shapes are checked here; rules that need another record
 * (the source language of a location's country, references) are checked by the writer.
 *
 * Every resource is addressed by the platform's own reference (`ref`), so a write is an
 * idempotent PUT and a repeated seed changes nothing.
 */

const custom = (code: string, message: string) => ({ message, params: { code } });

export const Ref = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/, 'a reference is 1-64 characters: letters, digits, `.`, `_`, `:` and `-`, starting with a letter or digit')
  .meta({ description: "The platform's own reference for a record; the path segment of its PUT." });

const CountryCode = z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code in capitals');
const LanguageTag = z.string().refine(isLanguageTag, custom('language_tag', 'a BCP 47 language tag such as `ro` or `en-GB`'));
const Date = z.iso.date();
const TimeOfDay = z.string().regex(/^(?:[01]\d|2[0-3]):[0-5]\d$/, custom('time_format', 'a time of day `HH:MM`'));
const HttpsUrl = z.url({ protocol: /^https$/, hostname: z.regexes.domain }).max(2048);
const Currency = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 currency code');
const Money = z.object({ amount: z.int().min(0).max(100_000_000_00), currency: Currency }).strict();
const Word = z.string().regex(/^[a-z][a-z0-9_]{0,39}$/, 'a lowercase word (letters, digits, underscores)');
const Name = trimmedText(200);

/**
 * At most this many languages in one text map: with each text at most 10,000 characters, a page of
 * a list is then bounded in bytes, not only in items.
 */
export const MAX_TEXT_LANGUAGES = 30;

/** Shape only; the source language and the text rules are checked against the location's country. */
export const TextMapInput = z
  .record(z.string(), z.string().max(10_000))
  .refine((map) => Object.keys(map).length <= MAX_TEXT_LANGUAGES, custom('too_many_languages', `at most ${MAX_TEXT_LANGUAGES} languages`));

const TimeZone = z.string().refine((zone) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.includes('/') || zone === 'UTC';
  } catch {
    return false;
  }
}, custom('time_zone', 'an IANA time zone name such as `Europe/Bucharest`'));

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
      ctx.addIssue({ code: 'custom', path: ['company'], message: 'a company owner names its company', params: { code: 'required' } });
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

const Photo = z
  .object({
    key: Ref,
    url: HttpsUrl,
    content_type: z.enum(['image/jpeg', 'image/png', 'image/webp']),
    width: z.int().min(1).max(20_000),
    height: z.int().min(1).max(20_000),
    checksum: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'sha256:<64 hex digits>'),
    room: Word.nullable().default(null),
    caption: TextMapInput.nullable().default(null),
  })
  .strict();

const AgeBand = z.object({ age_from: z.int().min(0).max(17), age_to: z.int().min(0).max(17) }).strict();

const RatePlan = z
  .object({
    key: Ref,
    name: TextMapInput,
    meal_plan: Word.default('none'),
    currency: Currency,
    lower_price_reasons: z.array(Word).max(10).default([]),
    child_age_bands: z.array(AgeBand).max(6).default([]),
    cancellation: z
      .object({
        refundable: z.boolean(),
        free_until_days_before: z.int().min(0).max(365).nullable(),
        penalty: Word,
        penalty_percent: z.int().min(1).max(100).nullable().default(null),
      })
      .strict(),
    /**
     * Prices of the nights the daily horizon roll adds; absent: those nights are closed on this plan. Not shown to channels.
     * The same rules as a night's prices: one per number of adults up to `capacity.max_adults`, one per age band.
     */
    default_rates: z
      .object({
        prices_by_occupancy: z.array(z.object({ adults: z.int().min(1).max(100), amount: z.int().min(0).max(100_000_000_00) }).strict()).min(1).max(100),
        child_prices: z.array(z.object({ age_from: z.int().min(0).max(17), age_to: z.int().min(0).max(17), amount: z.int().min(0).max(100_000_000_00) }).strict()).max(6).default([]),
        child_price: z.int().min(0).max(100_000_000_00).nullable().default(null),
        infant_price: z.int().min(0).max(100_000_000_00).nullable().default(null),
        min_stay: z.int().min(1).max(365).nullable().default(null),
      })
      .strict()
      .nullable()
      .optional(),
  })
  .strict()
  .superRefine((plan, ctx) => {
    for (const violation of cancellationViolations(plan.cancellation)) {
      ctx.addIssue({ code: 'custom', path: ['cancellation', violation.path], message: violation.detail, params: { code: violation.code } });
    }
    plan.child_age_bands.forEach((band, index) => {
      if (band.age_from > band.age_to) ctx.addIssue({ code: 'custom', path: ['child_age_bands', index, 'age_to'], message: 'age_to is at least age_from', params: { code: 'age_band' } });
      const overlaps = plan.child_age_bands.some((other, j) => j < index && other.age_from <= band.age_to && band.age_from <= other.age_to);
      if (overlaps) ctx.addIssue({ code: 'custom', path: ['child_age_bands', index], message: 'age bands do not overlap', params: { code: 'age_band_overlap' } });
    });
  });
export type RatePlanInput = z.infer<typeof RatePlan>;

const Fee = z
  .object({
    type: z.enum(['cleaning', 'city_tax']),
    basis: z.enum(['fixed', 'percent']).nullable(),
    amount: Money.nullable().default(null),
    percent_bp: z.int().min(1).max(10_000).nullable().default(null),
    percent_of: Word.nullable().default(null),
    per: z.enum(['stay', 'night', 'guest_night']),
    included_in_price: z.boolean().default(false),
    payable_at: z.enum(['booking', 'property']),
    max_nights: z.int().min(1).max(365).nullable().default(null),
    exempts_children: z.boolean().nullable().default(null),
  })
  .strict()
  .superRefine((fee, ctx) => {
    const issue = (path: string, message: string, code = 'fee_basis') => ctx.addIssue({ code: 'custom', path: [path], message, params: { code } });
    if (fee.basis === null && fee.type !== 'city_tax') issue('basis', 'only a tourist tax may have an unknown basis');
    if (fee.basis !== 'fixed' && fee.amount !== null) issue('amount', 'an amount goes with basis `fixed`');
    if (fee.basis !== 'percent' && (fee.percent_bp !== null || fee.percent_of !== null)) issue('percent_bp', 'a percentage goes with basis `percent`');
    if (fee.basis === 'percent' && fee.percent_of === null) issue('percent_of', 'a percentage names what it applies to', 'required');
    if (fee.basis === 'percent' && fee.exempts_children !== null) issue('exempts_children', 'a percentage fee does not exempt children', 'fee_basis');
    if (fee.type === 'cleaning' && fee.amount === null) issue('amount', 'a cleaning fee has an amount', 'required');
    if (fee.type === 'cleaning' && fee.per !== 'stay') issue('per', 'a cleaning fee is charged once per stay', 'fee_per');
  });
export type FeeInput = z.infer<typeof Fee>;

const Classification = z
  .object({
    certificate_number: trimmedText(60),
    category: trimmedText(60),
    rating_kind: Word,
    rating: z.number().min(0).max(10).nullable(),
    valid_until: Date,
    country: CountryCode,
  })
  .strict();

const Identifier = z
  .object({
    scheme: z.string().refine(isIdentifierScheme, custom('identifier_scheme', 'a scheme is `<jurisdiction>.<name>` in lowercase, such as `it.cin`')),
    value: trimmedText(100),
    valid_until: Date.nullable().default(null),
    issued_by: trimmedText(200).nullable().default(null),
  })
  .strict();

export const PROPERTY_TYPES = ['apartment', 'studio', 'room', 'house', 'villa', 'cabin', 'guesthouse_room', 'hotel_room', 'other'] as const;

const FromUntil = z.object({ from: TimeOfDay, until: TimeOfDay }).strict();

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
    amenities: z.array(z.string().refine(isAmenityCode, custom('unknown_amenity', 'an amenity code from /amenities'))).max(200).default([]),
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
    const issue = (path: PropertyKey[], message: string, code: string) => ctx.addIssue({ code: 'custom', path, message, params: { code } });
    const { capacity } = property;
    if (capacity.max_adults > capacity.max_guests) issue(['capacity', 'max_adults'], 'max_adults is at most max_guests', 'capacity');
    if (capacity.max_children > capacity.max_guests) issue(['capacity', 'max_children'], 'max_children is at most max_guests', 'capacity');
    duplicates(property.photos.map((p) => p.key)).forEach((i) => issue(['photos', i, 'key'], 'photo keys are unique within a property', 'duplicate'));
    duplicates(property.rate_plans.map((p) => p.key)).forEach((i) => issue(['rate_plans', i, 'key'], 'rate plan keys are unique within a property', 'duplicate'));
    duplicates(property.fees.map((f) => f.type)).forEach((i) => issue(['fees', i, 'type'], 'each fee type appears at most once', 'duplicate'));
    duplicates(property.amenities).forEach((i) => issue(['amenities', i], 'each amenity appears once', 'duplicate'));
    const cityTax = property.fees.findIndex((f) => f.type === 'city_tax');
    if (property.city_tax_status === 'levied' && cityTax === -1) issue(['fees'], 'a levied tourist tax is described by one `city_tax` fee', 'city_tax_fee');
    if (property.city_tax_status !== 'levied' && cityTax !== -1) issue(['fees', cityTax], 'a `city_tax` fee goes only with city_tax_status `levied`', 'city_tax_fee');
    property.fees.forEach((fee, i) => {
      if (fee.type === 'city_tax' && fee.payable_at !== 'property') issue(['fees', i, 'payable_at'], 'a tourist tax is payable at the property', 'fee_payable_at');
      if (fee.type === 'city_tax' && fee.basis === 'fixed' && fee.per !== 'guest_night') issue(['fees', i, 'per'], 'a fixed tourist tax is per guest and night', 'fee_per');
      if (fee.type === 'city_tax' && fee.basis === 'percent' && fee.per !== 'stay') issue(['fees', i, 'per'], 'a percentage tourist tax is for the whole stay', 'fee_per');
    });
    property.rate_plans.forEach((plan, i) => {
      if (plan.currency !== property.rate_plans[0]?.currency) issue(['rate_plans', i, 'currency'], 'every rate plan of a property uses one currency', 'currency_mismatch');
      if (!plan.default_rates) return;
      for (const error of priceListErrors(plan.default_rates, { maxAdults: capacity.max_adults, bands: plan.child_age_bands })) {
        issue(['rate_plans', i, 'default_rates', ...error.path], error.detail, error.code);
      }
    });
    if (property.booking.method === 'redirect' && property.booking.url === null) issue(['booking', 'url'], 'a redirect booking names its url', 'required');
    if (property.booking.method === 'request' && property.booking.request_email === null) issue(['booking', 'request_email'], 'a booking by request names its e-mail', 'required');
  });
export type PropertyInput = z.infer<typeof PropertyInput>;

export const DistributionInput = z
  .object({ channels: z.array(z.string().regex(/^[a-z][a-z0-9-]{1,62}$/, 'a channel name')).max(100).meta({ uniqueItems: true, description: 'Each channel once.' }) })
  .strict()
  .superRefine((input, ctx) => {
    duplicates(input.channels).forEach((i) => ctx.addIssue({ code: 'custom', path: ['channels', i], message: 'each channel appears once', params: { code: 'duplicate' } }));
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
