import { describe, expect, test } from 'vitest';
import type { Fee } from '../../domain/pricing/fee.ts';
import { offerStay, priceOfStay, type StayRequest } from '../../domain/pricing/price-of-stay.ts';
import type { Night, NightRate, RatePlanForPricing } from '../../domain/pricing/stay-rules.ts';

const CUR = 'EUR';
const m = (amount: number, currency = CUR) => ({ amount, currency });

const plan = (id: string, overrides: Partial<RatePlanForPricing> = {}): RatePlanForPricing => ({
  id,
  currency: CUR,
  child_age_bands: [
    { age_from: 0, age_to: 5 },
    { age_from: 6, age_to: 11 },
  ],
  ...overrides,
});
const PLAN = plan('rpl_a');

const rate = (overrides: Partial<NightRate> = {}, currency = CUR): NightRate => ({
  rate_plan_id: 'rpl_a',
  closed: false,
  prices_by_occupancy: [
    { adults: 1, price: m(8000, currency) },
    { adults: 2, price: m(10000, currency) },
    { adults: 3, price: m(12000, currency) },
  ],
  child_prices: [
    { age_from: 0, age_to: 5, price: m(1000, currency) },
    { age_from: 6, age_to: 11, price: m(2500, currency) },
  ],
  child_price: m(2000, currency),
  infant_price: m(300, currency),
  min_stay: null,
  closed_to_arrival: false,
  ...overrides,
});

const night = (date: string, overrides: Partial<Night> = {}, rates: NightRate[] = [rate()]): Night => ({
  date,
  units_available: 2,
  closed_to_arrival: false,
  closed_to_departure: false,
  min_stay: null,
  max_stay: null,
  rates,
  ...overrides,
});

/** Nights 2025-07-01 .. 2025-07-20, each as `night(date)` unless changed by `change`. */
const calendar = (change: (date: string, day: number) => Partial<Night> = () => ({}), rates?: NightRate[]): Night[] =>
  Array.from({ length: 20 }, (_, index) => {
    const date = `2025-07-${String(index + 1).padStart(2, '0')}`;
    return night(date, change(date, index + 1), rates);
  });

const fee = (overrides: Partial<Fee>): Fee => ({
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
  ...overrides,
});

const request = (overrides: Partial<StayRequest> = {}): StayRequest => ({
  fees: [],
  city_tax_status: 'none',
  nights: calendar(),
  party: { adults: 2, child_ages: [], infants: 0 },
  arrival: '2025-07-01',
  departure: '2025-07-04',
  ...overrides,
});

const admitted = (plan0: RatePlanForPricing, req: StayRequest) => {
  const result = priceOfStay(plan0, req);
  if (!result.admitted) throw new Error(`refused: ${JSON.stringify(result.reasons)}`);
  return result;
};

describe('Price of a stay 1: nightly price for the party', () => {
  test.each([
    ['the occupancy price for the number of adults', { adults: 2, child_ages: [], infants: 0 }, 10000],
    ['one adult', { adults: 1, child_ages: [], infants: 0 }, 8000],
    ['each child by its age band', { adults: 2, child_ages: [3, 8], infants: 0 }, 10000 + 1000 + 2500],
    [
      'age bands are inclusive at both ends',
      { adults: 2, child_ages: [0, 5, 6, 11], infants: 0 },
      10000 + 2 * 1000 + 2 * 2500,
    ],
    ['infant_price for each infant', { adults: 2, child_ages: [], infants: 2 }, 10000 + 2 * 300],
    ['adults, children and infants together', { adults: 3, child_ages: [7], infants: 1 }, 12000 + 2500 + 300],
  ])('%s', (_name, party, perNight) => {
    const result = admitted(PLAN, request({ party }));
    expect(result.nightly).toEqual([m(perNight), m(perNight), m(perNight)]);
    expect(result.total).toEqual(m(3 * perNight));
  });

  test('child_price when the plan names no age bands', () => {
    const result = admitted(
      plan('rpl_a', { child_age_bands: [] }),
      request({ party: { adults: 2, child_ages: [3, 15], infants: 0 } }),
    );
    expect(result.nightly[0]).toEqual(m(10000 + 2 * 2000));
  });

  test('each night is priced by its own rate, arrival up to departure exclusive', () => {
    const nights = calendar((_date, day) => ({
      rates: [rate({ prices_by_occupancy: [{ adults: 2, price: m(10000 + day) }] })],
    }));
    const result = admitted(PLAN, request({ nights }));
    expect(result.nightly).toEqual([m(10001), m(10002), m(10003)]);
    expect(result.total).toEqual(m(30006));
  });
});

