import { describe, expect, test } from 'vitest';
import { horizonEnd, horizonFallsShort } from '../../domain/availability/nights.ts';

describe('the availability horizon', () => {
  test('a roll keeps 366 nights: today through today + 365', () => {
    expect(horizonEnd('2026-11-22')).toBe('2027-11-23');
    expect(horizonEnd('2027-12-31')).toBe('2028-12-31');
  });

  test.each([
    // stored end, the property's today, overdue
    ['2027-11-23', '2026-11-22', false], // just rolled
    ['2027-11-23', '2026-11-23', false], // after local midnight, before the roll: the spare night
    ['2027-11-23', '2026-11-24', true], // a whole day late
    ['2027-11-22', '2026-11-22', false], // a horizon of exactly 365 nights is enough
    ['2027-11-21', '2026-11-22', true],
  ])('stored end %s on %s falls short: %s', (end, today, short) => {
    expect(horizonFallsShort(end, today)).toBe(short);
  });
});
