import { checkChildPrices, checkOccupancyPrices, type AgeBand } from '../pricing/rates.ts';
import type { NightState, RateState } from './nights.ts';

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