describe('Price of a stay 2: fees not included and payable at booking are added', () => {
  test.each([
    ['cleaning fee once per stay', fee({}), 30000 + 5000, 5000],
    ['per night: once a night', fee({ type: 'linen', per: 'night', amount: m(700) }), 30000 + 3 * 700, 2100],
    [
      'per night capped at max_nights',
      fee({ type: 'linen', per: 'night', amount: m(700), max_nights: 2 }),
      30000 + 2 * 700,
      1400,
    ],
    [
      'per guest_night: adults and children, never infants',
      fee({ type: 'linen', per: 'guest_night', amount: m(100) }),
      30000 + 3 * 3 * 100 + 3 * 1000 + 3 * 300,
      900,
    ],
    [
      'percent on the accommodation total',
      fee({ basis: 'percent', amount: null, percent_bp: 1000, percent_of: 'accommodation' }),
      30000 + 3000,
      3000,
    ],
  ])('%s', (_name, addedFee, total, feeAmount) => {
    const party = addedFee.per === 'guest_night' ? { adults: 2, child_ages: [3], infants: 1 } : undefined;
    const result = admitted(PLAN, request({ fees: [addedFee], ...(party ? { party } : {}) }));
    expect(result.total).toEqual(m(total));
    expect(result.fees_added).toEqual([{ fee_type: addedFee.type, per: addedFee.per, money: m(feeAmount) }]);
  });

  test.each([
    ['night', { adults: 2, child_ages: [], infants: 0 }],
    ['guest_night', { adults: 2, child_ages: [3], infants: 1 }],
  ] as const)('a cleaning fee recorded per %s is still added once per stay', (per, party) => {
    const result = admitted(PLAN, request({ fees: [fee({ per })], party }));
    expect(result.fees_added).toEqual([{ fee_type: 'cleaning', per: 'stay', money: m(5000) }]);
    expect(result.total.amount - result.nightly.reduce((sum, night) => sum + night.amount, 0)).toBe(5000);
  });

  test('rounded once: a tax of 1.5 per guest-night over 3 guest-nights adds 5, not 6', () => {
    const tax = fee({ type: 'city_tax', per: 'guest_night', amount: m(1.5), exempts_children: false });
    const result = admitted(
      PLAN,
      request({ fees: [tax], party: { adults: 1, child_ages: [], infants: 0 }, city_tax_status: 'levied' }),
    );
    expect(result.total).toEqual(m(3 * 8000 + 5));
    expect(result.shown_beside).toEqual([]);
  });

  test('rounded once over the whole sum, not part by part', () => {
    const nights = calendar(() => ({ rates: [rate({ prices_by_occupancy: [{ adults: 2, price: m(3333) }] })] }));
    const fees = [
      fee({ basis: 'percent', amount: null, percent_bp: 5, percent_of: 'accommodation' }),
      fee({ type: 'city_tax', per: 'stay', amount: m(0.5) }),
    ];
    // 9999 x 0.05 % = 4.9995; + 0.5 = 5.4995; total 10 004.4995 -> 10 004 once.
    // Rounding each part first would give 9999 + 5 + 1 = 10 005.
    const result = admitted(PLAN, request({ nights, fees, city_tax_status: 'levied' }));
    expect(result.total).toEqual(m(10004));
    expect(result.fees_added.map((added) => added.money.amount)).toEqual([5, 1]);
  });

  test('percent fee of a 3-decimal currency (KWD), rounded once', () => {
    const kwd = plan('rpl_a', { currency: 'KWD' });
    const nights = calendar(
      () => ({}),
      [rate({ prices_by_occupancy: [{ adults: 2, price: m(45500, 'KWD') }] }, 'KWD')],
    );
    const fees = [fee({ basis: 'percent', amount: null, percent_bp: 125 })];
    // 2 x 45.500 KWD = 91.000; 1.25 % = 1.1375 -> 1.138 KWD once.
    const result = admitted(kwd, request({ nights, fees, departure: '2025-07-03' }));
    expect(result.total).toEqual(m(92138, 'KWD'));
    expect(result.nightly).toEqual([m(45500, 'KWD'), m(45500, 'KWD')]);
  });

  test('0-decimal currency (JPY): cleaning fee and a percent fee', () => {
    const jpy = plan('rpl_a', { currency: 'JPY' });
    const nights = calendar(
      () => ({}),
      [rate({ prices_by_occupancy: [{ adults: 2, price: m(12000, 'JPY') }] }, 'JPY')],
    );
    const fees = [
      fee({ amount: m(3000, 'JPY') }),
      fee({ type: 'service', basis: 'percent', amount: null, percent_bp: 333 }),
    ];
    // 24 000 + 3 000 + 799.2 -> 27 799 yen.
    const result = admitted(jpy, request({ nights, fees, departure: '2025-07-03' }));
    expect(result.total).toEqual(m(27799, 'JPY'));
  });
});

