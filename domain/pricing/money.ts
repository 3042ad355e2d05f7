/**
 * Money as the contract carries it: `amount` is an integer in ISO 4217 minor units.
 *
 * Intermediate sums (a tourist-tax rate finer than the minor unit, a percentage of a total) are
 * kept as exact fractions and rounded once, at the very end, half away from zero: a half minor
 * unit goes up for a charge and down for a refund, so the rule is symmetric in sign. Binary
 * floating point is never used for a value that will be rounded, because 0.5 boundaries are
 * exactly where float error flips a result.
 */
export type Money = { amount: number; currency: string };

const ZERO_DIGIT = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DIGIT = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);
const FOUR_DIGIT = new Set(['CLF', 'UYW']);

/** ISO 4217 exponent. A code not listed is read as 2, the exponent of most currencies (HUF included). */
export function minorUnitDigits(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DIGIT.has(code)) return 0;
  if (THREE_DIGIT.has(code)) return 3;
  if (FOUR_DIGIT.has(code)) return 4;
  return 2;
}

export function isCurrencyCode(value: string): boolean {
  return /^[A-Z]{3}$/.test(value);
}

export function isMinorAmount(amount: number): boolean {
  return Number.isSafeInteger(amount);
}

export function money(amount: number, currency: string): Money {
  if (!isMinorAmount(amount)) throw new RangeError(`amount ${amount} is not an integer in minor units`);
  return { amount, currency };
}

/** An exact fraction of minor units; `den` is always positive. */
export type ExactAmount = { readonly num: bigint; readonly den: bigint };

export const EXACT_ZERO: ExactAmount = { num: 0n, den: 1n };

/**
 * Reads a number by its shortest decimal spelling, so 0.1 is exactly one tenth and not the
 * binary value nearest to it.
 */
export function exact(value: number): ExactAmount {
  if (!Number.isFinite(value)) throw new RangeError(`${value} is not a finite amount`);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]?\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`cannot read ${value} as a decimal`);
  const [, sign = '', whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText) - fraction.length;
  let num = BigInt(whole + fraction) * (sign === '-' ? -1n : 1n);
  let den = 1n;
  if (exponent >= 0) num *= 10n ** BigInt(exponent);
  else den = 10n ** BigInt(-exponent);
  return reduce(num, den);
}

export function exactAdd(a: ExactAmount, b: ExactAmount): ExactAmount {
  return reduce(a.num * b.den + b.num * a.den, a.den * b.den);
}

export function exactSum(amounts: readonly ExactAmount[]): ExactAmount {
  return amounts.reduce(exactAdd, EXACT_ZERO);
}

export function exactTimes(a: ExactAmount, factor: number): ExactAmount {
  const f = exact(factor);
  return reduce(a.num * f.num, a.den * f.den);
}

/** `a` x `basisPoints` / 10 000 (125 basis points is 1.25 %). */
export function exactBasisPoints(a: ExactAmount, basisPoints: number): ExactAmount {
  const bp = exact(basisPoints);
  return reduce(a.num * bp.num, a.den * bp.den * 10_000n);
}

/** The one rounding step: to a whole minor unit, half away from zero. */
export function roundHalfAwayFromZero(a: ExactAmount): number {
  const magnitude = a.num < 0n ? -a.num : a.num;
  let whole = magnitude / a.den;
  if ((magnitude % a.den) * 2n >= a.den) whole += 1n;
  const result = Number(a.num < 0n ? -whole : whole);
  if (!Number.isSafeInteger(result)) throw new RangeError('amount exceeds the safe integer range');
  return result;
}

export function roundToMoney(a: ExactAmount, currency: string): Money {
  return { amount: roundHalfAwayFromZero(a), currency };
}

/** "12.50" EUR -> 1250; refuses more decimals than the currency has. */
export function moneyFromMajor(decimal: string, currency: string): Money | null {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(decimal);
  if (!match) return null;
  const [, sign = '', whole = '0', fraction = ''] = match;
  const digits = minorUnitDigits(currency);
  if (fraction.length > digits) return null;
  const amount = Number(whole + fraction.padEnd(digits, '0')) * (sign === '-' ? -1 : 1);
  return isMinorAmount(amount) ? { amount: amount === 0 ? 0 : amount, currency } : null;
}

/** 1250 EUR -> "12.50", 375 KWD -> "0.375", 1200 JPY -> "1200". */
export function moneyToMajor(value: Money): string {
  const digits = minorUnitDigits(value.currency);
  const magnitude = String(Math.abs(value.amount)).padStart(digits + 1, '0');
  const sign = value.amount < 0 ? '-' : '';
  if (digits === 0) return sign + magnitude;
  return `${sign}${magnitude.slice(0, -digits)}.${magnitude.slice(-digits)}`;
}

function reduce(num: bigint, den: bigint): ExactAmount {
  if (den === 0n) throw new RangeError('zero denominator');
  if (den < 0n) return reduce(-num, -den);
  const divisor = gcd(num < 0n ? -num : num, den);
  return { num: num / divisor, den: den / divisor };
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}
