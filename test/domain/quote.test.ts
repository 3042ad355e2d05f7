import { describe, expect, test } from 'vitest';
import type { Fee } from '../../domain/pricing/fee.ts';
import type { StayRequest } from '../../domain/pricing/price-of-stay.ts';
import { quoteStay } from '../../domain/pricing/quote.ts';
import type { Night, NightRate, RatePlanForPricing } from '../../domain/pricing/stay-rules.ts';
import { vatRateOn, VatSchedule, type VatRate } from '../../domain/pricing/vat.ts';

const m = (amount: number) => ({ amount, currency: 'EUR' });
const BANDS = [
  { age_from: 0, age_to: 5 },
  { age_from: 6, age_to: 11 },
];
const BANDED: RatePlanForPricing = { id: 'rpl_band', currency: 'EUR', child_age_bands: BANDS };
const FLAT: RatePlanForPricing = { id: 'rpl_flat', currency: 'EUR', child_age_bands: [] };

const rate = (id: string, adultsTwo: number): NightRate => ({
  rate_plan_id: id,
  closed: false,
  prices_by_occupancy: [
    { adults: 1, price: m(adultsTwo - 2000) },
    { adults: 2, price: m(adultsTwo) },
  ],
  child_prices: [
    { age_from: 0, age_to: 5, price: m(1000) },
    { age_from: 6, age_to: 11, price: m(2500) },
  ],
  child_price: m(2000),
  infant_price: m(300),
  min_stay: null,
  closed_to_arrival: false,
});

/** Nights 2025-07-01 .. 2025-07-10; `price(date)` is each plan's price for two adults. */
const calendar = (price: (date: string) => number, plans: string[] = ['rpl_band', 'rpl_flat']): Night[] =>
  Array.from({ length: 10 }, (_, i) => {
    const date = `2025-07-${String(i + 1).padStart(2, '0')}`;
    return {
      date,
      units_available: 1,
      closed_to_arrival: false,
      closed_to_departure: false,
      min_stay: null,
      max_stay: null,
      rates: plans.map((id) => rate(id, price(date))),
    };
  });

const cleaning: Fee = {
  type: 'cleaning',
  basis: 'fixed',
  amount: m(5000),
  percent_bp: null,
  percent_of: null,
  per: 'stay',
  included_in_price: false,
  payable_at: 'booking',
  max_nights: null,
  exempts_children: null,
};
const cityTax: Fee = {
  ...cleaning,
  type: 'city_tax',
  amount: m(150),
  per: 'guest_night',
  payable_at: 'property',
  exempts_children: false,
};

const request = (overrides: Partial<StayRequest> = {}): StayRequest => ({
  fees: [],
  city_tax_status: 'none',
  nights: calendar(() => 10000),
  party: { adults: 2, child_ages: [], infants: 0 },
  arrival: '2025-07-01',
  departure: '2025-07-04',
  ...overrides,
});

const NINE: VatRate[] = [{ from: '2025-01-01', rate_bp: 900 }];

describe('vatRateOn: the latest rate whose date is on or before the day', () => {
  test.each([
    ['before any rate', '2024-12-31', null],
    ['on its first day', '2025-01-01', 900],
    ['the day before a change', '2025-07-02', 900],
    ['on the day of a change', '2025-07-03', 1100],
  ])('%s', (_name, date, expected) => {
    expect(vatRateOn([{ from: '2025-07-03', rate_bp: 1100 }, ...NINE], date)).toBe(expected);
  });
});