describe('Price of a stay 3: nothing else is added or taken off', () => {
  test('a long stay costs exactly the sum of its nights and fees', () => {
    const result = admitted(PLAN, request({ departure: '2025-07-15', fees: [fee({})] }));
    expect(result.nightly).toHaveLength(14);
    expect(result.total).toEqual(m(14 * 10000 + 5000));
  });
});

describe('Price of a stay 4: shown beside, not added', () => {
  test.each([
    [
      'a fee payable at the property (tourist tax) is shown, not added',
      fee({ type: 'city_tax', per: 'guest_night', amount: m(150), payable_at: 'property', exempts_children: false }),
      'levied',
      { kind: 'tourist_tax', tax: { kind: 'amount', money: m(150 * 2 * 3) } },
    ],
    [
      'an included fee is shown, not added',
      fee({ included_in_price: true }),
      'none',
      {
        kind: 'fee',
        fee_type: 'cleaning',
        payable_at: 'booking',
        included_in_price: true,
        charge: { kind: 'amount', money: m(5000) },
      },
    ],
    [
      'a non-tax fee payable at the property is shown, not added',
      fee({ payable_at: 'property' }),
      'none',
      {
        kind: 'fee',
        fee_type: 'cleaning',
        payable_at: 'property',
        included_in_price: false,
        charge: { kind: 'amount', money: m(5000) },
      },
    ],
    [
      'Tourist tax 3: a percentage tax is shown at the property even when payable at booking',
      fee({
        type: 'city_tax',
        basis: 'percent',
        amount: null,
        percent_bp: 125,
        percent_of: 'accommodation_excluding_vat',
      }),
      'levied',
      {
        kind: 'tourist_tax',
        tax: { kind: 'percent_at_property', percent_bp: 125, percent_of: 'accommodation_excluding_vat' },
      },
    ],
    [
      'Tourist tax 4: an unknown tax is shown as a local tax, never zero',
      fee({ type: 'city_tax', basis: null, amount: null, payable_at: 'property' }),
      'levied',
      { kind: 'tourist_tax', tax: { kind: 'unknown_local_tax' } },
    ],
    [
      'a fee payable at a place this version does not know is shown, not added',
      fee({ payable_at: 'checkout_desk' }),
      'none',
      {
        kind: 'fee',
        fee_type: 'cleaning',
        payable_at: 'checkout_desk',
        included_in_price: false,
        charge: { kind: 'amount', money: m(5000) },
      },
    ],
  ])('%s', (_name, shownFee, status, beside) => {
    const result = admitted(PLAN, request({ fees: [shownFee], city_tax_status: status }));
    expect(result.total).toEqual(m(30000));
    expect(result.fees_added).toEqual([]);
    expect(result.shown_beside).toEqual([beside]);
  });

  test.each([
    ['Tourist tax 1: undeclared says a tax may apply', 'undeclared', [{ kind: 'tourist_tax_may_apply' }]],
    ['Tourist tax 1: an unknown status reads as undeclared', 'partly', [{ kind: 'tourist_tax_may_apply' }]],
    ['Tourist tax 1: none shows nothing', 'none', []],
    [
      'Tourist tax 1: levied without a fee shows a local tax',
      'levied',
      [{ kind: 'tourist_tax', tax: { kind: 'unknown_local_tax' } }],
    ],
  ])('%s', (_name, status, beside) => {
    expect(admitted(PLAN, request({ city_tax_status: status })).shown_beside).toEqual(beside);
  });

  test('cleaning added, tourist tax beside, in one stay', () => {
    const fees = [
      fee({}),
      fee({ type: 'city_tax', per: 'guest_night', amount: m(100), payable_at: 'property', max_nights: 2 }),
    ];
    const result = admitted(
      PLAN,
      request({ fees, city_tax_status: 'levied', party: { adults: 2, child_ages: [4], infants: 1 } }),
    );
    expect(result.total).toEqual(m(3 * (10000 + 1000 + 300) + 5000));
    expect(result.shown_beside).toEqual([{ kind: 'tourist_tax', tax: { kind: 'amount', money: m(100 * 3 * 2) } }]);
  });
});

