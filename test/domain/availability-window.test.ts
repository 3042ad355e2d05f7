import { describe, expect, test } from 'vitest';
import { propertyWindow, windowNights } from '../../domain/availability/window.ts';

const TODAY = '2026-11-22';
const HORIZON_END = '2027-11-23'; // rolled today: 366 nights

describe("a property's window", () => {
  test.each([
    // from, to, window's first night, window's end, nights
    [undefined, undefined, TODAY, '2027-11-22', 365],
    ['2026-11-23', undefined, '2026-11-23', HORIZON_END, 365], // from tomorrow: the horizon's last night included
    ['2027-11-22', undefined, '2027-11-22', HORIZON_END, 1], // the last night alone
    ['2026-11-01', undefined, TODAY, '2027-11-22', 365], // nights before today are not kept
    [undefined, '2026-12-22', TODAY, '2026-12-22', 30],
    [undefined, HORIZON_END, '2026-11-23', HORIZON_END, 365], // to alone: the 365 nights before it
    [undefined, '2026-11-22', TODAY, TODAY, 0],
    ['2026-12-01', '2026-12-31', '2026-12-01', '2026-12-31', 30],
    ['2026-10-01', '2026-12-01', TODAY, '2026-12-01', 9],
  ])('from %s to %s: %s up to %s, %i nights', (from, to, first, end, nights) => {
    const window = propertyWindow({ from, to }, TODAY, HORIZON_END);
    expect(window).toEqual({ from: first, to: end });
    expect(windowNights(window)).toBe(nights);
  });

  test("before the day's roll (a horizon of 365 nights) a pull from today reaches horizon_end", () => {
    expect(propertyWindow({}, '2026-11-23', HORIZON_END)).toEqual({ from: '2026-11-23', to: HORIZON_END });
  });
});
