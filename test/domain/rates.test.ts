import { describe, expect, test } from 'vitest';
import {
  checkOccupancyPrices,
  priceFromSummary,
  summarizeOccupancyPrices,
  summaryReproducesList,
  type OccupancyPrice,
} from '../../domain/pricing/rates.ts';

const list = (...amounts: number[]): OccupancyPrice[] =>
  amounts.map((amount, index) => ({ adults: index + 1, price: { amount, currency: 'EUR' } }));

describe('price, base_occupancy and extra_guest_price from prices_by_occupancy (docs/contract.md#availability, rule 3)', () => {
  test.each([
    ['flat up to 2, then +30 each', list(100, 100, 130, 160), 100, 2, 30, true],
    ['flat for every count', list(80, 80, 80), 80, 3, 0, true],
    ['rising from one adult', list(50, 70, 90), 50, 1, 20, true],
    ['a single count', list(100), 100, 1, 0, true],
    ['uneven steps: summary is approximate', list(100, 120, 150), 100, 1, 20, false],
    ['cheaper for two than one: lowest price wins', list(100, 90, 120), 90, 2, 30, false],
  ])('%s', (_name, prices, price, base, extra, reproduces) => {
    expect(summarizeOccupancyPrices(prices)).toEqual({
      price: { amount: price, currency: 'EUR' },
      base_occupancy: base,
      extra_guest_price: { amount: extra, currency: 'EUR' },
    });
    expect(summaryReproducesList(prices)).toBe(reproduces);
  });

  test('input order does not matter', () => {
    expect(summarizeOccupancyPrices([...list(100, 100, 130)].reverse())).toEqual(
      summarizeOccupancyPrices(list(100, 100, 130)),
    );
  });

  test('an empty list has no summary', () => {
    expect(() => summarizeOccupancyPrices([])).toThrow(RangeError);
    expect(summaryReproducesList([])).toBe(false);
  });

  test.each([
    [1, 100],
    [2, 100],
    [3, 130],
    [4, 160],
  ])('a base-plus-extra channel prices %i adults at %i', (adults, amount) => {
    expect(priceFromSummary(summarizeOccupancyPrices(list(100, 100, 130, 160)), adults).amount).toBe(amount);
  });
});

describe('checkOccupancyPrices', () => {
  const eur = (amount: number) => ({ amount, currency: 'EUR' });
  test.each([
    ['a complete list is valid', list(100, 120), 2, []],
    ['a missing count', [{ adults: 1, price: eur(100) }], 2, [{ code: 'adults_missing', adults: 2 }]],
    [
      'a repeated count',
      [
        { adults: 1, price: eur(100) },
        { adults: 1, price: eur(110) },
      ],
      1,
      [{ code: 'adults_repeated', adults: 1, index: 1 }],
    ],
    [
      'counts outside 1..max',
      [
        { adults: 0, price: eur(1) },
        { adults: 1, price: eur(1) },
        { adults: 3, price: eur(1) },
      ],
      2,
      [
        { code: 'adults_out_of_range', adults: 0, index: 0 },
        { code: 'adults_out_of_range', adults: 3, index: 2 },
        { code: 'adults_missing', adults: 2 },
      ],
    ],
    ['a negative price', [{ adults: 1, price: eur(-1) }], 1, [{ code: 'price_invalid', adults: 1, index: 0 }]],
    ['a fractional price', [{ adults: 1, price: eur(1.5) }], 1, [{ code: 'price_invalid', adults: 1, index: 0 }]],
    [
      'a price in another currency',
      [{ adults: 1, price: { amount: 1, currency: 'RON' } }],
      1,
      [{ code: 'currency_mismatch', adults: 1, index: 0 }],
    ],
  ])('%s', (_name, prices, maxAdults, issues) => {
    expect(checkOccupancyPrices(prices, maxAdults, 'EUR')).toEqual(issues);
  });
});
