import type { Money } from './money.ts';

export type OccupancyPrice = { adults: number; price: Money };

/**
 * The Rate record's `price`, `base_occupancy` and `extra_guest_price`, "defined from"
 * `prices_by_occupancy` as follows (this text is meant for the API description):
 *
 * - `price` is the lowest price in `prices_by_occupancy`;
 * - `base_occupancy` is the highest number of adults charged that lowest price;
 * - `extra_guest_price` is what the next adult adds: the price for `base_occupancy + 1` adults
 *   minus `price`, or zero when `base_occupancy` is the most adults the property takes.
 *
 * A channel with a base-plus-extra model computes `price + max(0, adults - base_occupancy) x
 * extra_guest_price`. That equals `prices_by_occupancy` whenever the list is flat up to
 * `base_occupancy` and then rises by the same step for each adult, which is the usual shape;
 * otherwise the list is the price and the three fields are only a summary of it.
 */
export type OccupancySummary = { price: Money; base_occupancy: number; extra_guest_price: Money };

export function summarizeOccupancyPrices(prices: readonly OccupancyPrice[]): OccupancySummary {
  const sorted = [...prices].sort((a, b) => a.adults - b.adults);
  const first = sorted[0];
  if (!first) throw new RangeError('prices_by_occupancy is empty');
  let base = first;
  for (const entry of sorted) {
    if (entry.price.amount <= base.price.amount) base = entry;
  }
  const next = sorted.find((entry) => entry.adults === base.adults + 1);
  return {
    price: { ...base.price },
    base_occupancy: base.adults,
    extra_guest_price: { amount: next ? next.price.amount - base.price.amount : 0, currency: base.price.currency },
  };
}

/** What a base-plus-extra channel charges for `adults` from the summary alone. */
export function priceFromSummary(summary: OccupancySummary, adults: number): Money {
  const extraAdults = Math.max(0, adults - summary.base_occupancy);
  return {
    amount: summary.price.amount + extraAdults * summary.extra_guest_price.amount,
    currency: summary.price.currency,
  };
}

/** True when a base-plus-extra channel gets every price of the list right from the summary. */
export function summaryReproducesList(prices: readonly OccupancyPrice[]): boolean {
  if (prices.length === 0) return false;
  const summary = summarizeOccupancyPrices(prices);
  return prices.every((entry) => priceFromSummary(summary, entry.adults).amount === entry.price.amount);
}

export type OccupancyPriceIssue =
  | { code: 'adults_missing'; adults: number }
  | {
      code: 'adults_repeated' | 'adults_out_of_range' | 'price_invalid' | 'currency_mismatch';
      adults: number;
      index: number;
    };

/**
 * Every adult count from 1 to `maxAdults` appears exactly once, and each price is a
 * non-negative integer amount in the rate plan's currency. An empty result means valid; an
 * issue about one entry names its index in `prices`.
 */
export function checkOccupancyPrices(
  prices: readonly OccupancyPrice[],
  maxAdults: number,
  currency: string,
): OccupancyPriceIssue[] {
  const issues: OccupancyPriceIssue[] = [];
  const seen = new Set<number>();
  for (const [index, { adults, price }] of prices.entries()) {
    if (!Number.isInteger(adults) || adults < 1 || adults > maxAdults) {
      issues.push({ code: 'adults_out_of_range', adults, index });
      continue;
    }
    if (seen.has(adults)) issues.push({ code: 'adults_repeated', adults, index });
    seen.add(adults);
    if (!Number.isSafeInteger(price.amount) || price.amount < 0) issues.push({ code: 'price_invalid', adults, index });
    if (price.currency !== currency) issues.push({ code: 'currency_mismatch', adults, index });
  }
  for (let adults = 1; adults <= maxAdults; adults += 1) {
    if (!seen.has(adults)) issues.push({ code: 'adults_missing', adults });
  }
  return issues;
}

export type AgeBand = { age_from: number; age_to: number };

export type ChildPriceIssue =
  { code: 'band_missing'; band: AgeBand } | { code: 'band_unknown' | 'band_repeated'; band: AgeBand; index: number };

/**
 * Child prices follow the rate plan's age bands: one price for each band the plan names, none
 * for a band it does not name (a plan without bands prices a child by `child_price`).
 */
export function checkChildPrices(prices: readonly AgeBand[], bands: readonly AgeBand[]): ChildPriceIssue[] {
  const key = (band: AgeBand) => `${band.age_from}-${band.age_to}`;
  const named = new Set(bands.map(key));
  const seen = new Set<string>();
  const issues: ChildPriceIssue[] = [];
  for (const [index, price] of prices.entries()) {
    const band = { age_from: price.age_from, age_to: price.age_to };
    if (!named.has(key(band))) issues.push({ code: 'band_unknown', band, index });
    else if (seen.has(key(band))) issues.push({ code: 'band_repeated', band, index });
    seen.add(key(band));
  }
  for (const band of bands) {
    if (!seen.has(key(band)))
      issues.push({ code: 'band_missing', band: { age_from: band.age_from, age_to: band.age_to } });
  }
  return issues;
}
