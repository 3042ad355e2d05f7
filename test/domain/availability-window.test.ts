import { describe, expect, test } from 'vitest';
import { propertyWindow, windowNights, windowRefusal } from '../../domain/availability/window.ts';

const TODAY = '2026-11-22';
const HORIZON_END = '2027-11-22'; // published: exactly 365 nights

describe("a property's window", () => {
  test.each([
    // from, to, window's first night, window's end, nights
    [undefined, undefined, TODAY, HORIZON_END, 365], // the whole horizon
    ['2026-11-23', undefined, '2026-11-23', HORIZON_END, 364],
    ['2027-11-21', undefined, '2027-11-21', HORIZON_END, 1], // the last night alone
    ['2026-11-01', undefined, TODAY, HORIZON_END, 365], // nights before today are not kept
    [undefined, '2026-12-22', TODAY, '2026-12-22', 30],
    [undefined, HORIZON_END, TODAY, HORIZON_END, 365],
    [undefined, '2026-11-22', TODAY, TODAY, 0],
    ['2026-12-01', '2026-12-31', '2026-12-01', '2026-12-31', 30],
    ['2026-10-01', '2026-12-01', TODAY, '2026-12-01', 9],
    // In a listing a window may reach past this property's horizon (a zone a day ahead): its nights stop at its own.
    [TODAY, '2027-11-23', TODAY, HORIZON_END, 365],
    ['2027-11-22', '2027-11-23', HORIZON_END, HORIZON_END, 0],
  ])('from %s to %s: %s up to %s, %i nights', (from, to, first, end, nights) => {
    const window = propertyWindow({ from, to }, TODAY, HORIZON_END);
    expect(window).toEqual({ from: first, to: end });
    expect(windowNights(window)).toBe(nights);
  });
});

describe('a window refused against a horizon', () => {
  test.each([
    // from, to, refusal
    [undefined, undefined, null],
    [TODAY, HORIZON_END, null], // the whole horizon: 365 nights
    ['2026-01-01', HORIZON_END, null], // 365 nights from today, the first night kept
    [undefined, HORIZON_END, null],
    ['2027-11-21', HORIZON_END, null],
    [TODAY, '2027-11-23', 'max_nights'], // 366 nights
    ['2027-01-01', '2027-12-01', 'window_beyond_horizon'],
    ['2027-12-01', '2027-12-05', 'window_beyond_horizon'],
    [HORIZON_END, undefined, 'window_beyond_horizon'], // no night left
  ])('from %s to %s: %s', (from, to, refusal) => {
    expect(windowRefusal({ from, to }, TODAY, HORIZON_END)).toBe(refusal);
  });
});
