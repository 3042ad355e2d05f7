import { z } from 'zod';

/**
 * A country's VAT schedule for accommodation, as the platform supplies it: each rate applies from
 * its date (the property's local date) until the next one. A schedule is replaced whole.
 */
export type VatRate = { from: string; rate_bp: number };

export const VAT_APPLIES_TO = ['accommodation'] as const;

export const VatSchedule = z
  .object({
    rates: z
      .array(
        z
          .object({
            from: z.iso.date({ message: 'a date YYYY-MM-DD' }),
            rate_bp: z.int().min(0).max(10_000).meta({ description: 'Basis points: 900 is 9 %.' }),
            applies_to: z.enum(VAT_APPLIES_TO).default('accommodation').meta({
              description: 'What the rate applies to; only `accommodation` in v1 (nights and the fees added to them).',
            }),
          })
          .strict(),
      )
      .max(100),
  })
  .strict()
  .superRefine((schedule, ctx) => {
    const seen = new Set<string>();
    schedule.rates.forEach((rate, index) => {
      const key = `${rate.applies_to}/${rate.from}`;
      if (seen.has(key))
        ctx.addIssue({
          code: 'custom',
          path: ['rates', index, 'from'],
          message: 'one rate per date',
          params: { code: 'duplicate' },
        });
      seen.add(key);
    });
  });
export type VatSchedule = z.infer<typeof VatSchedule>;

export const CountryParams = z
  .object({ country: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code, upper case') })
  .strict();

/** The rate in force on `date`: the latest whose `from` is on or before it; null when none is. */
export function vatRateOn(rates: readonly VatRate[], date: string): number | null {
  let found: VatRate | null = null;
  for (const rate of rates) if (rate.from <= date && (found === null || rate.from > found.from)) found = rate;
  return found?.rate_bp ?? null;
}
