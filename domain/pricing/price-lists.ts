import { checkChildPrices, checkOccupancyPrices, type AgeBand } from './rates.ts';

/**
 * The prices a platform write gives one rate plan (a night's patch, or a plan's `default_rates`):
 * amounts in the plan's minor units. A list left out is not being written.
 */
export interface PriceListsWritten {
  prices_by_occupancy?: readonly { adults: number; amount: number }[] | undefined;
  child_prices?: readonly { age_from: number; age_to: number; amount: number }[] | undefined;
}

/** What the lists are checked against: the property's capacity and the plan's age bands. */
export interface PriceListShape {
  maxAdults: number;
  bands: readonly AgeBand[];
}

/** A broken rule, its path relative to the written rate. */
export interface PriceListError {
  path: (string | number)[];
  code: string;
  detail: string;
}

const bandText = (band: AgeBand) => `${band.age_from}-${band.age_to}`;

/**
 * docs/contract.md#availability, rule 3 (every night prices every party), as a write must meet
 * it: prices for adults are written whole, one for each number of adults from 1 to the
 * property's `max_adults`; child prices written follow the plan's age bands, one for each. One
 * error per broken rule. Child prices left out are not checked here: a night's write takes them
 * from the night or the plan's defaults (`defaultChildPrices`), and a plan's `default_rates`
 * must hold them (`childPricesRequired`).
 */
export function priceListErrors(rate: PriceListsWritten, shape: PriceListShape): PriceListError[] {
  const errors: PriceListError[] = [];
  const { maxAdults, bands } = shape;
  if (rate.prices_by_occupancy !== undefined) {
    const list = rate.prices_by_occupancy.map((entry) => ({
      adults: entry.adults,
      price: { amount: entry.amount, currency: '' },
    }));
    for (const issue of checkOccupancyPrices(list, maxAdults, '')) {
      switch (issue.code) {
        case 'adults_missing':
          errors.push({
            path: ['prices_by_occupancy'],
            code: 'adults_missing',
            detail: `no price for ${issue.adults} adult(s): the list holds one price for each number of adults from 1 to the property's max_adults (${maxAdults})`,
          });
          break;
        case 'adults_repeated':
          errors.push({
            path: ['prices_by_occupancy', issue.index, 'adults'],
            code: 'adults_repeated',
            detail: `${issue.adults} adult(s) already has a price in this list`,
          });
          break;
        case 'adults_out_of_range':
          errors.push({
            path: ['prices_by_occupancy', issue.index, 'adults'],
            code: 'adults_out_of_range',
            detail: `the property takes 1 to ${maxAdults} adults`,
          });
          break;
        default:
          errors.push({
            path: ['prices_by_occupancy', issue.index, 'amount'],
            code: issue.code,
            detail: 'a price is a non-negative whole amount in minor units',
          });
      }
    }
  }
  if (rate.child_prices === undefined) return errors;
  for (const issue of checkChildPrices(rate.child_prices, bands)) {
    switch (issue.code) {
      case 'band_missing':
        errors.push({
          path: ['child_prices'],
          code: 'child_band_missing',
          detail: `no child price for the plan's age band ${bandText(issue.band)}`,
        });
        break;
      case 'band_repeated':
        errors.push({
          path: ['child_prices', issue.index],
          code: 'child_band_repeated',
          detail: `the age band ${bandText(issue.band)} already has a price in this list`,
        });
        break;
      case 'band_unknown':
        errors.push({
          path: ['child_prices', issue.index],
          code: 'child_band_unknown',
          detail:
            bands.length === 0
              ? 'the plan names no child age bands: a child is priced by child_price'
              : `${bandText(issue.band)} is not one of the plan's age bands (${bands.map(bandText).join(', ')})`,
        });
    }
  }
  return errors;
}

/**
 * Prices for adults on a plan that names age bands, with no child prices and nowhere to take them
 * from: refused with `required` at `child_prices`. `unknownAt` names where no price is known (for
 * a night's write, the nights that hold none and a plan without default band prices).
 */
export function childPricesRequired(
  rate: PriceListsWritten,
  bands: readonly AgeBand[],
  unknownAt = '',
): PriceListError | null {
  if (rate.child_prices !== undefined || rate.prices_by_occupancy === undefined || bands.length === 0) return null;
  return {
    path: ['child_prices'],
    code: 'required',
    detail: `the plan names child age bands (${bands.map(bandText).join(', ')}): a price for adults comes with one child price for each${unknownAt}`,
  };
}
