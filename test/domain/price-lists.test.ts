import { describe, expect, test } from 'vitest';
import { conformNight } from '../../domain/availability/conform.ts';
import type { NightState, RateState } from '../../domain/availability/nights.ts';
import { priceListErrors } from '../../domain/pricing/price-lists.ts';

const BANDS = [
  { age_from: 0, age_to: 5 },
  { age_from: 6, age_to: 12 },
];
const adults = (...amounts: number[]) => amounts.map((amount, i) => ({ adults: i + 1, amount }));
const children = (...bands: [number, number][]) =>
  bands.map(([age_from, age_to]) => ({ age_from, age_to, amount: 100 }));

describe('priceListErrors: what a write of prices must hold', () => {
  test.each([
    ['a list for 1 and 2 adults, no bands', { prices_by_occupancy: adults(10, 20) }, [], []],
    [
      'a list with both bands priced',
      { prices_by_occupancy: adults(10, 20), child_prices: children([0, 5], [6, 12]) },
      BANDS,
      [],
    ],
    ['only child prices, every band', { child_prices: children([6, 12], [0, 5]) }, BANDS, []],
    ['nothing priced', {}, BANDS, []],
    ['a missing count', { prices_by_occupancy: adults(10) }, [], ['prices_by_occupancy adults_missing']],
    [
      'a repeated and an out-of-range count',
      {
        prices_by_occupancy: [
          { adults: 1, amount: 1 },
          { adults: 1, amount: 2 },
          { adults: 2, amount: 2 },
          { adults: 7, amount: 3 },
        ],
      },
      [],
      ['prices_by_occupancy/1/adults adults_repeated', 'prices_by_occupancy/3/adults adults_out_of_range'],
    ],
    [
      'adults priced without the bands the plan names',
      { prices_by_occupancy: adults(10, 20) },
      BANDS,
      ['child_prices required'],
    ],
    ['a band missing', { child_prices: children([0, 5]) }, BANDS, ['child_prices child_band_missing']],
    [
      'a band repeated and one the plan does not name',
      { child_prices: children([0, 5], [0, 5], [6, 12], [13, 17]) },
      BANDS,
      ['child_prices/1 child_band_repeated', 'child_prices/3 child_band_unknown'],
    ],
    [
      'band prices on a plan without bands',
      { prices_by_occupancy: adults(10, 20), child_prices: children([0, 5]) },
      [],
      ['child_prices/0 child_band_unknown'],
    ],
  ])('%s', (_name, rate, bands, expected) => {
    const errors = priceListErrors(rate, { maxAdults: 2, bands });
    expect(errors.map((e) => `${e.path.join('/')} ${e.code}`)).toEqual(expected);
  });
});

describe('conformNight: nights priced before a change of capacity or age bands', () => {
  const rate = (overrides: Partial<RateState> = {}): RateState => ({
    prices_by_occupancy: adults(10, 20, 30),
    child_prices: children([0, 5], [6, 12]),
    child_price: 50,
    infant_price: 0,
    closed: false,
    min_stay: 3,
    closed_to_arrival: true,
    ...overrides,
  });
  const night = (r: RateState): NightState => ({
    date: '2026-12-20',
    units_available: 1,
    closed_to_arrival: false,
    closed_to_departure: false,
    min_stay: 1,
    max_stay: null,
    rates: { a: r },
  });
  const unpriced = {
    prices_by_occupancy: [],
    child_prices: [],
    child_price: null,
    infant_price: null,
    closed: false,
    min_stay: 3,
    closed_to_arrival: true,
  };

  test.each([
    ['the same shape: unchanged', rate(), 3, BANDS, rate()],
    [
      'fewer adults: the prices above the new maximum go, the night stays open',
      rate(),
      2,
      BANDS,
      rate({ prices_by_occupancy: adults(10, 20) }),
    ],
    ['more adults: the rate loses its prices, its restrictions stay', rate(), 4, BANDS, unpriced],
    ['a band added: the rate loses its prices', rate(), 3, [...BANDS, { age_from: 13, age_to: 17 }], unpriced],
    ['bands dropped: band prices go, children priced by child_price', rate(), 3, [], rate({ child_prices: [] })],
    [
      'a rate without prices: unchanged',
      rate({ prices_by_occupancy: [], child_prices: [] }),
      4,
      BANDS,
      rate({ prices_by_occupancy: [], child_prices: [] }),
    ],
  ])('%s', (_name, input, maxAdults, bands, expected) => {
    expect(conformNight(night(input), { maxAdults, plans: [{ key: 'a', child_age_bands: bands }] }).rates.a).toEqual(
      expected,
    );
  });

  test('a night already in line is returned as is', () => {
    const n = night(rate());
    expect(conformNight(n, { maxAdults: 3, plans: [{ key: 'a', child_age_bands: BANDS }] })).toBe(n);
  });
});