describe('quoteStay: the exact price of a stay (Price of a stay 6)', () => {
  test.each([
    {
      name: 'one rate through the stay: the total is the published sum, VAT rounded once over it',
      req: request({ fees: [cleaning] }),
      vat: NINE,
      total: 35000,
      nights: [10000, 10000, 10000],
      vatAmount: { rate_bp: 900, amount: m(2890) },
    },
    {
      // Night of 07-01 is published at the rate of 07-02 (9 %), the others at 11 %; the stay is charged 11 %.
      name: 'a VAT rise during the stay: every night at the rate in force on the departure date',
      req: request({ nights: calendar(() => 10900) }),
      vat: [...NINE, { from: '2025-07-03', rate_bp: 1100 }],
      total: 32900,
      nights: [11100, 10900, 10900],
      vatAmount: { rate_bp: 1100, amount: m(3260) },
    },
    {
      name: 'a VAT cut on the departure date: the nights published at the old rate are charged the new one',
      req: request({ nights: calendar(() => 11100) }),
      vat: [
        { from: '2025-01-01', rate_bp: 1100 },
        { from: '2025-07-04', rate_bp: 900 },
      ],
      total: 32900,
      nights: [10900, 10900, 11100],
      vatAmount: { rate_bp: 900, amount: m(2717) },
    },
    {
      name: 'no VAT schedule: the published sum, VAT not stated',
      req: request({ fees: [cleaning] }),
      vat: [],
      total: 35000,
      nights: [10000, 10000, 10000],
      vatAmount: null,
    },
    {
      name: 'a schedule that starts during the stay: a night without a known rate leaves VAT unstated',
      req: request(),
      vat: [{ from: '2025-07-03', rate_bp: 900 }],
      total: 30000,
      nights: [10000, 10000, 10000],
      vatAmount: null,
    },
  ])('$name', ({ req, vat, total, nights, vatAmount }) => {
    const [quote] = quoteStay([FLAT], req, vat);
    expect(quote?.total).toEqual(m(total));
    expect(quote?.nights.map((night) => night.price.amount)).toEqual(nights);
    expect(quote?.vat).toEqual(vatAmount);
  });

  test('a party with children and an infant on a plan priced by age band', () => {
    const req = request({ party: { adults: 2, child_ages: [4, 9], infants: 1 } });
    const [quote] = quoteStay([BANDED], req, NINE);
    // 10000 for two adults + 1000 (band 0-5) + 2500 (band 6-11) + 300 for the infant, each night.
    expect(quote?.nights.map((night) => night.price)).toEqual([m(13800), m(13800), m(13800)]);
    expect(quote?.total).toEqual(m(41400));
    expect(quote?.vat).toEqual({ rate_bp: 900, amount: m(3418) });
  });

  test('a child older than every band: the banded plan is not offered, the plan without bands is', () => {
    const quotes = quoteStay([BANDED, FLAT], request({ party: { adults: 2, child_ages: [13], infants: 0 } }), NINE);
    expect(quotes.map((quote) => [quote.rate_plan_id, quote.total.amount])).toEqual([['rpl_flat', 36000]]);
  });

  test('cheapest first; plans at the same total keep the property order', () => {
    const nights = calendar(() => 0).map((night) => ({
      ...night,
      rates: [rate('rpl_a', 10000), rate('rpl_b', 9000), rate('rpl_c', 10000)],
    }));
    const plans = ['rpl_a', 'rpl_b', 'rpl_c'].map((id) => ({ ...FLAT, id }));
    expect(quoteStay(plans, request({ nights }), NINE).map((quote) => quote.rate_plan_id)).toEqual([
      'rpl_b',
      'rpl_a',
      'rpl_c',
    ]);
  });

  test('cleaning fee added, tourist tax shown beside and not in the total', () => {
    const [quote] = quoteStay([FLAT], request({ fees: [cleaning, cityTax], city_tax_status: 'levied' }), NINE);
    expect(quote?.total).toEqual(m(35000));
    expect(quote?.fees_added).toEqual([{ type: 'cleaning', per: 'stay', amount: m(5000) }]);
    expect(quote?.fees_beside).toEqual([
      {
        type: 'city_tax',
        payable_at: 'property',
        included_in_price: false,
        charge: 'amount',
        amount: m(150 * 2 * 3),
        percent_bp: null,
        percent_of: null,
      },
    ]);
  });

  test('an undeclared tourist tax is shown as one that may apply', () => {
    const [quote] = quoteStay([FLAT], request({ city_tax_status: 'undeclared' }), NINE);
    expect(quote?.fees_beside).toEqual([
      {
        type: 'city_tax',
        payable_at: 'property',
        included_in_price: false,
        charge: 'may_apply',
        amount: null,
        percent_bp: null,
        percent_of: null,
      },
    ]);
  });

  test('a stay no plan admits has no quote', () => {
    const nights = calendar(() => 10000).map((night) =>
      night.date === '2025-07-02' ? { ...night, units_available: 0 } : night,
    );
    expect(quoteStay([FLAT, BANDED], request({ nights }), NINE)).toEqual([]);
  });
});

describe('VatSchedule: what the platform may write', () => {
  test.each([
    ['a rate above 100 %', { rates: [{ from: '2025-01-01', rate_bp: 10_001 }] }, ['rates', 0, 'rate_bp']],
    ['a fractional rate', { rates: [{ from: '2025-01-01', rate_bp: 9.5 }] }, ['rates', 0, 'rate_bp']],
    [
      'two rates on one date',
      {
        rates: [
          { from: '2025-01-01', rate_bp: 900 },
          { from: '2025-01-01', rate_bp: 500 },
        ],
      },
      ['rates', 1, 'from'],
    ],
    ['an impossible date', { rates: [{ from: '2025-02-30', rate_bp: 900 }] }, ['rates', 0, 'from']],
    [
      'an unknown applies_to',
      { rates: [{ from: '2025-01-01', rate_bp: 900, applies_to: 'food' }] },
      ['rates', 0, 'applies_to'],
    ],
  ])('refuses %s', (_name, input, path) => {
    const parsed = VatSchedule.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((issue) => issue.path)).toEqual([path]);
  });

  test('accepts a schedule, accommodation by default', () => {
    expect(VatSchedule.parse({ rates: [{ from: '2025-01-01', rate_bp: 900 }] })).toEqual({
      rates: [{ from: '2025-01-01', rate_bp: 900, applies_to: 'accommodation' }],
    });
  });
});
