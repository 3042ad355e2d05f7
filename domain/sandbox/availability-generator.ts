import type { AvailabilityUpdate, RatePatch } from '../availability/nights.ts';
import { addDays } from '../time.ts';
import { planPrices, type PropertyBody } from './property-parts.ts';
import { streamOf } from './random.ts';

/**
 * A generated property's year of nights beyond its plans' default prices (which price all 366
 * from the start): a high season priced higher, closed nights (no units, and one plan closed),
 * stay limits (a night's minimum and maximum, a plan's minimum), closed to arrival and to
 * departure. Each update sets absolute values, so applying the list again changes nothing.
 */
export function sandboxAvailability(
  seed: number,
  ref: string,
  property: PropertyBody,
  today: string,
): AvailabilityUpdate[] {
  const stream = streamOf(seed, `nights:${ref}`);
  const range = (start: number, nights: number) => ({
    property: ref,
    from: addDays(today, start),
    to: addDays(today, start + nights),
  });
  const maxAdults = property.capacity.max_adults;
  const highSeason: RatePatch[] = property.rate_plans.map((plan) => {
    const base = plan.default_rates!.prices_by_occupancy.find((p) => p.adults === Math.min(2, maxAdults))!.amount;
    const prices = planPrices(Math.round((base * 1.3) / 100) * 100, maxAdults, plan.child_age_bands ?? []);
    return {
      rate_plan: plan.key,
      prices_by_occupancy: prices.prices_by_occupancy,
      child_prices: prices.child_prices,
      child_price: prices.child_price,
    };
  });
  const lastPlan = property.rate_plans.at(-1)!.key;
  const high = stream.int(20, 200);
  return [
    { ...range(high, stream.int(14, 35)), rates: highSeason },
    { ...range(stream.int(5, 330), stream.int(2, 5)), units_available: 0 },
    { ...range(stream.int(5, 330), 3), rates: [{ rate_plan: lastPlan, closed: true }] },
    { ...range(high, 21), min_stay: 3 },
    { ...range(stream.int(230, 300), 30), max_stay: 14 },
    { ...range(stream.int(10, 340), 2), closed_to_arrival: true },
    { ...range(stream.int(10, 340), 2), closed_to_departure: true },
    {
      ...range(stream.int(1, 340), 7),
      rates: [{ rate_plan: property.rate_plans[0]!.key, min_stay: 2, closed_to_arrival: false }],
    },
  ];
}