describe('refusals', () => {
  const closedRate = rate({ closed: true });
  test.each([
    ['departure not after arrival', request({ departure: '2025-07-01' }), [{ code: 'invalid_dates' }]],
    ['a date that does not exist', request({ arrival: '2025-02-30' }), [{ code: 'invalid_dates' }]],
    [
      'a party without adults',
      request({ party: { adults: 0, child_ages: [3], infants: 0 } }),
      [{ code: 'invalid_party' }],
    ],
    [
      'a negative child age',
      request({ party: { adults: 1, child_ages: [-1], infants: 0 } }),
      [{ code: 'invalid_party' }],
    ],
    [
      'a closed night',
      request({ nights: calendar((d) => (d === '2025-07-02' ? { rates: [closedRate] } : {})) }),
      [{ code: 'rate_closed', date: '2025-07-02' }],
    ],
    [
      'a night with no rate for the plan',
      request({ nights: calendar((d) => (d === '2025-07-03' ? { rates: [] } : {})) }),
      [{ code: 'rate_closed', date: '2025-07-03' }],
    ],
    [
      'a night not published',
      request({ nights: calendar().filter((n) => n.date !== '2025-07-02') }),
      [{ code: 'night_missing', date: '2025-07-02' }],
    ],
    [
      'no units on a night',
      request({ nights: calendar((d) => (d === '2025-07-03' ? { units_available: 0 } : {})) }),
      [{ code: 'no_units', date: '2025-07-03' }],
    ],
    [
      'closed to arrival at the property on the arrival date',
      request({ nights: calendar((d) => (d === '2025-07-01' ? { closed_to_arrival: true } : {})) }),
      [{ code: 'closed_to_arrival', date: '2025-07-01', level: 'property' }],
    ],
    [
      'closed to arrival on the plan on the arrival date',
      request({ nights: calendar((d) => (d === '2025-07-01' ? { rates: [rate({ closed_to_arrival: true })] } : {})) }),
      [{ code: 'closed_to_arrival', date: '2025-07-01', level: 'rate_plan' }],
    ],
    [
      'closed to departure on the departure date',
      request({ nights: calendar((d) => (d === '2025-07-04' ? { closed_to_departure: true } : {})) }),
      [{ code: 'closed_to_departure', date: '2025-07-04' }],
    ],
    [
      'property min_stay of the arrival night',
      request({ nights: calendar((d) => (d === '2025-07-01' ? { min_stay: 4 } : {})) }),
      [{ code: 'min_stay', level: 'property', required: 4, nights: 3 }],
    ],
    [
      'plan min_stay of the arrival night',
      request({ nights: calendar(() => ({}), [rate({ min_stay: 5 })]) }),
      [{ code: 'min_stay', level: 'rate_plan', required: 5, nights: 3 }],
    ],
    [
      'max_stay of the arrival night',
      request({ nights: calendar((d) => (d === '2025-07-01' ? { max_stay: 2 } : {})) }),
      [{ code: 'max_stay', allowed: 2, nights: 3 }],
    ],
    [
      'more adults than the occupancy list',
      request({ party: { adults: 4, child_ages: [], infants: 0 } }),
      [{ code: 'party_exceeds_occupancy', adults: 4 }],
    ],
    [
      'a child age outside every band',
      request({ party: { adults: 2, child_ages: [12], infants: 0 } }),
      [{ code: 'child_age_outside_bands', age: 12 }],
    ],
    [
      'a party over the capacity',
      request({ party: { adults: 2, child_ages: [3, 4], infants: 0 }, capacity: { max_guests: 3 } }),
      [{ code: 'party_exceeds_capacity' }],
    ],
    [
      'infants over the capacity',
      request({ party: { adults: 2, child_ages: [], infants: 2 }, capacity: { max_guests: 2, max_infants: 1 } }),
      [{ code: 'party_exceeds_capacity' }],
    ],
    [
      'a night without an infant price',
      request({
        party: { adults: 2, child_ages: [], infants: 1 },
        nights: calendar(() => ({}), [rate({ infant_price: null })]),
      }),
      ['2025-07-01', '2025-07-02', '2025-07-03'].map((date) => ({ code: 'price_missing', date, of: 'infant' })),
    ],
    [
      'a fee in another currency cannot be added',
      request({ fees: [fee({ amount: m(5000, 'RON') })] }),
      [{ code: 'currency_mismatch', fee_type: 'cleaning' }],
    ],
  ])('%s', (_name, req, reasons) => {
    expect(priceOfStay(PLAN, req)).toEqual({ admitted: false, reasons });
  });

  test.each([
    ['closed to arrival on a later night', { closed_to_arrival: true }],
    ['closed to departure on a night inside the stay', { closed_to_departure: true }],
    ['a min_stay on a later night', { min_stay: 10 }],
    ['a max_stay on a later night', { max_stay: 1 }],
  ])('admitted despite %s: arrival rules are read on the arrival night only', (_name, change) => {
    const nights = calendar((d) => (d === '2025-07-02' ? change : {}));
    expect(priceOfStay(PLAN, request({ nights })).admitted).toBe(true);
  });

  test('a stay ending past the published nights is not refused for its departure night', () => {
    const nights = calendar().filter((n) => n.date < '2025-07-04');
    expect(priceOfStay(PLAN, request({ nights })).admitted).toBe(true);
  });

  test('every reason is reported, not only the first', () => {
    const nights = calendar((d) => (d === '2025-07-01' ? { closed_to_arrival: true, units_available: 0 } : {}));
    const result = priceOfStay(PLAN, request({ nights, party: { adults: 2, child_ages: [14], infants: 0 } }));
    expect(result).toEqual({
      admitted: false,
      reasons: [
        { code: 'child_age_outside_bands', age: 14 },
        { code: 'no_units', date: '2025-07-01' },
        { code: 'closed_to_arrival', date: '2025-07-01', level: 'property' },
      ],
    });
  });
});

