import { checkChildPrices, checkOccupancyPrices, type AgeBand } from '../pricing/rates.ts';
import type { AvailabilityUpdate, NightState, PlanShape, RatePatch, RateState } from './nights.ts';

/** What a night's prices must fit: the property's capacity and each plan's age bands (by plan key). */
export interface NightPriceShape {
  maxAdults: number;
  plans: readonly { key: string; child_age_bands?: readonly AgeBand[] | undefined }[];
}

/**
 * A stored night brought in line with the property as it is now, after a change of capacity or
 * of a plan's age bands (writes already meet both). What still prices every party the property
 * takes stays: a lower `max_adults` drops the prices above it, and a plan that no longer names
 * bands drops its band prices (a child is then priced by `child_price`). A rate that no longer
 * prices every party (a higher `max_adults`, bands added or changed) loses its prices and is
 * closed until the platform prices it again; its own restrictions stay.
 */
export function conformNight(night: NightState, shape: NightPriceShape): NightState {
  let changed = false;
  const rates: Record<string, RateState> = {};
  for (const [key, rate] of Object.entries(night.rates)) {
    const bands = shape.plans.find((plan) => plan.key === key)?.child_age_bands ?? [];
    const conformed = conformRate(rate, shape.maxAdults, bands);
    if (conformed !== rate) changed = true;
    rates[key] = conformed;
  }
  return changed ? { ...night, rates } : night;
}

function conformRate(rate: RateState, maxAdults: number, bands: readonly AgeBand[]): RateState {
  if (rate.prices_by_occupancy.length === 0) return rate;
  const kept = rate.prices_by_occupancy.filter((entry) => entry.adults <= maxAdults);
  const adults = checkOccupancyPrices(
    kept.map((entry) => ({ adults: entry.adults, price: { amount: entry.amount, currency: '' } })),
    maxAdults,
    '',
  );
  const children = bands.length > 0 ? checkChildPrices(rate.child_prices, bands) : [];
  if (
    adults.some(
      (issue) =>
        issue.code === 'adults_missing' || issue.code === 'adults_repeated' || issue.code === 'adults_out_of_range',
    ) ||
    children.length > 0
  ) {
    return { ...rate, prices_by_occupancy: [], child_prices: [], child_price: null, infant_price: null, closed: false };
  }
  const childPrices = bands.length > 0 ? rate.child_prices : [];
  if (kept.length === rate.prices_by_occupancy.length && childPrices.length === rate.child_prices.length) return rate;
  return { ...rate, prices_by_occupancy: kept, child_prices: childPrices };
}

/**
 * Child prices for a platform write that prices adults on a plan naming age bands but leaves
 * `child_prices` out (`night` is the night with the write applied, `rates` the write's rate
 * patches). Every night carries a price for every party (docs/contract.md#availability, rule 3),
 * so each such night gets, in this order: its own band prices, when they price every band the
 * plan names now; else the plan's `default_rates` band prices; else none, and the rate's index
 * in `rates` is in `unpriced`: no price can be known there, and the write is refused.
 */
export function defaultChildPrices(
  night: NightState,
  rates: readonly RatePatch[],
  plans: readonly PlanShape[],
): { night: NightState; unpriced: number[] } {
  const unpriced: number[] = [];
  let defaulted: Record<string, RateState> | null = null;
  for (const [index, patch] of rates.entries()) {
    if (patch.prices_by_occupancy === undefined || patch.child_prices !== undefined) continue;
    const plan = plans.find((candidate) => candidate.key === patch.rate_plan);
    const bands = plan?.child_age_bands ?? [];
    const rate = night.rates[patch.rate_plan];
    if (bands.length === 0 || !rate || checkChildPrices(rate.child_prices, bands).length === 0) continue;
    const fallback = plan?.default_rates?.child_prices ?? [];
    if (checkChildPrices(fallback, bands).length > 0) {
      unpriced.push(index);
      continue;
    }
    defaulted ??= { ...night.rates };
    defaulted[patch.rate_plan] = { ...rate, child_prices: fallback.map((price) => ({ ...price })) };
  }
  return { night: defaulted ? { ...night, rates: defaulted } : night, unpriced };
}

/**
 * A rate patch (`update.rates[rate]`) that priced adults without child prices on nights with no
 * band prices to keep or default to (`defaultChildPrices`): the first such night and how many.
 */
export interface UnpricedRate {
  update: AvailabilityUpdate;
  rate: number;
  first: string;
  nights: number;
}

/** Counts night `date`'s unpriced rates of `update` in `into`, one entry per update and rate. */
export function noteUnpriced(into: UnpricedRate[], update: AvailabilityUpdate, rates: number[], date: string): void {
  for (const rate of rates) {
    const seen = into.find((entry) => entry.update === update && entry.rate === rate);
    if (seen) seen.nights += 1;
    else into.push({ update, rate, first: date, nights: 1 });
  }
}
