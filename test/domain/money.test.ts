import { describe, expect, test } from 'vitest';
import {
  exact,
  exactAdd,
  exactBasisPoints,
  exactSum,
  exactTimes,
  minorUnitDigits,
  money,
  moneyFromMajor,
  moneyToMajor,
  roundHalfAwayFromZero,
  roundToMoney,
} from '../../domain/pricing/money.ts';

describe('minorUnitDigits follows ISO 4217', () => {
  test.each([
    ['EUR', 2],
    ['USD', 2],
    ['RON', 2],
    ['HUF', 2],
    ['GBP', 2],
    ['JPY', 0],
    ['KRW', 0],
    ['ISK', 0],
    ['CLP', 0],
    ['VND', 0],
    ['XOF', 0],
    ['BHD', 3],
    ['KWD', 3],
    ['JOD', 3],
    ['OMR', 3],
    ['TND', 3],
    ['IQD', 3],
    ['LYD', 3],
    ['CLF', 4],
    ['jpy', 0],
    ['XYZ', 2],
  ])('%s has %i digits', (currency, digits) => {
    expect(minorUnitDigits(currency)).toBe(digits);
  });
});

describe('rounding once, half away from zero', () => {
  test.each([
    ['4.5 rounds up', exact(4.5), 5],
    ['-4.5 rounds down', exact(-4.5), -5],
    ['0.5 rounds up', exact(0.5), 1],
    ['-0.5 rounds down', exact(-0.5), -1],
    ['4.49 rounds down', exact(4.49), 4],
    ['2.5 is not rounded to even', exact(2.5), 3],
    ['1/3 of a unit', { num: 1n, den: 3n }, 0],
    ['2/3 of a unit', { num: 2n, den: 3n }, 1],
    ['an integer stays', exact(1250), 1250],
  ])('%s', (_name, amount, expected) => {
    expect(roundHalfAwayFromZero(amount)).toBe(expected);
  });

  test('1.5 x 3 is 4.5, rounded once to 5 and not 2 + 2 + 2', () => {
    expect(roundHalfAwayFromZero(exactTimes(exact(1.5), 3))).toBe(5);
  });

  test('decimals are read exactly: 0.1 + 0.2 is 0.3 and 1.005 x 1000 is 1005', () => {
    expect(exactAdd(exact(0.1), exact(0.2))).toEqual(exact(0.3));
    expect(roundHalfAwayFromZero(exactTimes(exact(1.005), 1000))).toBe(1005);
    expect(roundHalfAwayFromZero(exactTimes(exact(0.0015), 1000))).toBe(2);
  });

  test('halves from two sources add up before rounding', () => {
    expect(roundHalfAwayFromZero(exactSum([exact(10.5), exact(0.5)]))).toBe(11);
  });

  test.each([
    [1000, 125, 13],
    [33_333, 125, 417],
    [200, 25, 1],
    [199, 25, 0],
  ])('%i at %i basis points rounds to %i', (amount, bp, expected) => {
    expect(roundHalfAwayFromZero(exactBasisPoints(exact(amount), bp))).toBe(expected);
  });

  test('roundToMoney keeps the currency', () => {
    expect(roundToMoney(exact(374.5), 'KWD')).toEqual({ amount: 375, currency: 'KWD' });
  });

  test('exact refuses a non-finite value', () => {
    expect(() => exact(Number.NaN)).toThrow(RangeError);
  });

  test('exact reads exponent notation', () => {
    expect(exactTimes(exact(1e-7), 1e7)).toEqual(exact(1));
    expect(exact(1e21)).toEqual({ num: 10n ** 21n, den: 1n });
  });
});

describe('money values', () => {
  test('money() refuses a fractional minor amount', () => {
    expect(() => money(1.5, 'EUR')).toThrow(RangeError);
    expect(money(150, 'EUR')).toEqual({ amount: 150, currency: 'EUR' });
  });

  test.each([
    ['12.50', 'EUR', 1250],
    ['12', 'EUR', 1200],
    ['0.375', 'KWD', 375],
    ['1.5', 'KWD', 1500],
    ['1200', 'JPY', 1200],
    ['-0.05', 'EUR', -5],
  ])('moneyFromMajor(%s %s) is %i', (decimal, currency, amount) => {
    expect(moneyFromMajor(decimal, currency)).toEqual({ amount, currency });
  });

  test.each([
    ['1.5', 'JPY'],
    ['1.2345', 'EUR'],
    ['0.3755', 'KWD'],
    ['abc', 'EUR'],
    ['1,50', 'EUR'],
  ])('moneyFromMajor refuses %s %s', (decimal, currency) => {
    expect(moneyFromMajor(decimal, currency)).toBeNull();
  });

  test.each([
    [1250, 'EUR', '12.50'],
    [5, 'EUR', '0.05'],
    [0, 'EUR', '0.00'],
    [375, 'KWD', '0.375'],
    [-5, 'KWD', '-0.005'],
    [1200, 'JPY', '1200'],
  ])('moneyToMajor(%i %s) is %s', (amount, currency, expected) => {
    expect(moneyToMajor({ amount, currency })).toBe(expected);
  });
});
