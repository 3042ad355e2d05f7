import { z } from 'zod';
import { trimmedText } from '../trimmed-text.ts';
import { cancellationViolations } from './cancellation.ts';
import { isIdentifierScheme } from './legal.ts';
import {
  custom,
  Ref,
  CountryCode,
  LocalDate,
  TimeOfDay,
  HttpsUrl,
  Currency,
  Money,
  Word,
  TextMapInput,
} from './source-fields.ts';

/** The parts of a property's source record: photos, rate plans and their prices, fees, classifications, legal identifiers. */

export const Photo = z
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

export const AgeBand = z.object({ age_from: z.int().min(0).max(17), age_to: z.int().min(0).max(17) }).strict();

export const RatePlan = z
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
        prices_by_occupancy: z
          .array(z.object({ adults: z.int().min(1).max(100), amount: z.int().min(0).max(100_000_000_00) }).strict())
          .min(1)
          .max(100),
        child_prices: z
          .array(
            z
              .object({
                age_from: z.int().min(0).max(17),
                age_to: z.int().min(0).max(17),
                amount: z.int().min(0).max(100_000_000_00),
              })
              .strict(),
          )
          .max(6)
          .default([]),
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
      ctx.addIssue({
        code: 'custom',
        path: ['cancellation', violation.path],
        message: violation.detail,
        params: { code: violation.code },
      });
    }
    plan.child_age_bands.forEach((band, index) => {
      if (band.age_from > band.age_to)
        ctx.addIssue({
          code: 'custom',
          path: ['child_age_bands', index, 'age_to'],
          message: 'age_to is at least age_from',
          params: { code: 'age_band' },
        });
      const overlaps = plan.child_age_bands.some(
        (other, j) => j < index && other.age_from <= band.age_to && band.age_from <= other.age_to,
      );
      if (overlaps)
        ctx.addIssue({
          code: 'custom',
          path: ['child_age_bands', index],
          message: 'age bands do not overlap',
          params: { code: 'age_band_overlap' },
        });
    });
  });
export type RatePlanInput = z.infer<typeof RatePlan>;

export const Fee = z
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
    const issue = (path: string, message: string, code = 'fee_basis') =>
      ctx.addIssue({ code: 'custom', path: [path], message, params: { code } });
    if (fee.basis === null && fee.type !== 'city_tax') issue('basis', 'only a tourist tax may have an unknown basis');
    if (fee.basis !== 'fixed' && fee.amount !== null) issue('amount', 'an amount goes with basis `fixed`');
    if (fee.basis !== 'percent' && (fee.percent_bp !== null || fee.percent_of !== null))
      issue('percent_bp', 'a percentage goes with basis `percent`');
    if (fee.basis === 'percent' && fee.percent_of === null)
      issue('percent_of', 'a percentage names what it applies to', 'required');
    if (fee.basis === 'percent' && fee.exempts_children !== null)
      issue('exempts_children', 'a percentage fee does not exempt children', 'fee_basis');
    if (fee.type === 'cleaning' && fee.amount === null) issue('amount', 'a cleaning fee has an amount', 'required');
    if (fee.type === 'cleaning' && fee.per !== 'stay')
      issue('per', 'a cleaning fee is charged once per stay', 'fee_per');
  });
export type FeeInput = z.infer<typeof Fee>;

export const Classification = z
  .object({
    certificate_number: trimmedText(60),
    category: trimmedText(60),
    rating_kind: Word,
    rating: z.number().min(0).max(10).nullable(),
    valid_until: LocalDate,
    country: CountryCode,
  })
  .strict();

export const Identifier = z
  .object({
    scheme: z
      .string()
      .refine(
        isIdentifierScheme,
        custom('identifier_scheme', 'a scheme is `<jurisdiction>.<name>` in lowercase, such as `it.cin`'),
      ),
    value: trimmedText(100),
    valid_until: LocalDate.nullable().default(null),
    issued_by: trimmedText(200).nullable().default(null),
  })
  .strict();

export const PROPERTY_TYPES = [
  'apartment',
  'studio',
  'room',
  'house',
  'villa',
  'cabin',
  'guesthouse_room',
  'hotel_room',
  'other',
] as const;

export const FromUntil = z.object({ from: TimeOfDay, until: TimeOfDay }).strict();
