import { describe, expect, test } from 'vitest';
import type { Fee, Party } from '../../domain/pricing/fee.ts';
import { readCityTaxStatus, touristTax, touristTaxNotice } from '../../domain/pricing/tourist-tax.ts';

const fixedTax = (amount: number | null, overrides: Partial<Fee> = {}): Fee => ({
  type: 'city_tax',
  basis: 'fixed',
  amount: amount === null ? null : { amount, currency: 'EUR' },
  percent_bp: null,
  percent_of: null,
  per: 'guest_night',
  included_in_price: false,
  payable_at: 'property',
  max_nights: null,
  exempts_children: false,
  ...overrides,
});

const percentTax = (percentBp: number | null): Fee =>
  fixedTax(null, {
    basis: 'percent',
    percent_bp: percentBp,
    percent_of: 'accommodation_excluding_vat',
    per: 'stay',
    exempts_children: null,
  });

const party = (adults: number, childAges: number[] = [], infants = 0): Party => ({
  adults,
  child_ages: childAges,
  infants,
});

describe('Tourist tax 2: fixed amount per guest-night', () => {
  test.each([
    ['adults and children are taxed', fixedTax(150), party(2, [8]), 3, 150 * 3 * 3],
    ['infants are never taxed', fixedTax(150), party(2, [], 2), 3, 150 * 2 * 3],
    ['infants never taxed, children are', fixedTax(150), party(1, [4, 12], 1), 2, 150 * 3 * 2],
    [
      'exempts_children taxes adults only',
      fixedTax(150, { exempts_children: true }),
      party(2, [8, 10]),
      3,
      150 * 2 * 3,
    ],
    [
      'exempts_children null counts children (the most charged)',
      fixedTax(150, { exempts_children: null }),
      party(2, [8]),
      1,
      450,
    ],
    ['nights capped at max_nights', fixedTax(100, { max_nights: 7 }), party(2), 10, 100 * 2 * 7],
    ['max_nights above the stay changes nothing', fixedTax(100, { max_nights: 7 }), party(2), 5, 100 * 2 * 5],
    ['max_nights below 1 is not a cap', fixedTax(100, { max_nights: 0 }), party(1), 3, 300],
    ['rounded once: 1.5 x 3 guest-nights is 4.5, rounded to 5 (not 2+2+2)', fixedTax(1.5), party(3), 1, 5],
    ['rounded once over nights: 1.5 x 1 guest x 3 nights is 5', fixedTax(1.5), party(1), 3, 5],
    ['rounded once: 0.25 x 2 guest-nights is 0.5, rounded to 1', fixedTax(0.25), party(2), 1, 1],
    ['rounded once: 0.2 x 2 guest-nights is 0.4, rounded to 0', fixedTax(0.2), party(1), 2, 0],
  ])('%s', (_name, fee, guests, nights, expected) => {
    expect(touristTax(fee, guests, nights)).toEqual({ kind: 'amount', money: { amount: expected, currency: 'EUR' } });
  });

  test.each([
    ['3-decimal currency (KWD 0.375 per guest-night)', 'KWD', 375, 375 * 2 * 2],
    ['0-decimal currency (JPY 200 per guest-night)', 'JPY', 200, 200 * 2 * 2],
  ])('%s', (_name, currency, rate, expected) => {
    const fee = fixedTax(null, { amount: { amount: rate, currency } });
    expect(touristTax(fee, party(2), 2)).toEqual({ kind: 'amount', money: { amount: expected, currency } });
  });

  test.each([
    ['per stay: once', 'stay', 500],
    ['per night: once a night, whatever the party', 'night', 1500],
  ])('fixed %s', (_name, per, expected) => {
    expect(touristTax(fixedTax(500, { per }), party(2, [5]), 3)).toEqual({
      kind: 'amount',
      money: { amount: expected, currency: 'EUR' },
    });
  });
});

describe('Tourist tax 3: percentage shown as payable at the property', () => {
  test('a percentage is not computed', () => {
    expect(touristTax(percentTax(125), party(2), 3)).toEqual({
      kind: 'percent_at_property',
      percent_bp: 125,
      percent_of: 'accommodation_excluding_vat',
    });
  });
});

describe('Tourist tax 4: a value not known is a local tax, never zero', () => {
  test.each([
    ['fixed with null amount', fixedTax(null)],
    ['percent with null percent_bp', percentTax(null)],
    ['basis null, amount and percent null', fixedTax(null, { basis: null })],
    ['a basis this version does not know', fixedTax(150, { basis: 'tiered' })],
    ['a per this version does not know', fixedTax(150, { per: 'guest_week' })],
  ])('%s', (_name, fee) => {
    const result = touristTax(fee, party(2, [8], 1), 3);
    expect(result).toEqual({ kind: 'unknown_local_tax' });
    expect(result).not.toHaveProperty('money');
  });
});

describe('Tourist tax 1: city_tax_status', () => {
  test.each([
    ['levied', 'levied'],
    ['none', 'none'],
    ['undeclared', 'undeclared'],
    ['exempt', 'undeclared'],
    [undefined, 'undeclared'],
    [null, 'undeclared'],
    [42, 'undeclared'],
  ])('%s is read as %s', (value, expected) => {
    expect(readCityTaxStatus(value)).toBe(expected);
  });

  test.each([
    [
      'levied shows the tax',
      'levied',
      fixedTax(100),
      { kind: 'tourist_tax', tax: { kind: 'amount', money: { amount: 400, currency: 'EUR' } } },
    ],
    [
      'levied with a null amount shows a local tax',
      'levied',
      fixedTax(null),
      { kind: 'tourist_tax', tax: { kind: 'unknown_local_tax' } },
    ],
    [
      'levied without the fee shows a local tax, not zero',
      'levied',
      undefined,
      { kind: 'tourist_tax', tax: { kind: 'unknown_local_tax' } },
    ],
    ['none shows nothing', 'none', undefined, null],
    ['undeclared says a tax may apply', 'undeclared', undefined, { kind: 'tourist_tax_may_apply' }],
    ['an unknown status says a tax may apply', 'exempt', undefined, { kind: 'tourist_tax_may_apply' }],
    [
      'a fee present is shown whatever the status',
      'undeclared',
      fixedTax(100),
      { kind: 'tourist_tax', tax: { kind: 'amount', money: { amount: 400, currency: 'EUR' } } },
    ],
  ])('%s', (_name, status, fee, expected) => {
    expect(touristTaxNotice(status, fee, party(2), 2)).toEqual(expected);
  });
});