describe('Price of a stay 3: every admitted plan is offered, the cheapest first', () => {
  const plans = [plan('rpl_flex'), plan('rpl_saver'), plan('rpl_week'), plan('rpl_closed'), plan('rpl_same')];
  const price = (id: string, amount: number, extra: Partial<NightRate> = {}) =>
    rate({ rate_plan_id: id, prices_by_occupancy: [{ adults: 2, price: m(amount) }], ...extra });
  const nights = calendar(
    () => ({}),
    [
      price('rpl_flex', 10000),
      price('rpl_saver', 9000),
      price('rpl_week', 7000, { min_stay: 7 }),
      price('rpl_closed', 5000, { closed: true }),
      price('rpl_same', 10000),
    ],
  );

  test('a 3-night stay: the plan needing 7 nights and the closed plan are refused', () => {
    const offers = offerStay(plans, request({ nights, fees: [fee({})] }));
    expect(offers.offers.map((o) => [o.rate_plan_id, o.price.total.amount])).toEqual([
      ['rpl_saver', 32000],
      ['rpl_flex', 35000],
      ['rpl_same', 35000],
    ]);
    expect(offers.refused.map((r) => [r.rate_plan_id, r.reasons[0]?.code])).toEqual([
      ['rpl_week', 'min_stay'],
      ['rpl_closed', 'rate_closed'],
    ]);
  });

  test('a 7-night stay: the longer-stay plan is the cheapest', () => {
    const offers = offerStay(plans, request({ nights, departure: '2025-07-08' }));
    expect(offers.offers.map((o) => o.rate_plan_id)).toEqual(['rpl_week', 'rpl_saver', 'rpl_flex', 'rpl_same']);
    expect(offers.offers[0]?.price.total).toEqual(m(49000));
  });

  test('no plan admits the stay', () => {
    const offers = offerStay(plans, request({ nights, party: { adults: 3, child_ages: [], infants: 0 } }));
    expect(offers.offers).toEqual([]);
    expect(offers.refused).toHaveLength(5);
  });

  test('totals in different currencies are not compared across currencies', () => {
    const ron = plan('rpl_ron', { currency: 'RON' });
    const mixed = calendar(() => ({}), [price('rpl_flex', 10000), rate({ rate_plan_id: 'rpl_ron' }, 'RON')]);
    const offers = offerStay([ron, plan('rpl_flex')], request({ nights: mixed }));
    expect(offers.offers.map((o) => o.price.total.currency)).toEqual(['EUR', 'RON']);
  });
});
