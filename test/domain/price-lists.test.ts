import { describe, expect, test } from 'vitest';
import { conformNight, defaultChildPrices } from '../../domain/availability/conform.ts';
import type { NightState, PlanShape, RateState } from '../../domain/availability/nights.ts';
import { childPricesRequired, priceListErrors } from '../../domain/pricing/price-lists.ts';

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
      'adults priced with child prices left out: taken per night, not refused here',
      { prices_by_occupancy: adults(10, 20) },
      BANDS,
      [],
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

describe('child prices left out of a write that prices adults on a plan with age bands', () => {
  const priced = (child_prices: RateState['child_prices']): RateState => ({
    prices_by_occupancy: adults(10, 20),
    child_prices,
    child_price: null,
    infant_price: null,
    closed: false,
    min_stay: null,
    closed_to_arrival: false,
  });
  const night = (rates: Record<string, RateState>): NightState => ({
    date: '2026-12-20',
    units_available: 1,
    closed_to_arrival: false,
    closed_to_departure: false,
    min_stay: 1,
    max_stay: null,
    rates,
  });
  const defaults = { ...priced(children([0, 5], [6, 12]).map((c) => ({ ...c, amount: 7 }))), min_stay: null };
  const plan = (withDefaults: boolean): PlanShape => ({
    key: 'a',
    currency: 'RON',
    child_age_bands: BANDS,
    default_rates: withDefaults ? defaults : null,
  });
  const write = [{ rate_plan: 'a', prices_by_occupancy: adults(10, 20) }];

  test("the night's own band prices stay when they price every band", () => {
    const own = night({ a: priced(children([0, 5], [6, 12])) });
    expect(defaultChildPrices(own, write, [plan(true)])).toEqual({ night: own, unpriced: [] });
  });

  test("a night without band prices takes the plan's default_rates ones", () => {
    const { night: result, unpriced } = defaultChildPrices(night({ a: priced([]) }), write, [plan(true)]);
    expect(unpriced).toEqual([]);
    expect(result.rates.a!.child_prices).toEqual(defaults.child_prices);
  });

  test("band prices for other bands than the plan's are not kept: the defaults are taken", () => {
    const stale = night({ a: priced(children([0, 12])) });
    expect(defaultChildPrices(stale, write, [plan(true)]).night.rates.a!.child_prices).toEqual(defaults.child_prices);
  });

  test('with neither, the rate is unpriced and the night is left as it is', () => {
    const bare = night({ a: priced([]) });
    expect(defaultChildPrices(bare, write, [plan(false)])).toEqual({ night: bare, unpriced: [0] });
    expect(childPricesRequired(write[0]!, BANDS)?.code).toBe('required');
  });

  test('child prices sent, no adult prices, or a plan without bands: nothing to default', () => {
    const bare = night({ a: priced([]) });
    const withChildren = [{ ...write[0]!, child_prices: children([0, 5], [6, 12]) }];
    expect(defaultChildPrices(bare, withChildren, [plan(false)]).unpriced).toEqual([]);
    expect(defaultChildPrices(bare, [{ rate_plan: 'a', closed: true }], [plan(false)]).unpriced).toEqual([]);
    expect(defaultChildPrices(bare, write, [{ ...plan(false), child_age_bands: [] }]).unpriced).toEqual([]);
    expect(childPricesRequired(write[0]!, [])).toBeNull();
  });
});
