import { describe, expect, test } from 'vitest';
import { listingHorizon, publishedHorizonEnd, rangesBefore, rolledRange } from '../../domain/availability/horizon.ts';
import { horizonEnd, horizonFallsShort } from '../../domain/availability/nights.ts';

describe('the availability horizon', () => {
  test('a roll stores 366 nights: today through today + 365', () => {
    expect(horizonEnd('2026-11-22')).toBe('2027-11-23');
    expect(horizonEnd('2027-12-31')).toBe('2028-12-31');
  });

  test.each([
    // stored end, the property's today, published end
    ['2027-11-23', '2026-11-22', '2027-11-22'], // just rolled: the spare night is not published
    ['2027-11-23', '2026-11-23', '2027-11-23'], // after local midnight, before the roll: the spare night is
    ['2027-11-22', '2026-11-23', '2027-11-22'], // never past what is stored
  ])('stored end %s on %s publishes %s', (stored, today, published) => {
    expect(publishedHorizonEnd(stored, today)).toBe(published);
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

  test.each([
    // stored end before the roll, the roll's today, the range it announces
    ['2027-11-23', '2026-11-23', { from: '2027-11-22', to: '2027-11-23' }], // the night midnight published
    ['2027-11-23', '2026-11-26', { from: '2027-11-22', to: '2027-11-26' }], // three days late
    ['2026-11-20', '2026-11-23', { from: '2026-11-23', to: '2027-11-23' }], // a year late: from today
    ['2027-11-24', '2026-11-23', null], // rolled already
  ])('a roll from stored end %s on %s announces %j', (stored, today, range) => {
    expect(rolledRange(stored, today)).toEqual(range);
  });

  test('announced ranges stop at the published horizon', () => {
    const ranges = [
      { from: '2026-12-01', to: '2026-12-03' },
      { from: '2027-11-20', to: '2027-11-23' },
      { from: '2027-11-22', to: '2027-11-23' },
    ];
    expect(rangesBefore(ranges, '2027-11-22')).toEqual([
      { from: '2026-12-01', to: '2026-12-03' },
      { from: '2027-11-20', to: '2027-11-22' },
    ]);
  });

  test("a listing's horizon is the latest zone's: its today and today + 365", () => {
    // 10:30 UTC: 12:30 in Bucharest, 00:30 the next day in Kiritimati (UTC+14).
    const now = new Date('2026-11-22T10:30:00Z');
    expect(listingHorizon(now, ['Europe/Bucharest'])).toEqual({ today: '2026-11-22', horizonEnd: '2027-11-22' });
    expect(listingHorizon(now, ['Pacific/Kiritimati', 'Europe/Bucharest'])).toEqual({
      today: '2026-11-23',
      horizonEnd: '2027-11-23',
    });
    expect(listingHorizon(now, [])).toBeNull();
  });
});
